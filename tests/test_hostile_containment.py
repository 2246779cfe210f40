"""Hostile bots against the containment, run as root as CI runs them: each attack fails, the
innocent bot never loses, the attacker loses with a clear reason when it breaks a limit, and no
process is left.

Bots run in the default sandbox (``auto``: bubblewrap here) unless a test names another; the
``uid`` containment (no bubblewrap, as root) is tested where it is the one that must hold.
Each hostile bot writes what it tried and got to its stderr log; the tests read it there.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from test_hostile_bots import CAP, FIRST_BOT, GAME, HOSTILE, first_bot, hostile, log_of, tagged

from referee.botspec import BotSpec, Limits
from referee.match import FreshBots, open_bot, play_game, play_on
from referee.order import GameOrder
from referee.process import cgroup, sandbox
from referee.process.botview import hide_from_bots
from referee.process.faults import MachineFault
from referee.record import GameRecord, Termination
from referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")


def reachable_by_any_uid(spec: BotSpec, folder: Path) -> None:
    """Point ``spec`` at the system Python and at a copy of its script in a world-readable
    ``folder``, its working folder: the bot runs under a uid of its own, which cannot enter a
    checkout that lives under a private folder (a clone in ``mktemp -d`` or under /root) or
    the arena's Python."""
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    script = Path(spec.cmd[1])
    for name in ("_base.py", script.name):
        copy = folder / name
        shutil.copy(HOSTILE / name, copy)
        copy.chmod(0o644)
    spec.cmd[0] = str(SYSTEM_PYTHON)
    spec.cmd[1] = str(folder / script.name)
    spec.cwd = str(folder)


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder every uid may enter (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-uid-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def uid_unusable() -> str | None:
    if os.geteuid() != 0:
        return "the uid containment needs root"
    if SYSTEM_PYTHON is None:
        return "no python3 in /usr/bin or /usr/local/bin for a bot under another uid"
    return None


pytestmark = pytest.mark.slow  # each hostile bot plays a real game
needs_bwrap = pytest.mark.needs("bubblewrap")
needs_root_cgroups = pytest.mark.skipif(
    not cgroup.hierarchies(), reason="needs a writable cgroup file system (root on Linux)")


def report(tmp: Path, spec: BotSpec) -> dict[str, str]:
    """The hostile bot's ``name result...`` lines from its stderr log."""
    lines = {}
    for line in log_of(tmp, spec).splitlines():
        name, _, rest = line.partition(" ")
        lines[name] = rest
    return lines


async def play(tmp: Path, spec: BotSpec, *, tc: str = "30+0") -> GameRecord:
    with trio.fail_after(90):
        return await play_game(GameOrder.checked(GAME, spec, first_bot(),
                                                 tc=TimeControl.parse(tc), adjudication=CAP),
                               FreshBots(tmp))


def assert_innocent_did_not_lose(record: GameRecord) -> None:
    assert record.winner != 1 or record.termination in (Termination.NORMAL,
                                                         Termination.ADJUDICATION), record
    assert record.winner in (None, 1), record.reason  # the innocent (p2) never loses


def assert_no_process_left(tag: str, wait: float = 15.0) -> None:
    deadline = time.monotonic() + wait
    while left := tagged(tag):
        if time.monotonic() > deadline:
            for pid in left:
                os.kill(pid, 9)
            raise AssertionError(f"processes left behind: {left}")
        time.sleep(0.05)


# ----- the sandbox holds ---------------------------------------------------------------------
@needs_bwrap
async def test_remount_and_umount_fail_and_no_host_process_is_seen(tmp_path: Path) -> None:
    spec, tag = hostile("escape_mounts.py", sandbox="auto")
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    seen = report(tmp_path, spec)
    uid, _, capeff = seen["uid"].partition(" capeff ")
    assert uid != "0" and capeff == "0000000000000000"  # unprivileged, no capabilities
    for attempt in ("remount-syscall", "remount-command", "write-root", "umount-proc",
                    "umount-command"):
        assert seen[attempt].startswith("refused"), (attempt, seen[attempt])
    pids = [int(p) for p in seen["pids"].split(",")]
    assert max(pids) < 10 and os.getpid() not in pids  # its own PID namespace only
    assert not Path("/escaped.txt").exists()
    assert_no_process_left(tag)


@needs_bwrap
@pytest.mark.parametrize("sandbox", ["auto", "uid"])
async def test_referee_and_opponent_cannot_be_killed_or_fed_moves(
        tmp_path: Path, public_dir: Path, sandbox: str) -> None:
    if sandbox == "uid" and uid_unusable():
        pytest.skip(str(uid_unusable()))
    spec, tag = hostile("attack_others.py", "2", FIRST_BOT.name.replace(".", "?"),
                        sandbox=sandbox)
    if sandbox == "uid":
        reachable_by_any_uid(spec, public_dir / "bot")
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason  # nobody was hurt
    assert record.plies == CAP.max_plies
    seen = report(tmp_path, spec)
    # Its parent is the sandbox's own init (bubblewrap's, or the ``uid`` containment's): a
    # kill from inside is ignored. Either way the referee (this test) is alive.
    opponents = int(seen["opponents"].split()[-1])
    assert opponents == 0  # its own PID namespace: the opponent is not even visible
    assert_no_process_left(tag)


@needs_bwrap
@pytest.mark.parametrize("cwd", [None, "."])
async def test_bot_cannot_see_the_run_directory_config_or_journal(tmp_path: Path,
                                                                  cwd: str | None) -> None:
    """Through ``arena run``. Without ``cwd`` the bot's folder is its script's: the config and
    the run directory are not in its view at all. With the config's folder as its ``cwd``,
    that folder holds the config and the run directory, both covered. Either way its forged
    journal line never lands, and every game is journaled once."""
    out = tmp_path / "out"
    config = tmp_path / "run.toml"
    probe = HOSTILE / "read_run_dir.py"
    if cwd:  # its script in its folder, as a bot's files must be
        for name in ("_base.py", probe.name):
            shutil.copy(HOSTILE / name, tmp_path / name)
        probe = tmp_path / probe.name
    bot_argv = ["{python}", str(probe), "readrun-tag", "2"]
    paths = ":".join(map(str, (config, out / "games.jsonl", out)))  # not in its command: a
    # command that names a path outside the bot's folder is refused
    config.write_text("\n".join([
        f'game = "{GAME}"', 'tc = "5+0"', "games_per_pairing = 2", "[adjudication]",
        "max_plies = 12", "[[bots]]", 'name = "snooper"',
        "cmd = [" + ", ".join(f'"{a}"' for a in bot_argv) + "]",
        f'env = {{ RUN_PATHS = "{paths}" }}',
        *([f'cwd = "{cwd}"'] if cwd else []),
        "[[bots]]", 'name = "first"', f'cmd = ["{{python}}", "{FIRST_BOT}"]', ""]))
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(config), "--output",
                           str(out), "--no-report", "--plain"],
                          capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2 and {r["id"] for r in records} == {
        g["id"] for g in json.loads((out / "schedule.json").read_text())["games"]}
    assert all("forged" not in (r["p1"], r["p2"]) for r in records)
    logs = list((out / "logs").rglob("*.stderr.log"))
    text = "\n".join(p.read_text() for p in logs if "snooper" in str(p))
    assert "read-config refused" in text and "append-journal refused" in text
    if cwd:
        assert "list-run-dir ok []" in text  # an empty folder in place of the run directory
    else:
        assert "list-run-dir refused FileNotFoundError" in text  # not there at all
    assert "arena: limits:" in done.stderr  # the one-line note on which limits apply
    assert_no_process_left("readrun-tag")


