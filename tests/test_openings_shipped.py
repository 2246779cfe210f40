"""The books shipped in examples/openings/: read by the arena's own reader, every opening legal,
distinct and unfinished, each made by ``arena openings make`` (its command in the header);
the ready configs play from them, and a new league starts with its game's book."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from arena.cli import main
from arena.formats.schedule import build_schedule
from arena.openings.book import read_book
from arena.openings.shipped import BOOKS, FOLDER, shipped_book
from arena.settings.config import load_config
from referee.games import GAME_NAMES, get_game

ROOT = Path(__file__).resolve().parents[1]
SEVERAL_HUNDRED = 200


def test_every_game_has_a_shipped_book() -> None:
    assert set(BOOKS) == set(GAME_NAMES)
    assert FOLDER == ROOT / "examples" / "openings"
    assert all(shipped_book(game) == FOLDER / BOOKS[game] for game in GAME_NAMES)
    assert shipped_book("chess") is None


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_shipped_book_is_legal_distinct_unfinished_and_says_how_it_was_made(game: str) -> None:
    path = FOLDER / BOOKS[game]
    openings = read_book(path, game, {})  # every move legal, no opening ending the game
    assert len(openings) >= SEVERAL_HUNDRED
    rules = get_game(game)
    keys = set()
    for opening in openings:
        board = rules.new(opening.start_position or None, ())
        for move in opening.moves:
            board.play(move)
            state = board.round_state()
            assert state is None or not state.parties, f"{opening.source}: a partie ends"
        assert not board.is_over() and not board.wins_at_once(), opening.source
        keys.add(board.repetition_key())
    assert len(keys) == len(openings), "two openings of the book reach one position"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0][2:].startswith(f"{len(openings)} balanced {game} openings, made by:")
    command = shlex.split(lines[1][1:])
    assert command[:4] == ["arena", "openings", "make", game]
    assert command[command.index("--output") + 1] == f"examples/openings/{BOOKS[game]}"
    assert int(command[command.index("--count") + 1]) == len(openings)
    body = [line for line in lines if not line.startswith(("#", "%"))]
    if "--scorer" in command and command[command.index("--scorer") + 1] == "match":
        # Each opening's comment: the first mover's points of the scorer's games, within --lean.
        games = 2 * int(command[command.index("--pairs") + 1])
        lean = float(command[command.index("--lean") + 1]) / 100
        points = [float(found[1]) for line in body
                  for found in re.finditer(rf"p1 ([\d.]+)/{games} \(\+\d+ =\d+ -\d+\) \(",
                                           line)]
        assert len(points) == len(openings)
        assert all(abs(p / games - 0.5) <= lean + 1e-9 for p in points)
        return
    window = int(command[command.index("--window") + 1])
    scores = [int(found[1]) for line in body
              for found in re.finditer(r"p1 ([+-]\d+) cp \(", line)]
    assert len(scores) == len(openings) and all(abs(s) <= window for s in scores)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_ready_config_plays_the_shipped_book(game: str) -> None:
    loaded = load_config(ROOT / "examples" / f"{game}.toml")
    assert loaded.openings_file == FOLDER / BOOKS[game]
    schedule = build_schedule(loaded)
    sources = {g.opening.source for g in schedule.games}
    assert all(source.startswith(f"{BOOKS[game]}:") for source in sources)
    assert len(sources) == len(schedule.games) // 2  # one opening per colour pair


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_new_league_starts_with_its_games_book(tmp_path: Path, game: str) -> None:
    book = BOOKS[game]
    assert main(["league", "init", str(tmp_path / "a"), "--game", game, "--tc", "1+0"]) == 0
    text = (tmp_path / "a" / "league.toml").read_text()
    assert f'[openings]\nfile = "{book}"' in text
    assert (tmp_path / "a" / book).read_bytes() == (FOLDER / book).read_bytes()
    assert main(["league", "init", str(tmp_path / "b"), "--game", game, "--tc", "1+0",
                 "--random-plies", "0"]) == 0
    assert "[openings]" not in (tmp_path / "b" / "league.toml").read_text()
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["league.toml"]
