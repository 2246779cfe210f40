"""The referee's memory stays bounded whatever a bot prints: 100 MB floods of one endless line,
of overlong lines and of lines just under the cap leave its RSS within a few tens of MB.

RSS is sampled from /proc/self/status while the lines are read (the test process is the
referee here), so a buffer that grew and shrank again would still be seen.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from protocol.lines import MAX_LINE_BYTES, BadLine
from referee.botspec import BotSpec
from referee.process.botprocess import BotExited, BotProcess

pytestmark = pytest.mark.slow  # 100 MB floods and descriptor counts over many games

HOSTILE = Path(__file__).resolve().parent / "hostile"
FLOOD_BYTES = 100 << 20
GROWTH_LIMIT_MB = 40


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def code_bot(code: str) -> BotSpec:
    return BotSpec(name="flood", cmd=[sys.executable, "-c", code])


FLOODS = {
    # name: (spec, what to send first)
    "one endless line": (
        BotSpec(name="flood", cmd=[sys.executable, str(HOSTILE / "flood_no_newline.py"),
                                   "memory-test", "0"]),
        "ugi\nlegal a1a2\ngo",
    ),
    "overlong lines": (
        code_bot("import sys\nline = b'y' * (2 << 20) + b'\\n'\n"
                 f"for _ in range({FLOOD_BYTES // (2 << 20)}): sys.stdout.buffer.write(line)\n"),
        "",
    ),
    "lines just under the cap": (
        code_bot("import sys\nline = b'info string ' + b'z' * "
                 f"({MAX_LINE_BYTES} - 20) + b'\\n'\n"
                 f"for _ in range({FLOOD_BYTES // MAX_LINE_BYTES}):\n"
                 "    sys.stdout.buffer.write(line)\n"),
        "",
    ),
}


@pytest.mark.parametrize("flood", sorted(FLOODS))
async def test_flood_leaves_referee_memory_bounded(flood: str) -> None:
    spec, first = FLOODS[flood]
    before = peak = rss_mb()
    lines = bad = 0
    with trio.fail_after(60):
        bot = await BotProcess.start(spec)
        try:
            if first:
                await bot.send(first)
            while True:
                try:
                    line = await bot.readline()
                except BotExited:
                    break
                lines += 1
                bad += isinstance(line, BadLine)
                peak = max(peak, rss_mb())
        finally:
            await bot.aclose()
    print(f"{flood}: {lines} lines, {bot.dropped_bytes >> 20} MiB dropped, "
          f"RSS {before:.0f} -> peak {peak:.0f} MB")
    assert peak - before < GROWTH_LIMIT_MB, f"RSS grew {peak - before:.0f} MB on {flood}"
    if flood == "lines just under the cap":
        assert bad == 0 and lines == FLOOD_BYTES // MAX_LINE_BYTES
    else:
        assert bad >= 1 and bot.dropped_bytes >= FLOOD_BYTES * 0.9
    assert max(len(entry) for entry in bot.transcript) < 400


async def test_no_file_descriptor_leaks_whatever_way_bots_end(tmp_path: Path) -> None:
    """Pipes, pidfds and stderr logs are all closed, also for bots that exited by themselves."""
    from referee.match import FreshBots, play_game
    from referee.order import GameOrder
    from referee.timecontrol import TimeControl

    crash = BotSpec(name="crash", cmd=[sys.executable, str(HOSTILE / "crash_midgame.py"), "fd"])
    early = BotSpec(name="early", cmd=[str(HOSTILE / "crash_at_start.sh"), "fd"])
    good = BotSpec(name="good", cmd=[sys.executable, str(HOSTILE / "ugiok_twice.py"), "fd"])
    pairs = [(crash, good), (early, good), (good, good), (early, crash)]

    async def round_of_games() -> None:
        for p1, p2 in pairs:
            await play_game(GameOrder.checked("jungle", p1, p2, tc=TimeControl.parse("2+0")),
                            FreshBots(tmp_path))

    with trio.fail_after(60):
        await round_of_games()  # warm-up: trio's own descriptors, imports
        before = len(list(Path("/proc/self/fd").iterdir()))
        for _ in range(3):
            await round_of_games()
    assert len(list(Path("/proc/self/fd").iterdir())) == before
