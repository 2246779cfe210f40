"""How long a bot's threads waited for a CPU during a move, from ``/proc/<tid>/schedstat``.

On a machine busier than its cores (other games, other users, ``python3 -c 'while 1: pass'``
loops) a bot's threads are runnable but not running for much of a short move: the kernel's
scheduler makes them wait in a run queue. That wait is the machine's fault, not the bot's,
and the rules say a fault of the machine is never scored as a game (issue 40). The kernel
counts it per thread: ``/proc/<tid>/schedstat`` holds three numbers, the nanoseconds the
thread ran on a CPU, the nanoseconds it waited in a run queue (``run_delay``) and its
timeslices. The referee samples every thread of the bot just before it writes ``go`` and
again once the move is read (:class:`WaitMeter`), and :func:`credit_ms` turns the two samples
into the time not charged to the bot's clock:

    D = max over the bot's threads of their run-queue wait during the move
        (a thread born during the move counts from 0), less the time the bot's own cgroup
        CPU quota held it back (``limits.cpus``: a wait the bot chose)
    C = the CPU time of all of them during the move
    A = max over the bot's threads of their CPU time plus run-queue wait (its busiest
        thread's time, running or waiting to)
    R = the referee's own thread's run-queue wait during the move
    credit = clamp(min(D + min(R, wall - A), wall - C), 0, wall)

``wall - C`` is what keeps a bot from earning time by making its own threads wait: one that
keeps more threads busy than there are cores (or runs into its quota) uses a core's worth of
CPU or more during the move, and gets no credit.

``min(R, wall - A)`` is the referee's part: a referee waiting for a core reads a move late,
and its clock runs until then. Measured (bench/README.md, 64 games at once on a loaded 2-core
machine), the bots' own waits left one move in a thousand or so over its budget by more than
those waits, and in nearly all of them the referee had waited for a core as long. Its waits
during the move count only as far as the bot's threads do not account for the wall time
(``wall - A``: roughly the time after the bot's answer was written, when none of its threads
runs or waits): a referee that waited while the bot was still thinking cost the bot nothing.

Hostile bots cost the referee little: at most :data:`MAX_THREADS` threads are read per sample
(a bot with more gets no credit, so a thread bomb cannot make the referee read thousands of
files a move); a thread that ended between the two samples is left out; a kernel without
schedstat, or a /proc the referee may not read, means no credit at all and one warning in the
run's output, never a failure.

The bot's threads are its cgroup's (one cgroup per bot where the referee may create them: the
whole tree, children included, in one read), else those of its process tree as far as
``/proc/<pid>/task/<tid>/children`` shows it (kernels built without that file: the bot's own
process only).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from functools import cache
from typing import Final

import msgspec

from referee.process.cgroup import BotCgroup
from referee.process.proctree import read_small
from referee.process.sandbox import warn_once

MAX_THREADS: Final = 64
"""Threads read per sample; a bot with more gets no credit for the move."""
OPEN_FILES: Final = 8
"""Threads per bot whose schedstat stays open between samples (an engine's usual count: its
main thread and a few search threads); more are opened and closed at each sample."""

Times = dict[int, tuple[int, int]]
"""Thread id -> (nanoseconds on a CPU, nanoseconds waited in a run queue)."""

ThreadList = Callable[[], Sequence[int] | None]
"""The bot's thread ids now, or None when there are more than :data:`MAX_THREADS` or they
cannot be listed."""

_UNREADABLE: Final = ("WARNING: cannot read the bots' /proc/<tid>/schedstat ({why}): time a "
                      "bot waits for a CPU is charged to its clock")


class Sample(msgspec.Struct, frozen=True):
    """One reading of a bot's threads."""

    threads: Times
    throttled_ns: int = 0
    """Nanoseconds the bot's cgroup CPU quota held it back in all (0 without a quota)."""
    referee_ns: int = 0
    """The run-queue wait in all of the referee's thread that took the sample (R)."""


class Unreadable(Exception):
    """schedstat exists nowhere, or the referee may not read a bot's."""


