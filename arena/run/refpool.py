"""The referee processes of a local run (``--referees N``): started, fed with batches, watched,
replaced when one dies, ended with the run.

:class:`RefereePool` is a :class:`~arena.cluster.batching.GameExecutor`: the runner's
:class:`~arena.cluster.batching.ClusterFeed` hands it the cluster's batches (games of one
pairing) and it sends each to the process with the fewest batches running, as a
:class:`~arena.run.refwire.Play` on that process's stdin; the games come back one by one on its
stdout (:mod:`arena.run.refproc`), and the runner journals them as its own. Each process runs
up to ``games_each`` batches at once, so the run plays ``count * games_each`` games at once.

Why not ``concurrent.futures.ProcessPoolExecutor``: its worker runs one call at a time and
returns when the call returns, where a referee plays several games at once and every game must
come back as it ends (the journal, the live files); and one worker killed breaks the whole pool
(every running call fails, the other workers are terminated), where it must cost only the games
that process was playing. Why not the local Dask cluster that this replaces: 3 to 19 s to start
on a loaded 2-core machine, against tens of milliseconds for N interpreters here.

A process that dies (killed, crashed) costs the game each of its batches was playing: the game
is named (``referee process P lost (...): game G replayed``) and every game of its batches that
had not come back is sent again to another process; a record that comes twice is kept once. A
new process takes the dead one's place, at most :data:`MAX_LOSSES` (plus two per process) times
in a run: beyond that the run stops with a message (the games not played are played on resume).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import trio

import arena
from arena.cluster.batching import BatchEvents
from arena.run.referees import Referees
from arena.run.refwire import (
    BadFrame,
    Done,
    End,
    Failed,
    Fault,
    Frames,
    FromReferee,
    Moves,
    Note,
    Play,
    Started,
    Stop,
    ToReferee,
    frame,
)
from arena.rundir.layout import RunDir
from referee.order import GameOrder
from referee.process.faults import MachineFault

MAX_LOSSES: Final = 8
"""Referee processes a run may lose (and replace), plus two per process, before it stops."""
READ_BYTES: Final = 1 << 16
CLOSE_TIMEOUT_S: Final = 10.0
"""How long a referee process may take to end its bots and exit once its stdin closes."""
PROJECT_ROOT: Final = str(Path(arena.__file__).resolve().parents[1])
_MAIN: Final = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
                "from arena.run.refproc import main; main()")


@dataclass(frozen=True)
class _Lost:
    """The process running a batch is gone (why, for the message)."""

    text: str


@dataclass
class _Batch:
    send: trio.MemorySendChannel[FromReferee | _Lost]
    running: str | None = None
    """The game whose live file is open (a :class:`Started` came, its end not yet)."""


@dataclass
class _Process:
    """One referee process, as the runner sees it."""

    proc: subprocess.Popen[bytes]
    to_fd: int
    """The runner's end of the process's stdin."""
    from_fd: int
    """The runner's end of the process's stdout."""
    batches: dict[str, _Batch] = field(default_factory=dict)
    outbox: trio.MemorySendChannel[bytes] | None = None
    inbox: trio.MemoryReceiveChannel[bytes] | None = None
    alive: bool = True
    owned: bool = False
    """Its descriptors belong to the tasks that read and write them (they close them)."""

    @property
    def name(self) -> str:
        """What the records of its games name as their ``worker``."""
        return f"referee {self.proc.pid}"

    def post(self, message: ToReferee) -> None:
        assert self.outbox is not None
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            self.outbox.send_nowait(frame(message))


def start_referee(run_dir: RunDir, thinking: int = 0) -> subprocess.Popen[bytes]:
    """Start one referee process (with pipes as its stdin and stdout, in its own process
    group), letting at most ``thinking`` bots think on a clock at once (0: no limit); its
    ends of the pipes are closed here."""
    to_read, to_write = os.pipe()
    from_read, from_write = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", _MAIN, PROJECT_ROOT, str(os.getpid()), str(run_dir.logs),
             str(run_dir.transcripts), str(thinking)],
            stdin=to_read, stdout=from_write, process_group=0)
    except BaseException:
        for fd in (to_write, from_read):
            os.close(fd)
        raise
    finally:
        os.close(to_read)
        os.close(from_write)
    proc.stdin_fd, proc.stdout_fd = to_write, from_read  # type: ignore[attr-defined]
    return proc


def _process(proc: subprocess.Popen[bytes]) -> _Process:
    return _Process(proc, proc.stdin_fd, proc.stdout_fd)  # type: ignore[attr-defined]


class RefereePool:
    """Plays batches of games on this machine's referee processes for a
    :class:`~arena.run.runner.Tournament`."""

    batch_cap: int | None = None

    def __init__(self, referees: Referees, run_dir: RunDir) -> None:
        self.games_each = referees.games_each
        self.thinking = referees.thinking
        self.run_dir = run_dir
        self.max_losses = MAX_LOSSES + 2 * referees.count
        self.losses = 0
        self._processes: list[_Process] = []
        try:
            for _ in range(referees.count):
                self._processes.append(_process(start_referee(run_dir, self.thinking)))
        except BaseException:
            self.close()
            raise
        self._delivered: set[str] = set()
        self._notes: set[str] = set()
        self._serial = 0
        self._stopped = False
        self._token: trio.lowlevel.TrioToken | None = None
        self._changed: Callable[[], None] = lambda: None
        self._nursery: trio.Nursery | None = None
        self._failed: str | None = None
        self._failure = trio.Event()

    @property
    def pids(self) -> list[int]:
        return [p.proc.pid for p in self._processes]

    # ------------------------------------------------------------------ the pool's size
    @property
    def slots(self) -> int:
        """Games at once: ``games_each`` per live process."""
        return self.games_each * sum(p.alive for p in self._processes)

    def attach(self, changed: Callable[[], None]) -> None:
        """Called in trio's thread before the first batch."""
        self._token = trio.lowlevel.current_trio_token()
        self._changed = changed
        for process in self._processes:
            process.outbox, process.inbox = trio.open_memory_channel[bytes](math.inf)

    async def watch(self) -> str:
        """Read every process's messages for the whole run (replacing a process that dies);
        returns why the run must stop (processes keep dying)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            for process in self._processes:
                self._serve(process)
            await self._failure.wait()
            nursery.cancel_scope.cancel()
        return self._failed or "the referee processes are gone"

    def stop(self) -> None:
        """No new games (called in a thread of trio's): each batch ends after its running
        game."""
        self._stopped = True
        if self._token is None:
            return
        try:
            trio.from_thread.run_sync(self._post_stop, trio_token=self._token)
        except trio.RunFinishedError:
            pass
        except RuntimeError:  # called in trio's own thread
            self._post_stop()

    def _post_stop(self) -> None:
        for process in self._processes:
            if process.alive:
                process.post(Stop())

    async def play_batch(self, orders: list[GameOrder], events: BatchEvents) -> None:
        """Play ``orders`` on one process; the games of a process lost meanwhile go to
        another. Raises :class:`MachineFault` when the machine keeps games from starting."""
        remaining = {order.id: order for order in orders}
        while remaining and not self._stopped:
            process = self._pick()
            name = str(self._serial)
            self._serial += 1
            send, receive = trio.open_memory_channel[FromReferee | _Lost](math.inf)
            batch = process.batches[name] = _Batch(send)
            process.post(Play(name, list(remaining.values())))
            try:
                lost = await self._follow(process, batch, receive, remaining, events)
            finally:
                process.batches.pop(name, None)
            if not lost:
                return

    def _pick(self) -> _Process:
        alive = [p for p in self._processes if p.alive]
        if not alive:
            raise MachineFault("no referee process is left")
        return min(alive, key=lambda p: len(p.batches))

    async def _follow(self, process: _Process, batch: _Batch,
                      receive: trio.MemoryReceiveChannel[FromReferee | _Lost],
                      remaining: dict[str, GameOrder], events: BatchEvents) -> bool:
        """Hand a batch's messages to the runner until it ends; True: its process was lost."""
        async for message in receive:
            if isinstance(message, Done):
                record = message.record
                if batch.running == record.id:
                    batch.running = None
                if record.id in self._delivered or record.id not in remaining:
                    continue  # never two records for one game
                self._delivered.add(record.id)
                del remaining[record.id]
                record.worker = process.name
                events.finished(record)
            elif isinstance(message, Moves):
                if message.game == batch.running:
                    events.moved(message.game, message.moves)
            elif isinstance(message, Started):
                if message.game in remaining:
                    batch.running = message.game
                    events.started(remaining[message.game], process.name)
            elif isinstance(message, Failed):
                if batch.running == message.game:
                    batch.running = None
                if remaining.pop(message.game, None) is not None:
                    events.failed(message.game, message.text)
            elif isinstance(message, Fault):
                raise MachineFault(f"game {message.game}: {message.text}")
            elif isinstance(message, _Lost):
                # Played in turn: the game it was playing is the first not back.
                running = batch.running or next(iter(remaining), None)
                if running is not None:
                    events.replayed(running, f"{message.text}: game {running} replayed")
                return True
            elif isinstance(message, End):
                return False
        return False

    # ------------------------------------------------------------------ each process
    def _serve(self, process: _Process) -> None:
        """Start the tasks that write to and read from ``process``."""
        assert self._nursery is not None and process.inbox is not None
        process.owned = True
        self._nursery.start_soon(self._write, process, process.inbox)
        self._nursery.start_soon(self._read, process)

    async def _write(self, process: _Process, inbox: trio.MemoryReceiveChannel[bytes]) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            async with trio.lowlevel.FdStream(process.to_fd) as stream, inbox:
                async for data in inbox:
                    await stream.send_all(data)

    async def _read(self, process: _Process) -> None:
        frames = Frames(FromReferee)  # type: ignore[arg-type]  # a union is a type to msgspec
        why = ""
        try:
            async with trio.lowlevel.FdStream(process.from_fd) as stream:
                while data := await stream.receive_some(READ_BYTES):
                    for message in frames.feed(data):
                        self._route(process, message)  # type: ignore[arg-type]
        except BadFrame as exc:
            why = f"; it sent {exc}"
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            why = f"; its pipe: {exc}"
        await self._lost(process, why)

    def _route(self, process: _Process, message: FromReferee) -> None:
        if isinstance(message, Note):
            if message.text not in self._notes:  # the same line from every process: once
                self._notes.add(message.text)
                print(f"arena: {message.text}", file=sys.stderr, flush=True)
            return
        batch = process.batches.get(message.batch)
        if batch is not None:  # else a batch given up already
            batch.send.send_nowait(message)

    async def _lost(self, process: _Process, why: str) -> None:
        """``process`` stopped talking: it is ended, its batches are told, and another
        process takes its place (unless the run stops, or too many were lost)."""
        process.alive = False
        if process.outbox is not None:
            process.outbox.close()
        with contextlib.suppress(ProcessLookupError):
            process.proc.kill()
        status = await trio.to_thread.run_sync(process.proc.wait)
        how = (f"killed by {signal.Signals(-status).name}" if status < 0
               else f"exit status {status}")
        text = f"referee process {process.proc.pid} lost ({how}{why})"
        for batch in list(process.batches.values()):
            batch.send.send_nowait(_Lost(text))
        self.losses += 1
        if self.losses > self.max_losses:
            self._failed = (f"{self.losses} referee processes were lost in this run, the last "
                            f"one: {text}")
            self._failure.set()
            return
        if self._stopped:
            return
        index = self._processes.index(process)
        fresh = self._processes[index] = _process(start_referee(self.run_dir, self.thinking))
        fresh.outbox, fresh.inbox = trio.open_memory_channel[bytes](math.inf)
        self._serve(fresh)
        self._changed()

    # ------------------------------------------------------------------ the end
    def close(self) -> None:
        """End every process: its stdin closes (it cancels its games, ends its bots and
        exits); one that takes longer than :data:`CLOSE_TIMEOUT_S` is killed."""
        for process in self._processes:
            if not process.owned:
                for fd in (process.to_fd, process.from_fd):
                    with contextlib.suppress(OSError):
                        os.close(fd)
        for process in self._processes:
            try:
                process.proc.wait(timeout=CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.proc.kill()
                process.proc.wait()


@contextlib.contextmanager
def open_referees(referees: Referees, run_dir: RunDir) -> Iterator[RefereePool]:
    """Start ``referees.count`` referee processes for a run in ``run_dir``; every one is
    ended on exit."""
    pool = RefereePool(referees, run_dir)
    try:
        games = "1 game" if referees.games_each == 1 else f"{referees.games_each} games"
        pids = ", ".join(map(str, pool.pids))
        thinking = (f", at most {referees.thinking} thinking on a clock" if referees.thinking
                    else "")
        print(f"arena: referees: {referees.count} processes (pid {pids}), {games} at once "
              f"each{thinking}", flush=True)
        yield pool
    finally:
        pool.close()