# ----- limits that add up ---------------------------------------------------------------------
@needs_bwrap
async def test_tmpfs_fill_is_capped(tmp_path: Path) -> None:
    spec, tag = hostile("tmpfs_fill.py", sandbox="auto", limits=Limits(tmp_mb=16))
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    log = log_of(tmp_path, spec)
    for folder in ("/tmp", "/dev/shm"):
        line = log.split(f"fill {folder} ")[1].splitlines()[0]
        mib = int(line.split()[0])
        assert mib <= 16 and "OSError" in line, line  # ENOSPC at the cap
    assert_no_process_left(tag)


@needs_bwrap
@needs_root_cgroups
async def test_tmpfs_counts_in_the_bots_memory(tmp_path: Path) -> None:
    """A tmpfs larger than the memory limit: what the bot writes there is memory, so the
    cgroup stops it at its memory limit, and it loses saying why."""
    spec, tag = hostile("tmpfs_fill.py", sandbox="auto", limits=Limits(memory_mb=96,
                                                                        tmp_mb=1024))
    record = await play(tmp_path, spec)
    assert record.winner == 1 and record.termination == Termination.CRASH, record.reason
    assert "memory limit of 96 MiB" in record.reason
    assert_no_process_left(tag)


@needs_root_cgroups
async def test_memory_spread_over_forked_children_is_summed(tmp_path: Path) -> None:
    """Six children of 100 MB each, under a 300 MiB limit: each would pass a per-process
    limit; the cgroup sums them, so some are killed and the total never passes 300 MiB."""
    spec, tag = hostile("fork_memory.py", sandbox="auto", limits=Limits(memory_mb=300))
    with trio.fail_after(90):
        bad = await open_bot(spec, log_dir=tmp_path)
        good = await open_bot(first_bot(), log_dir=tmp_path)
        try:
            record = await play_on(GameOrder.checked(GAME, bad.spec, good.spec, adjudication=CAP,
                                                     tc=TimeControl.parse("30+0")), (bad, good))
            group = bad.channel.process.cgroup  # type: ignore[attr-defined]
            assert group is not None
            peak = group.setting("memory", "memory.max_usage_in_bytes", "memory.peak")
            kills = group.oom_kills()
        finally:
            await bad.aclose()
            await good.aclose()
    assert record.winner in (None, 1), record.reason
    ends = report(tmp_path, spec)["children"].split()[0].split(",")
    assert "signal9" in ends and kills >= 1, (ends, kills)
    if peak is not None:
        assert int(peak) <= 300 << 20
    assert_no_process_left(tag)


