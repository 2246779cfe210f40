"""The reader of a bot's threads' CPU and run-queue times (referee/process/schedstat.py), on
real processes: a child that spins, its threads listed from /proc and from its cgroup (as
root, as CI runs), numbers that move, a thread that ended between two samples left out; and
the formula and the refusals (too many threads, an unreadable file) on fixed numbers. What the
referee does with the credit is tested on scripted bots in tests/test_cpu_wait.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import msgspec
import pytest
import trio

from referee.botspec import BotSpec
from referee.process import sandbox, schedstat
from referee.process.botprocess import BotProcess
from referee.process.proctree import process_threads
from referee.process.schedstat import (
    Sample,
    Unreadable,
    WaitMeter,
    cgroup_threads,
    credit_ms,
    referee_delay,
)
from referee.record import MoveRecord

SPINNER = """
import sys, threading
stop = threading.Event()
def spin():
    while not stop.is_set():
        pass
worker = threading.Thread(target=spin, daemon=True)
worker.start()
brief = threading.Thread(target=sys.stdin.readline)
brief.start()
print(threading.get_native_id(), worker.native_id, brief.native_id, flush=True)
brief.join()
print("gone", flush=True)
sys.stdin.readline()
"""
"""Three threads: the main one (idle), one that spins, one that ends at the first line read;
prints their ids, then ``gone`` once the third has ended."""

needs_schedstat = pytest.mark.skipif(not schedstat.available(), reason="no schedstat here")


def spinner() -> tuple[subprocess.Popen[str], list[int]]:
    child = subprocess.Popen([sys.executable, "-c", SPINNER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    return child, [int(tid) for tid in child.stdout.readline().split()]


def delta(before: Sample, after: Sample, tid: int) -> tuple[float, float]:
    """(ms on a CPU, ms waiting for one) of ``tid`` between the samples."""
    (cpu0, wait0), (cpu1, wait1) = before.threads[tid], after.threads[tid]
    return (cpu1 - cpu0) / 1e6, (wait1 - wait0) / 1e6


@needs_schedstat
def test_a_spinning_thread_s_time_moves_and_an_ended_thread_is_left_out() -> None:
    child, (main, worker, brief) = spinner()
    try:
        listed = process_threads(child.pid, schedstat.MAX_THREADS)
        assert listed is not None and {main, worker, brief} <= set(listed)
        meter = WaitMeter(lambda: listed)
        before = meter.sample()
        began = time.monotonic()
        time.sleep(0.3)
        after = meter.sample()
        wall_ms = (time.monotonic() - began) * 1000
        assert before is not None and after is not None
        cpu, waited = delta(before, after, worker)
        # A spinning thread is always runnable: it ran or it waited, the whole time.
        assert cpu > 10 and cpu + waited == pytest.approx(wall_ms, rel=0.25)
        assert delta(before, after, main)[0] < 5  # the main thread sleeps
        # The credit is the bot's wait plus the referee's own (this test's thread stands in
        # for the referee, and on a busy machine it waits for a CPU too), never more.
        referee_waited = (after.referee_ns - before.referee_ns) / 1e6
        assert credit_ms(before, after, wall_ms) <= waited + referee_waited + 1e-6

        assert child.stdin is not None and child.stdout is not None
        child.stdin.write("end the brief thread\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "gone"
        deadline = time.monotonic() + 5
        while os.path.exists(f"/proc/{child.pid}/task/{brief}") and time.monotonic() < deadline:
            time.sleep(0.01)
        later = meter.sample()  # the list still names the thread that ended
        assert later is not None and brief not in later.threads and worker in later.threads
        assert brief not in (process_threads(child.pid, 64) or [])
        credit_ms(after, later, 1.0)  # a thread of ``after`` missing from ``later``: skipped
    finally:
        child.kill()
        child.wait()


@needs_schedstat
def test_more_threads_than_the_cap_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    child, _ = spinner()
    try:
        assert process_threads(child.pid, limit=2) is None
        assert process_threads(child.pid, limit=3) is not None
    finally:
        child.kill()
        child.wait()
    read: list[int] = []
    meter = WaitMeter(lambda: list(range(1, schedstat.MAX_THREADS + 2)),
                      read=lambda tid: read.append(tid) or (0, 0))  # type: ignore[func-returns-value]
    assert meter.sample() is None and read == []
    assert process_threads(2**22 + 1, 64) is None  # no such process


@needs_schedstat
@pytest.mark.skipif(os.geteuid() != 0, reason="the arena as root, as CI runs it")
async def test_a_bot_s_threads_are_read_from_its_cgroup() -> None:
    spec = BotSpec(name="spinner", cmd=[sys.executable, "-c", SPINNER], sandbox="none")
    with trio.fail_after(30):
        bot = await BotProcess.start(spec)
        try:
            assert bot.process.cgroup is not None
            line = await bot.readline()
            assert isinstance(line, str)
            main, worker, brief = (int(tid) for tid in line.split())
            assert set(bot.process.cgroup.threads(schedstat.MAX_THREADS) or []) >= {
                main, worker, brief}
            assert bot.process.cgroup.threads(2) is None
            assert bot.process.cgroup.thread_count() == 3
            assert cgroup_threads(bot.process.cgroup, bot.pid, limit=2) is None
            before = bot.wait_meter.sample()
            await trio.sleep(0.2)
            after = bot.wait_meter.sample()
            assert before is not None and after is not None
            cpu, waited = delta(before, after, worker)
            assert cpu > 10 and cpu + waited > 100
        finally:
            await bot.aclose()


@needs_schedstat
@pytest.mark.skipif(os.geteuid() != 0, reason="the arena as root, as CI runs it")
async def test_the_threads_of_a_bot_s_child_process_are_its_own_too() -> None:
    # The shell forks the spinner (a command follows it) and waits: two processes.
    spec = BotSpec(name="parent", cmd=["/bin/sh", "-c", f"{sys.executable} -c '{SPINNER}'; :"],
                   sandbox="none")
    with trio.fail_after(30):
        bot = await BotProcess.start(spec)
        try:
            group = bot.process.cgroup
            assert group is not None
            line = await bot.readline()
            assert isinstance(line, str)
            spinner_threads = {int(tid) for tid in line.split()}
            listed = cgroup_threads(group, bot.pid)
            assert listed is not None and set(listed) == spinner_threads | {bot.pid}
            sample = bot.wait_meter.sample()
            assert sample is not None and set(sample.threads) == set(listed)
        finally:
            await bot.aclose()


def test_the_credit_is_the_longest_wait_less_what_the_bot_kept_busy() -> None:
    ms = 1_000_000
    before = Sample({1: (0, 0), 2: (5 * ms, 5 * ms)})
    # Thread 1 waited 30 ms and ran 10; thread 2 waited 20 and ran 5; thread 3 is new.
    after = Sample({1: (10 * ms, 30 * ms), 2: (10 * ms, 25 * ms), 3: (2 * ms, 35 * ms)})
    assert credit_ms(before, after, 50.0) == pytest.approx(33.0)  # min(35, 50 - 17)
    assert credit_ms(before, after, 100.0) == pytest.approx(35.0)
    assert credit_ms(before, after, 10.0) == 0.0  # 17 ms of CPU in 10 ms: its own cores
    assert credit_ms(None, after, 50.0) == credit_ms(before, None, 50.0) == 0.0
    # Its own cgroup's CPU quota held it back 20 ms of those 35: not the machine's doing.
    throttled = Sample(after.threads, throttled_ns=20 * ms)
    assert credit_ms(before, throttled, 100.0) == pytest.approx(15.0)
    # The referee waited 30 ms for a core: it counts as far as no thread of the bot accounts
    # for the wall time (the busiest, thread 3, ran or waited 37 ms of 100).
    late = Sample(after.threads, referee_ns=30 * ms)
    assert credit_ms(before, late, 100.0) == pytest.approx(35.0 + 30.0)
    assert credit_ms(before, late, 60.0) == pytest.approx(60.0 - 17.0)  # wall - C binds
    # One thread, 20 ms running and 5 waiting, read at 35 ms: 10 ms it does not account for.
    one = (Sample({1: (0, 0)}), Sample({1: (20 * ms, 5 * ms)}, referee_ns=30 * ms))
    assert credit_ms(*one, 35.0) == pytest.approx(5.0 + 10.0)
    one = (one[0], Sample(one[1].threads, referee_ns=4 * ms))
    assert credit_ms(*one, 35.0) == pytest.approx(5.0 + 4.0)


def test_an_unreadable_schedstat_means_no_credit_and_one_warning(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_warned", {})  # the process's own remembers every text
    monkeypatch.setattr(sandbox, "_quiet", False)

    def refuse(tid: int) -> tuple[int, int]:
        raise Unreadable("Permission denied")

    meter = WaitMeter(lambda: [1, 2], read=refuse)
    assert meter.sample() is None and WaitMeter(lambda: [3], read=refuse).sample() is None
    warned = capsys.readouterr().err
    assert warned.count("cannot read the bots' /proc/<tid>/schedstat") == 1, warned
    assert "Permission denied" in warned

    monkeypatch.setattr(schedstat, "available", lambda: False)
    assert WaitMeter(lambda: [1], read=lambda tid: (1, 1)).sample() is None
    assert "the kernel keeps none" in capsys.readouterr().err


def test_a_move_s_credit_is_kept_and_old_journals_still_read() -> None:
    move = MoveRecord(move="b2b3", side=0, elapsed_ms=61.0, waited_ms=45.0)
    assert msgspec.json.decode(msgspec.json.encode(move), type=MoveRecord) == move
    old = b'{"move":"b2b3","side":0,"elapsed_ms":61.0}'
    assert msgspec.json.decode(old, type=MoveRecord).waited_ms == 0.0
    assert b"waited_ms" not in msgspec.json.encode(MoveRecord(move="a", side=0, elapsed_ms=1))


@needs_schedstat
def test_the_referee_reads_its_own_thread_s_wait() -> None:
    with open("/proc/thread-self/schedstat", "rb") as own:
        first = int(own.read().split()[1])
    assert referee_delay() >= first > 0  # a pytest process has waited for a core by now
