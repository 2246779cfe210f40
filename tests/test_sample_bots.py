"""The sample bots: each passes ``arena check-bot`` in every game, alphabeta plays real games.

Everything runs as real child processes through the real CLI (``arena check-bot``,
``arena play``), so a bot that breaks the protocol, loses on time or plays an illegal move
fails here exactly as it would in a tournament. Strength is measured in
``bench/bench_strength.py``, not here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from system_packages import require

from referee.games import GAME_NAMES, get_game
from referee.record import GameRecord, Termination

pytestmark = pytest.mark.slow  # every sample bot through check-bot in every game, and real games

ROOT = Path(__file__).resolve().parent.parent
BOTS_DIR = ROOT / "sample_bots"
ARENA = [sys.executable, "-m", "arena.cli"]
PY = sys.executable

BOTS: dict[str, list[str]] = {
    "alphabeta": [PY, str(BOTS_DIR / "alphabeta.py")],
    "greedy": [PY, str(BOTS_DIR / "greedy.py")],
    "c-randbot": [str(BOTS_DIR / "c" / "randbot"), "7"],
    "js-randbot": ["node", str(BOTS_DIR / "js" / "randbot.js")],
}


@pytest.fixture(scope="session")
def c_bot() -> None:
    """Build the C bot the way ``make bots`` does."""
    require("gcc")
    subprocess.run(["make", "-s", "-C", str(BOTS_DIR)], check=True, timeout=120)


def _needs(bot: str, request: pytest.FixtureRequest) -> None:
    if bot == "c-randbot":
        request.getfixturevalue("c_bot")
    if bot == "js-randbot":
        require("nodejs")


FULL_SEARCH_GAME = "draughts"
"""The game where check-bot sees alphabeta's full, timed search (``stop`` in the middle of a
search included); in the others its depth is capped at 3 (``--bot-option Depth=3``): the same
protocol at a fifth of the CPU (each uncapped check is ~4 CPU-seconds of search)."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("bot", list(BOTS))
def test_check_bot_passes(bot: str, game: str, request: pytest.FixtureRequest) -> None:
    _needs(bot, request)
    capped = ["--bot-option", "Depth=3"] if bot == "alphabeta" and game != FULL_SEARCH_GAME \
        else []
    done = subprocess.run(
        [*ARENA, "check-bot", game, *capped, "--", *BOTS[bot]],
        cwd=ROOT, capture_output=True, text=True, timeout=110,
    )
    assert done.returncode == 0, f"{bot} failed check-bot {game}:\n{done.stdout}\n{done.stderr}"
    assert "all steps passed" in done.stdout
    assert "FAIL" not in done.stdout


@pytest.mark.timeout(180)
@pytest.mark.parametrize("game", GAME_NAMES)
def test_alphabeta_plays_a_real_game(game: str, tmp_path: Path) -> None:
    """A short game against the random bot with a real clock: no forfeit of any kind, and
    the referee recorded alphabeta's search reports (depth, pv) with its moves. The clock's
    margin (1 s a move) is for a loaded machine, where the scheduler alone can make a move
    that alphabeta timed to fit its clock arrive late."""
    out = tmp_path / "play"
    options = ["--option", "target=2"] if game == "donkan" else []
    done = subprocess.run(
        [*ARENA, "play", game, "--p1", f"{PY} {BOTS_DIR / 'alphabeta.py'}",
         "--p2", f"{PY} {BOTS_DIR / 'random_bot.py'} --seed 3", "--tc", "3+0.05 timemargin=1000",
         "--max-plies", "60", "--games", "1", "--quiet", "--out", str(out), *options],
        cwd=ROOT, capture_output=True, text=True, timeout=170,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (out / "games.jsonl").read_bytes().splitlines()
    assert len(lines) == 1
    record = msgspec.json.decode(lines[0], type=GameRecord)
    assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION), record.reason
    assert record.p1 == "alphabeta"
    if record.winner is not None:
        assert record.winner == 0, f"alphabeta lost to random: {record.reason}"
    mine = [m for m in record.moves if m.side == 0 and not m.book]
    assert mine, "alphabeta made no move"
    searched = [m for m in mine if m.info is not None and m.info.depth]
    assert searched, "no 'info depth ...' line reached the referee"
    for m in searched:
        assert m.info is not None and m.info.pv, f"info without pv before {m.move}"
        assert m.info.pv[0] == m.move, f"pv {m.info.pv} does not start with the move {m.move}"