@needs_root_cgroups
@pytest.mark.parametrize("sandbox", ["auto", "uid"])
async def test_fork_bomb_is_held_by_the_process_limit(tmp_path: Path, public_dir: Path,
                                                      sandbox: str) -> None:
    if sandbox == "uid" and uid_unusable():
        pytest.skip(str(uid_unusable()))
    spec, tag = hostile("fork_bomb.py", sandbox=sandbox, limits=Limits(processes=24))
    if sandbox == "uid":
        reachable_by_any_uid(spec, public_dir / "bot")
    record = await play(tmp_path, spec, tc="20+0")
    assert_innocent_did_not_lose(record)
    forked = report(tmp_path, spec)["forked"].split()
    assert int(forked[0]) < 24 and forked[2] == "BlockingIOError", forked  # EAGAIN at the cap
    assert_no_process_left(tag)


# ----- a large bot folder --------------------------------------------------------------------
@needs_bwrap
async def test_bot_folder_of_40000_entries_starts_and_keeps_records_small(
        tmp_path: Path) -> None:
    folder = tmp_path / "bigbot"
    folder.mkdir()
    entries = os.open(folder, os.O_RDONLY)
    try:  # relative to the folder's descriptor: a third of the time of 40,000 full paths
        for i in range(40_000):
            os.close(os.open(f"weights-{i:05d}.bin", os.O_CREAT | os.O_WRONLY, 0o644,
                             dir_fd=entries))
    finally:
        os.close(entries)
    for name in ("_base.py", "ugiok_twice.py"):
        shutil.copy(HOSTILE / name, folder / name)
    hide_from_bots(tmp_path / "logs")
    spec = BotSpec(name="bigbot", cmd=[sys.executable, "ugiok_twice.py", "bigbot-tag"],
                   cwd=str(folder))
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    assert len(record.reason) < 1000
    assert_no_process_left("bigbot-tag")


async def test_start_error_names_the_program_without_its_arguments(tmp_path: Path) -> None:
    huge = [f"arg-{i:06d}" for i in range(100_000)]
    spec = BotSpec(name="ghost", cmd=[str(tmp_path / "missing"), *huge])
    record = await play(tmp_path, spec)
    assert record.termination == Termination.CRASH and record.winner == 1
    assert "cannot start bot 'ghost'" in record.reason and len(record.reason) < 1000


async def test_a_bwrap_that_cannot_run_is_the_machines_fault_not_the_bots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed but refused by the machine (user namespaces disabled, say): with ``bwrap``
    required no game is scored (a machine fault, replayed later); ``auto`` runs the bot
    without the sandbox, saying so, and the game is played."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: str(fake))
    monkeypatch.setattr(sandbox, "bwrap_problem", functools.cache(
        sandbox.bwrap_problem.__wrapped__))
    spec, tag = hostile("ugiok_twice.py", sandbox="bwrap")
    with pytest.raises(MachineFault, match="No permissions"):
        await play(tmp_path, spec)
    spec, tag = hostile("ugiok_twice.py", sandbox="auto")
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    assert_no_process_left(tag)


@needs_bwrap
def test_sandboxed_bots_die_with_a_sigkilled_runner(tmp_path: Path) -> None:
    """The runner gets SIGKILL mid-game (no cleanup runs): every sandboxed bot, and what it
    started, dies with it (the death signal, bwrap's --die-with-parent, the PID namespace)."""
    tag = "diewith-" + os.urandom(4).hex()
    config = tmp_path / "run.toml"
    fork = ["{python}", str(HOSTILE / "fork_child.py"), tag, "0"]  # a sleeping child at once
    hang = ["{python}", str(HOSTILE / "hang_on_go.py"), tag, "0"]
    config.write_text("\n".join([
        f'game = "{GAME}"', 'tc = "60+0"', "concurrency = 1", "[[bots]]", 'name = "fork"',
        "cmd = [" + ", ".join(f'"{a}"' for a in fork) + "]", "[[bots]]", 'name = "hang"',
        "cmd = [" + ", ".join(f'"{a}"' for a in hang) + "]", ""]))
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(config), "--output",
                             str(tmp_path / "out"), "--no-report", "--plain"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not any("child" in log.read_text()
                      for log in (tmp_path / "out" / "logs").rglob("*.stderr.log")):
            assert time.monotonic() < deadline, f"the fork bot did not fork: {tagged(tag)}"
            assert proc.poll() is None, "the run ended before its kill"
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait()
    assert_no_process_left(tag)