@cache
def available() -> bool:
    """Does this kernel keep schedstat (``CONFIG_SCHED_INFO``)? Asked once per process."""
    return os.path.exists("/proc/thread-self/schedstat")


def read_times(tid: int) -> tuple[int, int] | None:
    """(on-CPU ns, run-queue wait ns) of thread ``tid``; None when it has ended. Raises
    :class:`Unreadable` when the file is there but may not be read."""
    try:
        return _times(read_small(f"/proc/{tid}/schedstat"))
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None  # no tid: one warning a run


def _times(text: bytes) -> tuple[int, int] | None:
    fields = text.split()
    if len(fields) < 2:  # a thread caught exiting
        return None
    return int(fields[0]), int(fields[1])


def thread_state(tid: int) -> bytes:
    """The state letter of thread ``tid`` (``R`` runnable, ``S`` sleeping...), from
    ``/proc/<tid>/stat``; ``b""`` when it has ended."""
    try:
        stat = read_small(f"/proc/{tid}/stat", 512)
    except OSError:
        return b""
    return stat.rpartition(b")")[2][1:2]


class WaitMeter:
    """Samples one bot's threads (:meth:`sample`); built once per bot process, closed with it
    (:meth:`close`).

    ``threads`` lists the bot's threads (:func:`cgroup_threads`,
    :func:`~referee.process.proctree.process_threads`);
    ``throttled`` gives its cgroup's quota throttling in ns, None without a quota; ``read``
    reads one thread, ``state`` its state letter and ``own`` the referee's own run-queue wait
    (seams for tests). ``read`` is by default
    :func:`read_times` through files kept open: the schedstat of the first
    :data:`OPEN_FILES` threads is read again with one ``pread``, a seventh of an open, read
    and close."""

    def __init__(self, threads: ThreadList, *, throttled: Callable[[], int | None] | None = None,
                 read: Callable[[int], tuple[int, int] | None] | None = None,
                 state: Callable[[int], bytes] = thread_state,
                 own: Callable[[], int] | None = None) -> None:
        self._threads = threads
        self._throttled = throttled
        self._own = own if own is not None else referee_delay
        self._read = read if read is not None else self._read_kept
        self._state = state
        self._files: dict[int, int] = {}
        """Thread id -> an open file descriptor of its schedstat."""

    def sample(self) -> Sample | None:
        """Every thread's times now; None when there is no credit to be had for this move
        (too many threads, none listed, schedstat unreadable: warned once)."""
        if not available():
            warn_once(_UNREADABLE.format(why="the kernel keeps none"))
            return None
        tids = self._threads()
        if not tids or len(tids) > MAX_THREADS:
            return None
        if self._files:
            self._forget(set(tids))
        times: Times = {}
        try:
            for tid in tids:
                read = self._read(tid)
                if read is not None:
                    times[tid] = read
        except Unreadable as exc:
            warn_once(_UNREADABLE.format(why=exc))
            return None
        throttled = self._throttled() if self._throttled is not None else None
        return Sample(times, throttled or 0, self._own())

    def waiting(self, previous: Sample, now: Sample) -> bool:
        """Is one of the bot's threads waiting for a CPU at ``now``, a wait its schedstat does
        not show yet? The kernel adds a wait to ``run_delay`` only once the thread gets a
        CPU: a thread still in the run queue looks idle. One that is runnable (state ``R``)
        and whose counts have not moved since ``previous`` (a running thread's CPU time moves
        at every scheduler tick) is taken to be waiting. For a late move only: it reads each
        such thread's ``/proc/<tid>/stat``."""
        return any(previous.threads.get(tid) == times and self._state(tid) == b"R"
                   for tid, times in now.threads.items())

    def _read_kept(self, tid: int) -> tuple[int, int] | None:
        fd = self._files.get(tid)
        if fd is None:
            if len(self._files) >= OPEN_FILES:
                return read_times(tid)
            try:
                fd = os.open(f"/proc/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
            except (FileNotFoundError, ProcessLookupError):
                return None
            except OSError as exc:
                raise Unreadable(exc.strerror or str(exc)) from None
            self._files[tid] = fd
        try:
            return _times(os.pread(fd, 4096, 0))  # a seq_file: read at 0, written anew
        except OSError:  # ESRCH: the thread has ended (its id may come back: opened anew)
            self._close(tid)
            return None

    def _forget(self, alive: set[int]) -> None:
        """Close the files of threads no longer listed."""
        for tid in [tid for tid in self._files if tid not in alive]:
            self._close(tid)

    def _close(self, tid: int) -> None:
        fd = self._files.pop(tid, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        """Close every file kept open; the meter may be used again (it opens them anew)."""
        self._forget(set())


def credit_ms(before: Sample | None, after: Sample | None, wall_ms: float) -> float:
    """The part of a move's ``wall_ms`` that the bot spent waiting for a CPU, or the referee
    did after the bot's answer, and that its clock is not charged (the module's formula); 0
    without both samples."""
    if before is None or after is None or wall_ms <= 0:
        return 0.0
    waited_ms, cpu_ms = spent_ms(before, after)
    referee_ms = max(after.referee_ns - before.referee_ns, 0) / 1e6
    referee_ms = min(referee_ms, max(wall_ms - busiest_ms(before, after), 0.0))
    return min(max(min(waited_ms + referee_ms, wall_ms - cpu_ms), 0.0), wall_ms)


def spent_ms(before: Sample, after: Sample) -> tuple[float, float]:
    """(D, C) between two samples: the longest run-queue wait of one thread (less the quota's
    throttling) and the CPU time of all of them, in ms."""
    waited_ns = 0
    cpu_ns = 0
    for tid, (cpu, delay) in after.threads.items():
        start_cpu, start_delay = before.threads.get(tid, (0, 0))
        cpu_ns += max(cpu - start_cpu, 0)
        waited_ns = max(waited_ns, delay - start_delay)
    waited_ns -= max(after.throttled_ns - before.throttled_ns, 0)
    return waited_ns / 1e6, cpu_ns / 1e6


def busiest_ms(before: Sample, after: Sample) -> float:
    """A: the most time one thread spent running or waiting to, between two samples, in ms."""
    busiest = 0
    for tid, (cpu, delay) in after.threads.items():
        start_cpu, start_delay = before.threads.get(tid, (0, 0))
        busiest = max(busiest, cpu - start_cpu + delay - start_delay)
    return busiest / 1e6


_own_files: dict[int, int] = {}
"""Native thread id -> its own schedstat kept open (the referee's trio thread: one)."""


def referee_delay() -> int:
    """The calling thread's run-queue wait so far (ns), 0 when it cannot be read."""
    tid = threading.get_native_id()
    try:
        fd = _own_files.get(tid)
        if fd is None:
            fd = _own_files[tid] = os.open("/proc/thread-self/schedstat",
                                           os.O_RDONLY | os.O_CLOEXEC)
        return int(os.pread(fd, 128, 0).split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def cgroup_threads(group: BotCgroup, pid: int, limit: int = MAX_THREADS) -> list[int] | None:
    """The threads of the bot's cgroup ``group`` whose first process is ``pid``; None when
    there are more than ``limit``.

    The cgroup's own list (v1 ``tasks``) costs the kernel 23 us a read here, a sixth of a
    clocked move's whole cost to the referee; its thread count (``pids.current``) 1.4 us and
    ``pid``'s own threads 7 us. So when the count is that of ``pid``'s threads (an engine
    with no child process: nearly all), those are the list; else the cgroup's list is read."""
    count = group.thread_count()
    if count is not None:
        if count > limit:
            return None
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            tids = []
        if len(tids) == count:
            return [int(tid) for tid in tids]
    return group.threads(limit)


__all__ = ["MAX_THREADS", "Sample", "WaitMeter", "available", "busiest_ms", "cgroup_threads",
           "credit_ms", "read_times", "referee_delay", "spent_ms",
           "thread_state"]
