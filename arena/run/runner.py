"""Playing a tournament's games: resume, concurrency and Ctrl-C (the run directory:
:mod:`arena.rundir`).

Up to ``concurrency`` games run at once under one trio nursery: a producer feeds the games
still missing from the journal into a memory channel and that many workers pull from it. Each
game takes its two bots from a :class:`BotPool` of live processes (``arena.bots.pool``: kept
between games unless a bot faulted or its ``restart`` setting says otherwise), so a bot that
crashes or hangs only loses its own game and gets a fresh process for the next. A finished
game is journaled (written at once, fsync'd within a second: :mod:`arena.rundir.journal`)
before anything else hears of it, and every listener (PGN, progress, report) runs after that,
in a task of its own: the game's worker has gone on to its next game meanwhile. The pool's
idle processes are ended when the run ends, however it ends.

On a cluster (``executor``) the games go out in batches of one pairing
(:mod:`arena.cluster.batching`), as many batches at once as the cluster has threads now (bounded by
``concurrency`` when it is set), and each game comes back on its own when it ends: the journal, the
progress and the SPRT still see one game at a time. Games that finish while the journal is being
written are written together, with one write.

Stopping: the first SIGINT stops feeding new games and lets the running ones finish; a second
SIGINT (or SIGTERM) cancels the running games, whose bots the referee kills; those games are
not journaled and are played again on resume. Resume is simply "play the scheduled ids not in
the journal", guarded by the schedule fingerprint kept in the output directory.
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import msgspec
import trio

from arena.bots.pool import BotPool
from arena.formats.schedule import ROUND_STUCK, ScheduledGame, order_for
from arena.run.progress import Progress
from arena.run.retry import START_ATTEMPTS, retry_machine_faults
from arena.rundir.journal import Journal, JournalWriteError
from arena.rundir.layout import RunDir
from arena.rundir.live_files import FLUSH_EVERY_S, LiveFiles, header_for
from arena.settings.config import LoadedConfig
from referee.botspec import BotSpec
from referee.order import GameOrder
from referee.process.faults import MachineFault
from referee.process.spawn import Launched
from referee.record import GameRecord, MoveRecord, Termination
from referee.thinkslots import ThinkSlots

if TYPE_CHECKING:  # a cluster's only: not loaded to play on this machine
    from arena.cluster.batching import ClusterFeed, GameExecutor

TICK_SECONDS: Final = 1.0
"""How often the live display is redrawn between events (elapsed time, ETA)."""

class RunResult(msgspec.Struct):
    """How a session of ``arena run`` ended."""

    played: int = 0
    """Games finished and journaled in this session."""
    failed: list[str] = msgspec.field(default_factory=list)
    """Ids of games the referee raised on (not journaled; replayed on resume)."""
    stop_reason: str | None = None
    """Why scheduling stopped early (Ctrl-C, SPRT decision), None if every game was fed."""
    arena_fault: str | None = None
    """Why the run stopped on a fault of the machine or the arena (bots that cannot be started,
    a journal that cannot be written); such games have no result and are played on resume."""


@dataclass
class Tournament:
    """The games still to play and everything needed to play them: what the caller gives
    first, then the state of a run, every piece of it declared here (none is made elsewhere).
    :meth:`run` plays them once."""

    loaded: LoadedConfig
    pending: Iterable[ScheduledGame | None]
    """The games to play, in order: a list (a tournament's schedule), or an iterator that
    decides each game when a worker is about to be free (a league's night, whose pairings
    follow the ratings as they change). An iterator may yield ``None``: nothing to hand out
    until a running game is over (a knockout's or Swiss round waiting for its last results,
    :class:`arena.formats.schedule.RoundFeed`); with no game running then, the games it waits
    for failed, and scheduling stops (a resume plays them)."""
    journal: Journal
    out: RunDir
    progress: Progress
    on_record: Callable[[GameRecord], None] = lambda record: None
    """Called after each game is journaled (PGN, report): must not block for long."""
    stop_when: Callable[[list[GameRecord]], str | None] = lambda records: None
    """Called after each journal write with the games it wrote (one, or those that finished
    together); a text stops scheduling (e.g. an SPRT decision)."""
    may_start: Callable[[ScheduledGame], str | None] = lambda game: None
    """Called when a worker takes a game, just before it starts; a text stops scheduling
    and the game is not played (e.g. a deadline it cannot finish before)."""
    finished_bots: Callable[[], Iterable[str]] | None = None
    """Bots that will play no more games although the games are not known in advance (a
    knockout's eliminated bots), asked after each journaled game: their idle processes end
    then, not when the run ends."""
    periodic: Callable[[], object] | None = None
    """A slow job (the report build) run in a worker thread every ``periodic_every`` games,
    never twice at once, so that it cannot stall the games' clocks."""
    periodic_every: int = 0
    concurrency: int = 1
    """Games at once here; with an executor, the most games at once (0: as many as the
    cluster has threads, whatever it grows or shrinks to)."""
    handle_signals: bool = True
    executor: GameExecutor | None = None
    """None plays every game here; a cluster executor plays them on its workers."""
    prestarted: list[tuple[BotSpec, Launched]] = field(default_factory=list)
    """Processes launched before the run (:mod:`arena.bots.prestart`) for the pool to take
    over."""
    order_of: Callable[[ScheduledGame], GameOrder] | None = None
    """The order a game is played from, when its source builds it (a tune's sides play
    with options of their own); None: :func:`~arena.formats.schedule.order_for`."""
    think_slots: int = 0
    """At most this many of the games played here have a bot thinking on a clock at once
    (:mod:`referee.thinkslots`); 0: no limit. A cluster's or referee processes' games are
    theirs to gate."""

    # ------------------------------------------------------------------ the run's state
    result: RunResult = field(default_factory=RunResult)
    pool: BotPool = field(init=False)
    """The live bot processes, logging into ``out.logs``."""
    _slots: ThinkSlots | None = field(init=False, default=None)
    """The slots of :attr:`think_slots`, made in the run's trio loop."""
    _live: LiveFiles = field(init=False)
    """One file per game in progress, for watchers (``arena serve``)."""
    _cluster: ClusterFeed | None = field(init=False, default=None)
    """The batches on the cluster's workers, with an executor."""
    _feed_scope: trio.CancelScope = field(init=False, default_factory=trio.CancelScope)
    """Cancelled to feed no more games."""
    _work_scope: trio.CancelScope = field(init=False, default_factory=trio.CancelScope)
    """Cancelled to abort the running games too."""
    _outer: trio.Nursery | None = field(init=False, default=None)
    """The run's nursery (signals, the display's tick, periodic jobs), once it runs."""
    _work: trio.Nursery | None = field(init=False, default=None)
    """The games' nursery (workers or batches, and journal writes), once it runs."""
    _journal_lock: trio.Lock = field(init=False, default_factory=trio.Lock)
    _journal_slots: trio.Semaphore | None = field(init=False, default=None)
    """One per worker: at most one finished game per worker waits for the journal."""
    _unwritten: list[GameRecord] = field(init=False, default_factory=list)
    """Finished games waiting for the journal lock, written together by the first to get it."""
    _periodic_running: bool = field(init=False, default=False)
    _handed: int = field(init=False, default=0)
    """Games handed out (to a worker, or in a cluster's batch) and not yet journaled or
    dropped: a feed that waits for results (``None``) with none of them left is stuck."""
    _settled: trio.Event = field(init=False, default_factory=trio.Event)
    """Set when one of them is over (a fresh event for each wait)."""
    _retired: set[str] = field(init=False, default_factory=set)
    """Bots whose processes were given back (:attr:`finished_bots`)."""
    _games_left: Counter[str] | None = field(init=False, default=None)
    """Games per bot still to play, when the games are known in advance: a bot with none
    left gives its processes back at once (an iterator's bots keep theirs to the end)."""
    _unstarted: Counter[str] = field(init=False, default_factory=Counter)
    """Games per bot not taken by a worker yet: a bot with none left keeps no process."""

    def __post_init__(self) -> None:
        self._live = LiveFiles(self.out.root)
        if self.executor is not None:
            from arena.cluster.batching import ClusterFeed

            self._cluster = ClusterFeed(self.executor, self)
            self.pool = BotPool(self.out.logs)  # the workers keep the bots
        elif isinstance(self.pending, Sequence):
            listed = [g for g in self.pending if g is not None]
            self._games_left = Counter(name for g in listed for name in (g.p1, g.p2))
            unstarted = self._unstarted = self._games_left.copy()
            self.pool = BotPool(self.out.logs, prestarted=self.prestarted,
                                wanted=lambda name: unstarted[name] > 0)
        else:
            self.pool = BotPool(self.out.logs, prestarted=self.prestarted)

    def stop_scheduling(self, reason: str) -> None:
        """Feed no more games; running games finish and are journaled."""
        if self.result.stop_reason is None:
            self.result.stop_reason = reason
        self._feed_scope.cancel()
        if self._cluster is not None:
            self._cluster.stop()

    def abort(self, reason: str) -> None:
        """Cancel the running games too (their bots are killed; they replay on resume)."""
        self.stop_scheduling(reason)
        self._work_scope.cancel()

    async def run(self) -> RunResult:
        """Play the games (once); the pool's idle processes are ended however it ends."""
        if self._cluster is not None:
            workers = 0  # the cluster's batches instead
        elif isinstance(self.pending, Sequence):
            workers = max(1, min(self.concurrency, sum(g is not None for g in self.pending)))
        else:
            workers = max(1, self.concurrency)
        if self.think_slots and self._cluster is None and workers > self.think_slots:
            self._slots = ThinkSlots(self.think_slots)
            self.pool.keep_until_retired = True  # no bot exits among the thinking ones
        try:
            await self._run_games(workers)
        finally:
            await self.pool.aclose()  # shielded: no idle bot outlives the run
        return self.result

    async def _run_games(self, workers: int) -> None:
        async with trio.open_nursery() as outer:
            self._outer = outer
            self.pool.end_in(outer)  # a last game's bots exit while it is journaled
            if self.handle_signals:
                await outer.start(self._watch_signals)
            outer.start_soon(self._tick)
            outer.start_soon(self._flush_live)
            send, receive = trio.open_memory_channel[ScheduledGame](0)
            with self._work_scope:
                async with trio.open_nursery() as work:
                    self._work = work
                    if self._cluster is not None:
                        with self._feed_scope:
                            await self._cluster.feed(work, outer)
                    else:
                        work.start_soon(self._feed, send)
                        async with receive:
                            self._journal_slots = trio.Semaphore(workers)
                            for _ in range(workers):
                                work.start_soon(self._worker, receive.clone())
            outer.cancel_scope.cancel()

    async def _feed(self, send: trio.MemorySendChannel[ScheduledGame]) -> None:
        async with send:
            with self._feed_scope:
                for game in self.pending:
                    if game is None:  # wait for a running game to end, then ask again
                        if self._handed == 0:
                            self.stop_scheduling(ROUND_STUCK)
                            return
                        self._settled = trio.Event()
                        await self._settled.wait()
                        continue
                    self._handed += 1
                    await send.send(game)

    # ------------------------------------------------------------------ the games' accounts
    @property
    def outstanding(self) -> int:
        """Games handed out and not yet journaled or dropped."""
        return self._handed

    def handed(self, count: int) -> None:
        """Games handed out together (a cluster's batch)."""
        self._handed += count

    def over(self, count: int = 1) -> None:
        """Handed-out games are journaled or dropped: a feed waiting for results asks again."""
        self._handed -= count
        self._settled.set()
        if self._cluster is not None:
            self._cluster.wake()

    def order(self, game: ScheduledGame) -> GameOrder:
        """The order ``game`` is played from (here or on a cluster's worker)."""
        return self.order_of(game) if self.order_of is not None else order_for(self.loaded, game)

    def allowed(self, game: ScheduledGame) -> bool:
        """May ``game`` start now (:attr:`may_start`)? If not, scheduling stops, saying why."""
        reason = self.may_start(game)
        if reason:
            self.progress.message(reason)
            self.stop_scheduling(reason)
        return not reason

    def journal_soon(self, record: GameRecord) -> None:
        """Journal a game that finished elsewhere (on a cluster worker), in a task of its own."""
        assert self._work is not None
        self._work.start_soon(self._journal, record)

    # ------------------------------------------------------------------ games played here
    async def _worker(self, receive: trio.MemoryReceiveChannel[ScheduledGame]) -> None:
        async with receive:
            async for game in receive:
                if not self.allowed(game):
                    self.over()
                    continue
                if self._games_left is not None:
                    self._unstarted[game.p1] -= 1
                    self._unstarted[game.p2] -= 1
                try:
                    await self._play(game)
                finally:
                    await self._done_with(game)

    async def _done_with(self, game: ScheduledGame) -> None:
        """A bot with no games left gives its idle processes back to the system now."""
        if self._games_left is None:
            return
        for name in (game.p1, game.p2):
            self._games_left[name] -= 1
            if self._games_left[name] <= 0:
                await self.pool.retire(name)

    async def _play(self, game: ScheduledGame) -> None:
        """One game, with its live file for watchers (``arena serve``) until it is journaled.

        The journaling is handed to a task of its own (:meth:`_journal`) and the worker goes
        on to its next game: an append is a write to the page cache, but one the disk holds
        up (a write that waits for dirty pages to drain, a retry after EMFILE) takes as long
        as a whole game at ``nodes=1``. At most one game per worker waits for the journal, so
        a slow disk slows the games instead of piling records up."""
        assert self._work is not None and self._journal_slots is not None
        order = self.order(game)
        on_move = self._live.start(header_for(order, started_at=time.time()))
        handed = False
        try:
            record = await self._play_scheduled(order, on_move)
            if record is not None:
                try:  # a free slot is taken without a pass through the scheduler
                    self._journal_slots.acquire_nowait()
                except trio.WouldBlock:
                    with trio.CancelScope(shield=True):  # a finished game is kept, abort or not
                        await self._journal_slots.acquire()
                self._work.start_soon(self._journal, record, self._journal_slots)
                handed = True
        finally:
            if not handed:
                self._live.finish(game.id)
                self.over()

    async def _journal(self, record: GameRecord, slot: trio.Semaphore | None = None) -> None:
        """Journal a finished game, then tell the listeners (PGN, progress, report, SPRT);
        shielded, so a game that finished is kept even when the run is aborted meanwhile.

        Games that finish while the journal is being written wait, and are then written
        together by whichever comes first: one write for all of them. The lock
        is taken without a pass through the scheduler when nobody is writing (most games)."""
        self._unwritten.append(record)
        lock = self._journal_lock
        try:
            with trio.CancelScope(shield=True):
                try:
                    lock.acquire_nowait()
                except trio.WouldBlock:
                    await lock.acquire()
                try:
                    records, self._unwritten = self._unwritten, []
                    if records:
                        await self._write(records)
                finally:
                    lock.release()
        finally:
            if slot is not None:
                slot.release()
            self.over()

    async def _write(self, records: list[GameRecord]) -> None:
        assert self._outer is not None
        try:
            await self.journal.append(records)
        except JournalWriteError as exc:
            self.arena_fault(str(exc), abort=True)
            return
        finally:
            for record in records:
                self._live.finish(record.id)
        for record in records:
            self.result.played += 1
            self.progress.finished(record)
            self.on_record(record)
            if (
                self.periodic is not None
                and self.periodic_every
                and self.result.played % self.periodic_every == 0
                and not self._periodic_running
            ):
                self._periodic_running = True
                self._outer.start_soon(self._run_periodic, self.periodic)
        reason = self.stop_when(records)
        if reason:
            self.progress.message(reason)
            self.stop_scheduling(reason)
        if self.finished_bots is not None:
            for name in set(self.finished_bots()) - self._retired:
                self._retired.add(name)
                await self.pool.retire(name)

    async def _play_scheduled(self, order: GameOrder,
                              on_move: Callable[[MoveRecord], None]) -> GameRecord | None:
        """The game's record, or None when it has no result to keep (the reason is told)."""
        from referee.match import play_game

        self.progress.started_game(order.id, f"{order.bots[0].name}-{order.bots[1].name}")

        def retrying(fault: MachineFault, attempt: int, wait: float) -> None:
            self.progress.message(f"{order.id}: not the bots' fault, retrying in {wait:g} s "
                                  f"(try {attempt + 1} of {START_ATTEMPTS}): {fault}")

        try:
            record = await retry_machine_faults(lambda: play_game(
                order, self.pool, on_move=on_move, transcript_dir=self.out.transcripts,
                slots=self._slots,
            ), retrying)
        except MachineFault as fault:
            self.arena_fault(f"game {order.id} could not be started after {START_ATTEMPTS} "
                             f"tries, for a reason that is not the bots': {fault}")
            return None
        except Exception as exc:  # a referee bug must not take the tournament down
            self.game_failed(order.id, f"{type(exc).__name__}: {exc}")
            return None
        if record.termination == Termination.INTERRUPT or record.result == "*":
            return None  # cancelled by a second Ctrl-C or SIGTERM: replayed on resume
        return record

    # ------------------------------------------------------------------ games on a worker
    def game_started(self, order: GameOrder) -> Callable[[MoveRecord], None]:
        """A game began on a cluster worker: its live file (started again for a game played
        again); returns where its moves go."""
        self._live.finish(order.id)
        on_move = self._live.start(header_for(order, started_at=time.time()))
        self.progress.started_game(order.id, f"{order.bots[0].name}-{order.bots[1].name}")
        return on_move

    def game_gone(self, game_id: str) -> None:
        """A game that will not come back from its worker (failed, replayed elsewhere, or its
        batch ended without it): no live file."""
        self._live.finish(game_id)

    def game_failed(self, game_id: str, text: str) -> None:
        """A game the referee raised on: not journaled, counted as failed (replayed on
        resume)."""
        self.result.failed.append(game_id)
        self.progress.failed_game(game_id, text)

    def tell(self, text: str) -> None:
        self.progress.message(text)

    # ------------------------------------------------------------------ stopping
    def arena_fault(self, message: str, *, abort: bool = False) -> None:
        """Stop the run on the machine's or the arena's fault (the first one is reported);
        ``abort`` cancels the running games too (their results could not be kept). The message
        is said once: now when the running games finish first, else only by the run's last
        line (``arena: error: ...``), which comes at once."""
        if self.result.arena_fault is None:
            self.result.arena_fault = message
            if not abort:
                self.progress.message(f"arena: {message}")
        if abort:
            self.abort("stopped: " + message)
        else:
            self.stop_scheduling("stopped: " + message)

    async def _watch_signals(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            task_status.started()
            interrupts = 0
            async for signum in signals:
                interrupts += signum == signal.SIGINT
                if signum == signal.SIGINT and interrupts == 1:
                    self.stop_scheduling("interrupted (Ctrl-C)")
                    self.progress.message(
                        "Ctrl-C: no new games; waiting for the running ones to finish "
                        "(Ctrl-C again aborts them; they will be replayed on resume)"
                    )
                else:
                    name = "SIGTERM" if signum == signal.SIGTERM else "second Ctrl-C"
                    self.abort(f"aborted ({name})")
                    self.progress.message(f"{name}: aborting the running games")

    async def _run_periodic(self, job: Callable[[], object]) -> None:
        try:
            await trio.to_thread.run_sync(job)
        finally:
            self._periodic_running = False

    async def _tick(self) -> None:
        while True:
            await trio.sleep(TICK_SECONDS)
            self.progress.refresh()

    async def _flush_live(self) -> None:
        while True:
            await trio.sleep(FLUSH_EVERY_S)
            self._live.flush()
