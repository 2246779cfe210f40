"""A referee process of ``arena run --referees N``: plays the batches its runner sends, with
bots of its own, and sends each game back as it ends (:mod:`arena.run.refwire`).

Started by :mod:`arena.run.refpool` as ``python -c ... main()`` with four arguments: the
runner's pid, the run directory's ``logs`` and ``transcripts`` folders, and its share of the
run's thinking slots (:mod:`referee.thinkslots`; 0: no limit), which all its games share. It
reads messages on its stdin and writes them on its stdout; both are moved to other
descriptors first, so that nothing else printed (a warning, a traceback) can corrupt the
stream: its stdout then goes to its stderr, which is the runner's.

Each game is played as a local run plays it: ``referee.match.play_game`` with a
:class:`~arena.bots.pool.BotPool` that keeps the bots between games, the same containment,
the same retries of a game the machine kept from starting
(:func:`arena.run.retry.retry_machine_faults`); the bots' stderr logs and the transcripts go
straight into the run directory (their names hold the game's id: no two processes write one
file). Batches run at once in one trio loop, each playing its games in turn.

It dies with its runner. The kernel kills it when the runner does (``PR_SET_PDEATHSIG``,
then its bots with it: theirs is set too); and when its stdin closes (the run is over, or
aborted) it cancels its games, ends its bots and exits. A Ctrl-C at the terminal does not
reach it (it has its own process group): the runner decides what happens to the games.
"""

from __future__ import annotations

import ctypes
import math
import os
import signal
import sys
from pathlib import Path
from typing import Final

import trio

from arena.bots.pool import BotPool
from arena.cluster.movestream import MoveStream
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
from arena.run.retry import START_ATTEMPTS, retry_machine_faults
from referee.order import GameOrder
from referee.process.faults import MachineFault
from referee.process.sandbox import keep_warnings_quiet, warnings_given
from referee.record import Termination
from referee.thinkslots import ThinkSlots

PR_SET_PDEATHSIG: Final = 1
READ_BYTES: Final = 1 << 16


def die_with_parent(parent: int) -> None:
    """Be killed when ``parent`` (the runner, whose main thread started this process) dies;
    exit now if it is already gone (it died before the request was made)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os._exit(0)


class _Referee:
    """The batches of one referee process, and what it sends back."""

    def __init__(self, pool: BotPool, transcripts: Path,
                 send: trio.MemorySendChannel[bytes], slots: ThinkSlots | None = None) -> None:
        self.pool = pool
        self.transcripts = transcripts
        self.slots = slots
        self._send = send
        self.stopping = False
        self._noted = 0

    def tell(self, message: FromReferee) -> None:
        self._send.send_nowait(frame(message))

    async def play_batch(self, play: Play) -> None:
        try:
            for order in play.orders:
                if self.stopping or not await self._play(play.batch, order):
                    break
        finally:
            self._notes()
            self.tell(End(play.batch))

    async def _play(self, batch: str, order: GameOrder) -> bool:
        """Play one game and send what became of it; False ends the batch."""
        from referee.match import play_game

        moves = MoveStream(lambda: self.tell(Started(batch, order.id)),
                           lambda found: self.tell(Moves(batch, order.id, found)))

        def retrying(fault: MachineFault, attempt: int, wait: float) -> None:
            self.tell(Note(f"{order.id}: not the bots' fault, retrying in {wait:g} s "
                           f"(try {attempt + 1} of {START_ATTEMPTS}): {fault}"))

        try:
            record = await retry_machine_faults(lambda: play_game(
                order, self.pool, on_move=moves.add, transcript_dir=self.transcripts,
                slots=self.slots,
            ), retrying)
        except MachineFault as fault:
            self.tell(Fault(batch, order.id, str(fault)))
            return False
        except Exception as exc:  # the game's own (a bad opening) or a referee bug
            self.tell(Failed(batch, order.id, f"{type(exc).__name__}: {exc}"))
            return True
        finally:
            self._notes()
        if record.termination == Termination.INTERRUPT or record.result == "*":
            return False  # cancelled: no result, played again if the run goes on
        self.tell(Done(batch, record))
        return True

    def _notes(self) -> None:
        """This process's once-only warnings not sent yet."""
        given = warnings_given()
        for text in given[self._noted:]:
            self.tell(Note(text))
        self._noted = len(given)


async def serve(wire_in: int, wire_out: int, logs: Path, transcripts: Path,
                thinking: int = 0) -> None:
    """Play what the runner sends on ``wire_in`` until it closes, at most ``thinking`` bots
    thinking on a clock at once (0: no limit); answer on ``wire_out``."""
    send, receive = trio.open_memory_channel[bytes](math.inf)
    pool = BotPool(logs)
    referee = _Referee(pool, transcripts, send, ThinkSlots(thinking) if thinking > 0 else None)
    frames = Frames(ToReferee)  # type: ignore[arg-type]  # a union is a type to msgspec
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_write, receive, wire_out, nursery.cancel_scope)
            async with trio.lowlevel.FdStream(wire_in) as stream:
                while data := await stream.receive_some(READ_BYTES):
                    try:
                        messages = frames.feed(data)
                    except BadFrame as exc:  # not our runner's: play nothing more
                        print(f"arena: referee process {os.getpid()}: {exc}", file=sys.stderr,
                              flush=True)
                        break
                    for message in messages:
                        if isinstance(message, Play):
                            nursery.start_soon(referee.play_batch, message)
                        elif isinstance(message, Stop):
                            referee.stopping = True
            nursery.cancel_scope.cancel()  # the runner is done, or gone: so are the games
    finally:
        await pool.aclose()  # shielded: every bot is ended


async def _write(receive: trio.MemoryReceiveChannel[bytes], fd: int,
                 scope: trio.CancelScope) -> None:
    """Send the messages in order; a runner that stopped reading ends the process's games."""
    try:
        async with trio.lowlevel.FdStream(fd) as stream:
            async for data in receive:
                await stream.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        scope.cancel()


def main() -> None:
    """``python -c 'from arena.run.refproc import main; main()' RUNNER_PID LOGS TRANSCRIPTS
    THINKING``"""
    parent, logs, transcripts = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    thinking = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    die_with_parent(parent)
    wire_in, wire_out = os.dup(0), os.dup(1)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)
    os.set_inheritable(wire_in, False)
    os.set_inheritable(wire_out, False)
    keep_warnings_quiet()  # said by the runner, once for every referee process
    trio.run(serve, wire_in, wire_out, logs, transcripts, thinking)
