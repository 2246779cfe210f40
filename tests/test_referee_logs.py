"""Bot stderr logs: one file per bot and game, so concurrent games of one bot never mix."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest
import trio

from referee.botspec import BotSpec
from referee.match import FreshBots, play_game
from referee.order import GameOrder
from referee.timecontrol import TimeControl

pytestmark = pytest.mark.slow  # real games between chatty bots

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
# A random bot that first says who it is on stderr.
CHATTY = (
    "import runpy, sys; sys.stderr.write('hello from ' + sys.argv[1] + '\\n'); "
    "sys.stderr.flush(); sys.argv = [sys.argv[0]]; "
    f"runpy.run_path({RANDOM_BOT!r}, run_name='__main__')"
)


def chatty(name: str, tag: str) -> BotSpec:
    # its folder is the random bot's: a contained bot sees its own folder only
    return BotSpec(name=name, cmd=[sys.executable, "-c", CHATTY, tag],
                   cwd=os.path.dirname(RANDOM_BOT))


async def test_two_games_of_one_bot_at_once_log_to_separate_files(tmp_path: Path) -> None:
    tc = TimeControl.parse("60+1")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for game_id in ("g1", "g2"):
                nursery.start_soon(functools.partial(
                    play_game, GameOrder.checked("jungle", chatty("alice", f"alice-{game_id}"),
                                                 chatty("bob", f"bob-{game_id}"), tc=tc,
                                                 id=game_id), FreshBots(tmp_path)))
    for bot in ("alice", "bob"):
        for game_id in ("g1", "g2"):
            text = (tmp_path / bot / f"{game_id}.stderr.log").read_text()
            assert text.splitlines() == [f"hello from {bot}-{game_id}"]


async def test_silent_bot_leaves_no_log_file(tmp_path: Path) -> None:
    silent = BotSpec(name="quiet", cmd=[sys.executable, RANDOM_BOT])
    with trio.fail_after(60):
        await play_game(GameOrder.checked("dobutsu", silent, chatty("loud", "loud"),
                                          tc=TimeControl.parse("60+1"), id="r1/g 1"),
                        FreshBots(tmp_path))
    assert not list(tmp_path.glob("quiet/*"))
    assert (tmp_path / "loud" / "r1_g_1.stderr.log").read_text() == "hello from loud\n"


# A random bot that writes ``sys.argv[1]`` MiB to stderr before it starts, in one go.
FLOODER = (
    "import runpy, sys; n = int(sys.argv[1]); sys.stderr.write(('e' * 1023 + '\\n') * 1024 * n);"
    " sys.stderr.flush(); sys.argv = [sys.argv[0]]; "
    f"runpy.run_path({RANDOM_BOT!r}, run_name='__main__')"
)


def flooder(name: str, mib: int) -> BotSpec:
    return BotSpec(name=name, cmd=[sys.executable, "-c", FLOODER, str(mib)],
                   cwd=os.path.dirname(RANDOM_BOT))


async def test_the_stderr_log_is_capped_and_says_what_it_dropped(tmp_path: Path) -> None:
    from protocol.bounds import MAX_STDERR_LOG_BYTES

    with trio.fail_after(60):
        record = await play_game(GameOrder.checked("dobutsu", flooder("loud", 8),
                                                   chatty("quiet", "quiet"),
                                                   tc=TimeControl.parse("60+1"), id="g1"),
                                 FreshBots(tmp_path))
    assert record.termination.value in ("normal", "adjudication"), record.reason
    log = (tmp_path / "loud" / "g1.stderr.log").read_bytes()
    assert MAX_STDERR_LOG_BYTES <= len(log) < MAX_STDERR_LOG_BYTES + 200
    assert log.endswith(f"[arena] {(8 << 20) - MAX_STDERR_LOG_BYTES} more bytes of stderr not "
                        f"logged (the log keeps {MAX_STDERR_LOG_BYTES} bytes per process)\n"
                        .encode())


async def test_a_log_that_cannot_be_written_never_counts_against_the_bot(tmp_path: Path) -> None:
    """The disk is full (``/dev/full``: every write fails with ENOSPC): the bot, which writes
    2 MiB of stderr, never sees the failure and plays its game as usual."""
    full = Path("/dev/full")
    if not full.exists():
        import pytest

        pytest.skip("no /dev/full on this machine")
    (tmp_path / "loud").mkdir()
    (tmp_path / "loud" / "g1.stderr.log").symlink_to(full)
    with trio.fail_after(60):
        record = await play_game(GameOrder.checked("dobutsu", flooder("loud", 2),
                                                   flooder("other", 2),
                                                   tc=TimeControl.parse("60+1"), id="g1"),
                                 FreshBots(tmp_path))
    assert record.termination.value in ("normal", "adjudication"), record.reason
    assert (tmp_path / "other" / "g1.stderr.log").stat().st_size > 1 << 20
