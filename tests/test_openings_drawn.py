"""A tournament checks the book openings its games draw, not the whole book (issue 40).

The book is read and parsed whole (a line of no opening is refused wherever it is); an
opening's moves are played by the rules when the schedule first draws it, in the order the
games use them, all before the first game. Replays are counted at the rules themselves
(``Game.new`` and ``Game.play`` of the game's class), books are real files written here, and
one test is a whole ``arena run`` that must refuse a bad opening it would play third.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.errors import UserError
from arena.formats.schedule import build_schedule
from arena.openings.book import ordered, read_book
from arena.settings.config import load_config
from referee.games import get_game

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"
RUN_TIMEOUT = 300
BOOK_SIZE = 400
PLIES = 4


def book_lines(count: int, plies: int = PLIES) -> list[str]:
    """``count`` distinct dobutsu openings of ``plies`` legal moves that keep the game going
    (a walk over the first legal moves, so the book is the same every time)."""
    rules = get_game("dobutsu")
    lines: list[str] = []

    def walk(position: Any, played: list[str]) -> None:
        if len(lines) == count:
            return
        if len(played) == plies:
            lines.append("moves " + " ".join(played))
            return
        for move in position.legal_moves():
            position.play(move)
            if not position.is_over():
                walk(position, [*played, move])
            position.pop()

    walk(rules.start(), [])
    assert len(lines) == count
    return lines


def config(tmp_path: Path, lines: list[str], *, games: int = 2, order: str = "sequential",
           body: str = "", bots: int = 2) -> Path:
    (tmp_path / "book.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = (f'game = "dobutsu"\ntc = "60+1"\ngames_per_pairing = {games}\nseed = 3\n{body}\n'
            f'[openings]\nfile = "book.txt"\norder = "{order}"\n[adjudication]\nmax_plies = 30\n')
    for i in range(bots):
        text += (f'[[bots]]\nname = "r{i}"\n'
                 f'cmd = ["{{python}}", "{RANDOM_BOT}", "--seed", "{i}"]\n')
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts the dobutsu positions the rules make from a text (``new``: one per opening
    checked) and the moves they play (``play``)."""
    rules = get_game("dobutsu")
    counts: Counter[str] = Counter()
    new, play = rules.new.__func__, rules.play  # type: ignore[attr-defined]

    def counted_new(cls: Any, *args: Any, **kwargs: Any) -> Any:
        counts["openings"] += 1
        return new(cls, *args, **kwargs)

    def counted_play(self: Any, text: str) -> Any:
        counts["moves"] += 1
        return play(self, text)

    monkeypatch.setattr(rules, "new", classmethod(counted_new))
    monkeypatch.setattr(rules, "play", counted_play)
    return counts


def test_a_two_game_run_of_a_400_opening_book_replays_the_one_it_plays(
        tmp_path: Path, replays: Counter[str]) -> None:
    loaded = load_config(config(tmp_path, book_lines(BOOK_SIZE)))
    replays.clear()  # the book's making
    schedule = build_schedule(loaded)
    assert [g.opening_index for g in schedule.games] == [0, 0]
    assert replays == {"openings": 1, "moves": PLIES}

    replays.clear()  # the whole book, for comparison: what the schedule used to replay
    assert len(read_book(tmp_path / "book.txt", "dobutsu", {})) == BOOK_SIZE
    assert replays == {"openings": BOOK_SIZE, "moves": BOOK_SIZE * PLIES}


def test_a_random_order_replays_the_openings_it_draws(
        tmp_path: Path, replays: Counter[str]) -> None:
    """Three bots, 2 pairs each: 6 openings drawn from 400, each replayed once although its
    two games (colours swapped) both hold it; the same schedule every time (resume)."""
    path = config(tmp_path, book_lines(BOOK_SIZE), games=4, order="random", bots=3)
    replays.clear()  # the book's making
    first = build_schedule(load_config(path))
    drawn = {g.opening_index for g in first.games}
    assert drawn == set(ordered(BOOK_SIZE, "random", 3)[:6])
    assert replays == {"openings": 6, "moves": 6 * PLIES}
    again = build_schedule(load_config(path))
    assert again.fingerprint == first.fingerprint and again.games == first.games


def test_a_bad_opening_is_refused_only_by_a_schedule_that_draws_it(tmp_path: Path) -> None:
    """Line 3's second move is illegal. Two games draw line 1 only and play well: the bad
    opening would spoil none of their games. Six draw lines 1 to 3: refused, naming the file,
    line, ply and move."""
    lines = book_lines(2)
    lines.append("moves b1c2 b1c2")
    assert len(build_schedule(load_config(config(tmp_path, lines))).games) == 2
    with pytest.raises(UserError, match=r"book\.txt:3: move 'b1c2' \(ply 2 of the opening at "
                       r"line 3\): .*illegal"):
        build_schedule(load_config(config(tmp_path, lines, games=6)))


def test_an_unreadable_line_is_refused_wherever_it_is(tmp_path: Path) -> None:
    """Parsing is whole-file: a line of no opening stops even a run that would not draw it."""
    lines = [*book_lines(3), "move b1c2"]
    with pytest.raises(UserError, match=r"book\.txt:4: expected 'fen <position>' or 'moves"):
        build_schedule(load_config(config(tmp_path, lines)))


def test_the_first_bad_opening_the_games_draw_is_the_one_named(tmp_path: Path) -> None:
    """Random order over 10 openings, two of them bad: the error names the one the earlier
    game draws, whichever comes first in the file."""
    lines = book_lines(10)
    order = ordered(10, "random", 3)
    early, late = order[1], order[3]
    lines[early] = f"moves {lines[early].split()[1]} x9x9"
    lines[late] = f"moves {lines[late].split()[1]} x9x9"
    with pytest.raises(UserError, match=rf"book\.txt:{early + 1}: move 'x9x9' \(ply 2 of the "
                       rf"opening at line {early + 1}\)"):
        build_schedule(load_config(config(tmp_path, lines, games=10, order="random")))


def test_a_round_based_format_checks_the_whole_book(tmp_path: Path) -> None:
    """A knockout draws its later rounds' openings (and its tie-breaks') as results come in:
    a bad one must stop it before the first round, not between rounds."""
    lines = [*book_lines(9), "moves b1c2 b1c2"]
    with pytest.raises(UserError, match=r"book\.txt:10: move 'b1c2' \(ply 2"):
        build_schedule(load_config(config(tmp_path, lines, body='format = "knockout"',
                                          bots=4)))


@pytest.mark.slow
def test_arena_run_refuses_a_bad_opening_it_draws_before_any_game(tmp_path: Path) -> None:
    lines = book_lines(2)
    lines.append("moves b1c2 b1c2")
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(config(tmp_path, lines, games=6)),
         "--output", str(out)], capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT)
    assert done.returncode == 2, done.stderr
    assert "book.txt:3: move 'b1c2' (ply 2 of the opening at line 3)" in done.stderr
    assert not out.exists()  # no run directory, no journal: no game played or scored
