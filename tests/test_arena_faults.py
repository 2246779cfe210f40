"""The arena's own faults are never results: ``arena run`` as a subprocess on a machine that runs
out of file descriptors (a low ``ulimit -n``), of processes (a pids cgroup at its limit: what a
fork bomb leaves, every fork fails with EAGAIN) or of disk (a 2 MB tmpfs as the output
directory). In each: no game is journaled because of the fault, the run either gets through by
retrying or stops with a clear message, no traceback and status 3, nothing is left running, and
a resume on a healthy machine journals each scheduled game exactly once, with no bot scored for
the machine's trouble.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from proc_scan import tagged

from referee.record import GameRecord, Termination, decode_record, encode_record

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).resolve().parent / "hostile"
CHATTER = HOSTILE / "stderr_chatter.py"
RUN_TIMEOUT = 240
EXIT_ARENA_FAULT = 3
IS_ROOT = os.geteuid() == 0

pytestmark = pytest.mark.slow  # whole `arena run`s, each on a machine short of something


def write_config(tmp: Path, tag: str, *, bots: int, concurrency: int, chatter_kb: int = 0,
                 games_per_pairing: int = 2) -> Path:
    lines = ['game = "jungle"', 'tc = "10+0.1"', f"concurrency = {concurrency}",
             f"games_per_pairing = {games_per_pairing}", "[adjudication]", "max_plies = 12", ""]
    for index in range(bots):
        argv = ", ".join(f'"{a}"' for a in ["{python}", str(CHATTER), tag, "0", str(chatter_kb)])
        lines += ["[[bots]]", f'name = "bot{index}"', f"cmd = [{argv}]", ""]
    path = tmp / "faults.toml"
    path.write_text("\n".join(lines))
    return path


def arena_run(config: Path, out: Path,
              preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out),
         "--no-report", "--plain"],
        capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT, preexec_fn=preexec)


def records(out: Path) -> list[GameRecord]:
    return [decode_record(line) for line in (out / "games.jsonl").read_bytes().splitlines()]


def scheduled(out: Path) -> list[str]:
    return [g["id"] for g in json.loads((out / "schedule.json").read_text())["games"]]


def check_stopped_cleanly(done: subprocess.CompletedProcess[str], out: Path, cause: str) -> None:
    """Either the retries got through (status 0) or the run stopped with the arena's status and
    a message naming the cause; never a traceback, never a game scored for the fault."""
    assert "Traceback" not in done.stderr and "ExceptionGroup" not in done.stderr, done.stderr
    assert done.returncode in (0, EXIT_ARENA_FAULT), done.stderr
    if done.returncode == EXIT_ARENA_FAULT:
        assert "arena: error:" in done.stderr and cause in done.stderr, done.stderr
        assert "run the same command again" in done.stderr
    check_innocent(records(out))


def check_innocent(played: list[GameRecord]) -> None:
    for record in played:
        assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION), \
            f"{record.id}: {record.reason}"


def check_resumed(config: Path, out: Path, tag: str) -> None:
    done = arena_run(config, out)
    assert done.returncode == 0, done.stderr
    played = records(out)
    assert Counter(r.id for r in played) == Counter(scheduled(out))
    check_innocent(played)
    assert not tagged(tag), f"left running: {tagged(tag)}"


def test_too_many_open_files_is_never_a_result(tmp_path: Path) -> None:
    """``ulimit -n 40`` at concurrency 12: most games cannot get their pipes at first."""
    tag = f"emfile-{uuid.uuid4().hex[:8]}"
    config = write_config(tmp_path, tag, bots=6, concurrency=12)
    out = tmp_path / "out"

    def low_ulimit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40))

    done = arena_run(config, out, low_ulimit)
    assert "Too many open files" in done.stdout + done.stderr, "the fault did not happen"
    check_stopped_cleanly(done, out, "Too many open files")
    assert not tagged(tag), f"left running: {tagged(tag)}"
    check_resumed(config, out, tag)


@contextlib.contextmanager
def pids_cgroup(limit: str) -> Iterator[Path]:
    """A fresh pids cgroup (v1 or v2) with ``pids.max = limit``; removed afterwards."""
    if not IS_ROOT:
        pytest.skip("needs root to make a pids cgroup")
    unified = Path("/sys/fs/cgroup/cgroup.controllers")
    if unified.exists() and "pids" in unified.read_text().split():
        parent = Path("/sys/fs/cgroup")
    elif Path("/sys/fs/cgroup/pids/cgroup.procs").exists():
        parent = Path("/sys/fs/cgroup/pids")
    else:
        pytest.skip("no pids cgroup controller on this machine")
    group = parent / f"arena-test-{uuid.uuid4().hex[:8]}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(limit)
    except OSError as exc:
        pytest.skip(f"cannot make a pids cgroup: {exc}")
    try:
        yield group
    finally:
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                os.kill(int(pid), 9)
        for _ in range(50):
            try:  # the runner's own cgroups for its bots nest inside: deepest first
                for inner in sorted(group.rglob("*/"), key=lambda p: -len(p.parts)):
                    if inner.is_dir():
                        inner.rmdir()
                group.rmdir()
                break
            except OSError:
                threading.Event().wait(0.1)


def test_no_processes_left_is_never_a_result(tmp_path: Path) -> None:
    """The runner in a pids cgroup with room for itself and its spawner thread only: every
    fork fails with EAGAIN, as after a fork bomb. The run stops with status 3; then the slots
    come back a few seconds into the next run, whose retries get through."""
    tag = f"eagain-{uuid.uuid4().hex[:8]}"
    config = write_config(tmp_path, tag, bots=3, concurrency=2)
    out = tmp_path / "out"
    with pids_cgroup("2") as group:

        def enter() -> None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

        done = arena_run(config, out, enter)
        assert done.returncode == EXIT_ARENA_FAULT, done.stderr
        check_stopped_cleanly(done, out, "Resource temporarily unavailable")
        assert records(out) == []

        # Again, and the slots come back once the run has said it is retrying.
        run = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out),
             "--no-report", "--plain"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, cwd=ROOT, preexec_fn=enter)
        killer = threading.Timer(RUN_TIMEOUT, run.kill)
        killer.start()
        output = []
        try:
            assert run.stdout is not None
            for line in run.stdout:
                output.append(line)
                if "retrying" in line and (group / "pids.max").read_text().strip() != "max":
                    (group / "pids.max").write_text("max")
        finally:
            killer.cancel()
        assert run.wait() == 0, "".join(output)
        assert any("retrying" in line for line in output)
    played = records(out)
    assert Counter(r.id for r in played) == Counter(scheduled(out))
    check_innocent(played)
    assert not tagged(tag), f"left running: {tagged(tag)}"


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    if not IS_ROOT or shutil.which("mount") is None:
        pytest.skip("needs root (and mount) to mount a tmpfs")
    where.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_a_full_disk_stops_the_run_cleanly_and_resume_repairs_it(tmp_path: Path) -> None:
    """The output directory is a 2 MB tmpfs and the bots write 512 kB of stderr per move: the
    logs fill the disk, the bots never notice (the referee writes their logs), and the journal
    append that fails stops the run with a message; after the disk grows, a resume plays the
    rest and every game is journaled once."""
    tag = f"enospc-{uuid.uuid4().hex[:8]}"
    config = write_config(tmp_path, tag, bots=3, concurrency=2, chatter_kb=512)
    with small_tmpfs(tmp_path / "disk", "2m") as disk:
        out = disk / "out"
        done = arena_run(config, out)
        check_stopped_cleanly(done, out, "No space left on device")
        assert done.returncode == EXIT_ARENA_FAULT, "the disk never filled up"
        assert not tagged(tag), f"left running: {tagged(tag)}"
        before = records(out)  # every line is whole: the failed append left nothing behind
        again = arena_run(config, out)  # resumed on a disk still full: the same clean stop
        check_stopped_cleanly(again, out, "No space left on device")
        after = records(out)  # (a game or two may fit where logs of the last run were freed)
        assert again.returncode == EXIT_ARENA_FAULT and after[:len(before)] == before
        assert len({r.id for r in after}) == len(after)
        remount = subprocess.run(["mount", "-o", "remount,size=64m", str(disk)],
                                 capture_output=True, text=True)
        assert remount.returncode == 0, remount.stderr
        check_resumed(config, out, tag)


def test_a_forged_record_stops_the_resume_naming_both_lines(tmp_path: Path) -> None:
    """A bot (or anyone) appends a forged win for a game already played: the resume refuses
    to pick one of the two records, names both lines and says how to fix the journal."""
    tag = f"forged-{uuid.uuid4().hex[:8]}"
    config = write_config(tmp_path, tag, bots=2, concurrency=1)
    out = tmp_path / "out"
    assert arena_run(config, out).returncode == 0
    journal = out / "games.jsonl"
    first = records(out)[0]
    first.result, first.winner, first.reason = "1-0", 0, "forged"
    with journal.open("ab") as f:
        f.write(encode_record(first) + b"\n")
    done = arena_run(config, out)
    assert done.returncode == 2, done.stderr
    assert f"{journal}:3: game {first.id} is already recorded at {journal}:1" in done.stderr
    assert "delete the wrong one" in done.stderr and "Traceback" not in done.stderr


def test_a_fork_bomb_elsewhere_never_costs_the_other_games(tmp_path: Path) -> None:
    """The runner in a pids cgroup of 60 slots; one bot forks until fork fails and holds the
    slots for 3 s. The games started meanwhile get EAGAIN at spawn: they are retried (or the
    run stops with status 3), never scored; the bomb's children die with its game."""
    tag = f"bomb-{uuid.uuid4().hex[:8]}"
    config = write_config(tmp_path, tag, bots=3, concurrency=2)
    bomb = HOSTILE / "fork_bomb_midgame.py"
    config.write_text(config.read_text().replace(str(CHATTER), str(bomb), 1)
                      .replace(f'"{tag}", "0", "0"]', f'"{tag}", "0"]', 1))
    out = tmp_path / "out"
    with pids_cgroup("60") as group:

        def enter() -> None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

        done = arena_run(config, out, enter)
        check_stopped_cleanly(done, out, "Resource temporarily unavailable")
        assert "Resource temporarily unavailable" in done.stdout + done.stderr, \
            "no game was started while the bomb held the slots"
        assert not tagged(tag), f"left running: {tagged(tag)}"
        logs = "".join(p.read_text(errors="replace") for p in (out / "logs").rglob("*.log"))
        assert "fork failed after" in logs, "the bomb never reached the limit"
    check_resumed(config, out, tag)


