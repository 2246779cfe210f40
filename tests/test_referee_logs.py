"""Bot stderr logs: one file per bot and game, so concurrent games of one bot never mix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from referee.botspec import BotSpec
from referee.match import play_game
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
    return BotSpec(name=name, cmd=[sys.executable, "-c", CHATTY, tag])


async def test_two_games_of_one_bot_at_once_log_to_separate_files(tmp_path: Path) -> None:
    tc = TimeControl.parse("5+0.05")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for game_id in ("g1", "g2"):
                nursery.start_soon(lambda gid=game_id: play_game(
                    "jungle", chatty("alice", f"alice-{gid}"), chatty("bob", f"bob-{gid}"),
                    tc=tc, log_dir=tmp_path, game_id=gid))
    for bot in ("alice", "bob"):
        for game_id in ("g1", "g2"):
            text = (tmp_path / bot / f"{game_id}.stderr.log").read_text()
            assert text.splitlines() == [f"hello from {bot}-{game_id}"]


async def test_silent_bot_leaves_no_log_file(tmp_path: Path) -> None:
    silent = BotSpec(name="quiet", cmd=[sys.executable, RANDOM_BOT])
    with trio.fail_after(60):
        await play_game("dobutsu", silent, chatty("loud", "loud"),
                        tc=TimeControl.parse("5+0.05"), log_dir=tmp_path, game_id="r1/g 1")
    assert not list(tmp_path.glob("quiet/*"))
    assert (tmp_path / "loud" / "r1_g_1.stderr.log").read_text() == "hello from loud\n"
