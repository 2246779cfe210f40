"""No bot reaches root: a bot that tries to write every writable-looking file under /proc/sys
and /sys finds every write refused, and from outside (``/proc/PID/status``, read by the test
as root) the bot and its child run as the unprivileged host uid the arena gave it, with no
capabilities, in both containments that the arena gives a bot as root: bubblewrap, and the
``uid`` containment without it.

The bot writes back the value it read, so that nothing on the machine changes even if a
write went through. It runs the arena's own Python (the project's virtualenv, whose
interpreter may lie under a private /root: pyenv), so the covers over private ancestors are
exercised too.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
import trio
from test_hostile_bots import HOSTILE, tagged

from referee.botspec import BotSpec
from referee.process.botprocess import BotProcess

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="the arena as root, as CI runs it")]


CONTAINERS = ("bwrap", "unshare", "timeout")
"""What holds a bot's namespaces: bubblewrap's monitor and init, or the ``uid`` containment's
``unshare`` and its init (coreutils ``timeout`` with no limit)."""


def status(pid: int) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


async def probe_kernel(tmp: Path, sandbox: str) -> tuple[str, list[dict[str, str]], int]:
    """Run the kernel writer until it has tried everything and forked; its report, the
    status of each of its processes that runs its code (bubblewrap's own left out), and the
    uid the arena gave it."""
    tag = f"kernel-{os.urandom(6).hex()}"
    spec = BotSpec(name="kernel", cmd=[sys.executable, str(HOSTILE / "kernel_writer.py"), tag],
                   sandbox=sandbox)  # type: ignore[arg-type]
    log = tmp / "kernel.stderr.log"
    with trio.fail_after(120):
        bot = await BotProcess.start(spec, stderr_path=log)
        try:
            assert bot.process.mode == sandbox
            uid = bot.process.uid
            assert uid is not None and uid != 0
            while "child " not in (log.read_text() if log.exists() else ""):
                assert bot.process.poll() is None, log.read_text()
                await trio.sleep(0.05)
            seen = []
            for pid in tagged(tag):
                try:
                    if os.path.basename(os.readlink(f"/proc/{pid}/exe")) in CONTAINERS:
                        continue  # the sandbox's monitor and init: root, but no bot code
                    seen.append(status(pid))
                except OSError:
                    continue
        finally:
            await bot.aclose()
    deadline = time.monotonic() + 5
    while tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return log.read_text(), seen, uid


def check(report: str, seen: list[dict[str, str]], uid: int) -> None:
    line = next(line for line in report.splitlines() if line.startswith("kernel tried"))
    words = line.split()
    assert int(words[2]) > 50, line  # it did find writable-looking files to try
    assert words[4] == "0", line  # and wrote none of them
    assert len(seen) >= 2, seen  # the bot and its child
    for fields in seen:
        assert fields["Uid"].split() == [str(uid)] * 4, fields["Uid"]
        assert fields["Gid"].split() == [str(uid)] * 4, fields["Gid"]
        assert fields["Groups"] == "", fields["Groups"]
        for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            assert int(fields[cap], 16) == 0, (cap, fields[cap])
        assert fields["NoNewPrivs"] == "1"


@pytest.mark.needs("bubblewrap")
async def test_under_bubblewrap_no_kernel_setting_is_written_and_the_bot_is_no_root(
        tmp_path: Path) -> None:
    check(*await probe_kernel(tmp_path, "bwrap"))


async def test_in_the_uid_containment_no_kernel_setting_is_written_and_the_bot_is_no_root(
        tmp_path: Path) -> None:
    check(*await probe_kernel(tmp_path, "uid"))
