"""The Hub dialect with real processes: the arena's own Hub engine (tests/bots/hub_bot.py) in
CI, and Scan 3.1 itself when ``ARENA_SCAN`` points at a built Scan (skipped otherwise); its
faults' reasons with a scripted Hub engine (tests/scripted.py)."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import pytest
import trio
from fake_channel import Answer
from scripted import hub_bot as scripted_hub
from scripted import play_scripted
from scripted import random_bot as scripted_random
from trio.testing import MockClock

from arena.cli import main
from referee.botspec import BotSpec
from referee.games import get_game
from referee.match import play_game
from referee.order import GameOrder
from referee.record import GameRecord, Termination
from referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent
HUB_BOT = str(ROOT / "tests" / "bots" / "hub_bot.py")
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
ALPHABETA = str(ROOT / "sample_bots" / "alphabeta.py")
FAST = TimeControl.parse("60+1")  # roomy: on a loaded machine a move can take a second


def hub_bot(mode: str = "normal", seed: int = 1) -> BotSpec:
    return BotSpec(name=f"hub-{mode}", cmd=[sys.executable, HUB_BOT, "--seed", str(seed),
                                            "--mode", mode], protocol="hub")


def replays(record: GameRecord) -> None:
    board = get_game("draughts").new(record.start_position, [m.move for m in record.moves])
    assert board.position() == record.final_position


@pytest.mark.slow
async def test_hub_engine_plays_whole_games_in_pdn() -> None:
    random_bot = BotSpec(name="random", cmd=[sys.executable, RANDOM_BOT, "--seed", "3"])
    with trio.fail_after(120):
        for p1, p2 in ((hub_bot(), random_bot), (random_bot, hub_bot(seed=2))):
            record = await play_game(GameOrder.checked("draughts", p1, p2, tc=FAST))
            assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION), \
                record.reason
            replays(record)
            hub_side = 0 if p1.protocol == "hub" else 1
            hub_moves = [m for m in record.moves if m.side == hub_side]
            assert hub_moves and all(m.info is not None and m.info.depth == 1
                                     for m in hub_moves)
            captures = [m.move for m in hub_moves if "x" in m.move]
            assert captures, "the Hub engine never captured: the translation went untested"


FAULTS: dict[str, list[Answer]] = {
    "illegal": ["done move=1-50"],
    "error": ['error message="cannot think today"'],
    "silent": [],
}
"""tests/bots/hub_bot.py's ``--mode``s: what each answers every ``go`` with."""


@pytest.mark.parametrize(("mode", "termination", "words"), [
    ("illegal", Termination.ILLEGAL_MOVE, "played illegal move '1-50' (Hub notation)"),
    ("error", Termination.PROTOCOL_ERROR, "reported an error: 'cannot think today'"),
    ("silent", Termination.TIME_FORFEIT, "no done within"),
])
async def test_hub_engine_faults_lose_with_a_clear_reason(mode: str, termination: Termination,
                                                          words: str, autojump_clock: MockClock
                                                          ) -> None:
    """The referee's rules for a Hub engine's faults, scripted on the autojump clock."""
    random_bot = scripted_random("random", 3)
    with trio.fail_after(60):
        record = await play_scripted("draughts", scripted_hub(f"hub-{mode}", FAULTS[mode]),
                                     random_bot, tc="st=0.5")
    assert record.termination is termination and record.winner == 1, record.reason
    assert words in record.reason and "p1 (hub-" in record.reason


async def test_short_hub_captures_are_accepted_when_unambiguous() -> None:
    random_bot = BotSpec(name="random", cmd=[sys.executable, RANDOM_BOT, "--seed", "4"])
    with trio.fail_after(120):
        record = await play_game(GameOrder.checked("draughts", hub_bot("short"), random_bot,
                                                   tc=FAST))
    # The majority rule rarely leaves two captures with the same ends: either the game ran
    # through, or the one ambiguous short capture was named as such.
    if record.termination is Termination.ILLEGAL_MOVE:
        assert "ambiguous move" in record.reason
    else:
        replays(record)


def test_check_bot_passes_the_hub_engine(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-bot", "draughts", "--protocol", "hub", "--", sys.executable, HUB_BOT])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "id name 'HubBot 1.0'" in out


SCAN = os.environ.get("ARENA_SCAN")


@pytest.mark.external  # run by `make test-scan ARENA_SCAN=...`, never skipped when asked for
@pytest.mark.slow
async def test_scan_plays_alphabeta_without_protocol_errors() -> None:
    if not SCAN:
        pytest.fail("ARENA_SCAN is not set: build Scan 3.1 (github rhalbersma/scan, make in "
                    "src/, a zero-filled data/eval of 8503280 bytes) and run make test-scan "
                    "ARENA_SCAN=/path/to/scan")
    scan = BotSpec(name="scan", cmd=[SCAN, "hub"], cwd=str(Path(SCAN).resolve().parent),
                   protocol="hub")
    alphabeta = BotSpec(name="alphabeta", cmd=[sys.executable, ALPHABETA])
    seen: Counter[str] = Counter()
    # Scan keeps only ~0.1 s on its clock late in a 5+0.05 game (its own time_lag); on a
    # shared, loaded machine the scheduler alone can eat that, so the test grants a margin
    # (the 20-game acceptance match runs at plain 5+0.05: see ARENA_SCAN_TC).
    tc = TimeControl.parse(os.environ.get("ARENA_SCAN_TC", "5+0.05 timemargin=300"))
    with trio.fail_after(600):
        for index in range(int(os.environ.get("ARENA_SCAN_GAMES", "2"))):
            p1, p2 = (scan, alphabeta) if index % 2 == 0 else (alphabeta, scan)
            record = await play_game(GameOrder.checked("draughts", p1, p2, tc=tc,
                                                       id=f"g{index + 1}"))
            seen[str(record.termination)] += 1
            if record.termination not in (Termination.NORMAL, Termination.ADJUDICATION):
                faulty = (record.p1, record.p2)[1 - (record.winner or 0)]
                assert faulty != "scan", record.reason  # Scan never breaks the protocol
            replays(record)
    assert sum(seen.values()) >= 1
