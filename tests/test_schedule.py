"""The schedule: deterministic ids, colour swaps, formats, openings from a file or random plies."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arena.errors import UserError
from arena.formats.schedule import build_schedule, pairings
from arena.openings.book import read_book
from arena.settings.config import load_config
from referee.games import get_game


def config(tmp_path: Path, body: str, bots: int = 3) -> Path:
    text = 'game = "draughts"\ntc = "10+0.1"\n' + body + "\n"
    for i in range(bots):
        text += f'[[bots]]\nname = "b{i}"\ncmd = ["python3"]\n'
    path = tmp_path / "c.toml"
    path.write_text(text)
    return path


def test_round_robin_ids_colours_and_order(tmp_path: Path) -> None:
    schedule = build_schedule(load_config(config(tmp_path, "rounds = 2\ngames_per_pairing = 4")))
    assert schedule.total == 3 * 4 * 2
    ids = schedule.ids()
    assert len(set(ids)) == len(ids)
    assert ids[:4] == ["r1-p01-g1", "r1-p01-g2", "r1-p02-g1", "r1-p02-g2"]
    by_id = {g.id: g for g in schedule.games}
    assert (by_id["r1-p01-g1"].p1, by_id["r1-p01-g1"].p2) == ("b0", "b1")
    assert (by_id["r1-p01-g2"].p1, by_id["r1-p01-g2"].p2) == ("b1", "b0")
    # every bot plays as many games with each colour
    firsts = Counter(g.p1 for g in schedule.games)
    seconds = Counter(g.p2 for g in schedule.games)
    assert firsts == seconds == {"b0": 8, "b1": 8, "b2": 8}
    assert by_id["r2-p03-g4"].round == 2


def test_gauntlet_pairs_first_bot_only() -> None:
    assert pairings(["a", "b", "c", "d"], "gauntlet") == [("a", "b"), ("a", "c"), ("a", "d")]
    assert len(pairings(["a", "b", "c", "d"], "round-robin")) == 6


def test_same_config_same_schedule_and_fingerprint(tmp_path: Path) -> None:
    path = config(tmp_path, "seed = 3\n[openings]\nrandom_plies = 4")
    one, two = build_schedule(load_config(path)), build_schedule(load_config(path))
    assert one == two
    path.write_text(path.read_text().replace("seed = 3", "seed = 4"))
    three = build_schedule(load_config(path))
    assert three.ids() == one.ids() and three.fingerprint != one.fingerprint


def test_random_openings_are_legal_shared_by_pairs(tmp_path: Path) -> None:
    schedule = build_schedule(
        load_config(config(tmp_path, "seed = 1\n[openings]\nrandom_plies = 6"))
    )
    draughts = get_game("draughts")
    games = schedule.games
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first.opening == second.opening and first.p1 == second.p2
        assert len(first.opening.moves) == 6
        assert not draughts.new(None, first.opening.moves).is_over()
    assert len({g.opening.moves for g in games}) > 1


def test_openings_file_cycles_with_both_colours(tmp_path: Path) -> None:
    (tmp_path / "o.txt").write_text(
        "# two openings\nmoves 32-28 19-23\n\nfen W:W31-50:B1-20  # the start, as a FEN\n"
    )
    path = config(tmp_path, 'games_per_pairing = 4\n[openings]\nfile = "o.txt"', bots=2)
    games = build_schedule(load_config(path)).games
    assert [g.opening_index for g in games] == [0, 0, 1, 1]
    assert games[0].opening.moves == ("32-28", "19-23")
    assert games[2].opening.start_position == "W:W31-50:B1-20"
    assert games[0].opening.source.endswith("o.txt:2")


def test_bad_opening_line_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("moves 32-28\nmoves 32-28 32-28\n")
    with pytest.raises(UserError, match=r"bad\.txt:2: move '32-28' \(ply 2 .*illegal move"):
        read_book(bad, "draughts", {})
    bad.write_text("32-28\n")
    with pytest.raises(UserError, match=r"bad\.txt:1: expected 'fen <position>'"):
        read_book(bad, "draughts", {})