def test_the_arena_running_out_of_bot_uids_is_its_own_fault() -> None:
    from referee.process import spawn
    from referee.process.faults import MachineFault, machine_fault

    pool = spawn._UidPool()
    taken = [pool.take() for _ in range(1000)]
    with pytest.raises(MachineFault, match="no uid left") as caught:
        pool.take()
    assert machine_fault(caught.value) is caught.value
    for uid in taken:
        pool.release(uid)


@pytest.mark.parametrize(("code", "machine"), [
    (errno.EMFILE, True), (errno.ENFILE, True), (errno.EAGAIN, True), (errno.ENOMEM, True),
    (errno.ENOSPC, True), (errno.ENOENT, False), (errno.EACCES, False), (errno.ENOEXEC, False),
])
def test_start_failures_are_sorted_by_errno(code: int, machine: bool) -> None:
    """A missing or non-executable program is the bot's; running out of something is not."""
    from referee.process.boterrors import BotStartError
    from referee.process.faults import machine_fault

    try:
        try:
            raise OSError(code, os.strerror(code))
        except OSError as exc:
            raise BotStartError(f"cannot start bot 'x': {exc}") from exc
    except BotStartError as error:
        fault = machine_fault(error)
    assert (fault is not None) == machine
    if fault is not None:
        assert os.strerror(code) in str(fault)