# ----- the search itself, in-process --------------------------------------------------------


def _best(game: str, position: str, depth: int = 3) -> str:
    from sample_bots.evaluation import get_evaluator
    from sample_bots.search import Limits, Searcher, TranspositionTable

    board = get_game(game).from_position(position)
    searcher = Searcher(board, get_evaluator(game), TranspositionTable(1))
    best, report = searcher.iterate(Limits(depth=depth))
    assert report is not None
    assert board.position() == position, "the search did not restore the board"
    return str(board.format_move(best))


def test_search_takes_the_lion() -> None:
    # White's lion on b2 faces black's on b3: taking it wins at once.
    assert _best("dobutsu", "g1e/1l1/1L1/E1G[Cc] w - - 0 1") == "b2b3"


def test_search_enters_the_den() -> None:
    # South's rat stands on d8, next to the north den d9.
    assert _best("jungle", "l5t/1d1R1c1/r1p1w1e/7/7/7/E1W1P2/1C3D1/T5L s") == "d8d9"


def test_search_scores_a_castle_entry_in_donkan() -> None:
    # South's king on d3, next to the unguarded castle: 2 points now beat anything else.
    assert _best("donkan", "1s1ks2/7/7/7/3K3/7/2S2S1 s 0-0 10 s 0 0") == "d3d4"


def test_time_plan_never_spends_half_the_clock() -> None:
    from protocol.messages import Go
    from sample_bots.alphabeta import plan_time

    for left in (50, 200, 1000, 10_000, 60_000):
        for inc in (0, 50, 100, 1000):
            soft, hard = plan_time(Go(p1time=left, p2time=1, p1inc=inc, p2inc=0), 0)
            assert soft is not None and hard is not None
            assert soft <= hard
            assert hard <= max(1.0, left / 2), (left, inc, hard)
    soft, hard = plan_time(Go(movetime=300), 1)
    assert soft == hard and hard is not None and hard < 300
    assert plan_time(Go(infinite=True), 0) == (None, None)
    assert plan_time(Go(depth=3), 0) == (None, None)


def test_search_limits_depth_and_nodes() -> None:
    from sample_bots.evaluation import get_evaluator
    from sample_bots.search import Limits, Report, Searcher, TranspositionTable

    board = get_game("jungle").start()
    reports: list[Report] = []
    searcher = Searcher(board, get_evaluator("jungle"), TranspositionTable(1))
    best, last = searcher.iterate(Limits(depth=3), reports.append)
    assert [r.depth for r in reports] == [1, 2, 3]
    assert last is reports[-1] and best == last.pv[0]
    assert board.position() == get_game("jungle").START_POSITION
    capped = Searcher(board, get_evaluator("jungle"), TranspositionTable(1))
    best, _ = capped.iterate(Limits(nodes=300))
    assert capped.nodes <= 300 and best in board.moves()
    assert board.position() == get_game("jungle").START_POSITION, "abort left moves pushed"


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("game", GAME_NAMES)
def test_greedy_beats_random_in_a_five_game_match(game: str, tmp_path: Path) -> None:
    """The ladder's lower rung, as sample_bots/README.md states it: greedy ahead of random at
    every game. Both bots are seeded and neither reads its clock, so the match is the same on
    any machine. (Greedy once scored 12 of 64 points at draughts: it offered men that random
    then had to take.)"""
    out = tmp_path / "match"
    options = ["--option", "target=2"] if game == "donkan" else []
    done = subprocess.run(
        [*ARENA, "play", game, "--p1", f"{PY} {BOTS_DIR / 'greedy.py'} --seed 1",
         "--p2", f"{PY} {BOTS_DIR / 'random_bot.py'} --seed 2", "--tc", "60+1",
         "--max-plies", "300", "--games", "5", "--quiet", "--out", str(out), *options],
        cwd=ROOT, capture_output=True, text=True, timeout=590,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    records = [msgspec.json.decode(line, type=GameRecord)
               for line in (out / "games.jsonl").read_bytes().splitlines()]
    assert len(records) == 5
    greedy = sum(1.0 if r.winner == (0 if r.p1 == "greedy" else 1) else
                 0.5 if r.winner is None else 0.0 for r in records)
    assert greedy > 2.5, [(r.p1, r.result, r.reason) for r in records]
