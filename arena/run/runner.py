"""Playing a tournament's games: resume, concurrency and Ctrl-C (the run directory:
:mod:`arena.rundir`).

Up to ``concurrency`` games run at once under one trio nursery: a producer feeds the games
still missing from the journal into a memory channel and that many workers pull from it. Each
game takes its two bots from a :class:`BotPool` of live processes (``arena.bots.pool``: kept
between games unless a bot faulted or its ``restart`` setting says otherwise), so a bot that
crashes or hangs only loses its own game and gets a fresh process for the next. A finished
game is journaled (fsync'd) before anything else hears of it, and every listener (PGN,
progress, report) runs after that, in a task of its own: the game's worker has gone on to
its next game meanwhile. The pool's idle processes are ended when the run ends,
however it ends.

On a cluster (``executor``) the games go out in batches of one pairing
(:mod:`arena.cluster.batching`), as many batches at once as the cluster has threads now (bounded by
``concurrency`` when it is set), and each game comes back on its own when it ends: the journal, the
progress and the SPRT still see one game at a time. Games that finish while the journal is being
written are written together, with one write and one fsync.

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
from typing import Final, Protocol

import trio

from arena.bots.pool import BotPool
from arena.cluster.batching import MAX_BATCH, BatchEvents, BatchPlanner, guess_game_seconds
from arena.errors import ClusterLost, RunFailure
from arena.formats.schedule import ScheduledGame, order_for
from arena.run.progress import Progress
from arena.run.retry import START_ATTEMPTS, retry_machine_faults
from arena.rundir.journal import Journal, JournalWriteError
from arena.rundir.layout import RunDir
from arena.rundir.live_files import LiveFiles, header_for
from arena.settings.config import LoadedConfig
from referee.botspec import BotSpec
from referee.order import GameOrder
from referee.process.faults import MachineFault
from referee.process.spawn import Launched
from referee.record import GameRecord, MoveRecord, Termination

TICK_SECONDS: Final = 1.0
"""How often the live display is redrawn between events (elapsed time, ETA)."""

ROUND_STUCK: Final = ("the next round waits for games that failed; run again to play them")
"""Why scheduling stops when a knockout's or Swiss round waits for results that no running
game will bring."""

@dataclass
class RunResult:
    """How a session of ``arena run`` ended."""

    played: int = 0
    """Games finished and journaled in this session."""
    failed: list[str] = field(default_factory=list)
    """Ids of games the referee raised on (not journaled; replayed on resume)."""
    stop_reason: str | None = None
    """Why scheduling stopped early (Ctrl-C, SPRT decision), None if every game was fed."""
    arena_fault: str | None = None
    """Why the run stopped on a fault of the machine or the arena (bots that cannot be started,
    a journal that cannot be written); such games have no result and are played on resume."""


class GameExecutor(Protocol):
    """Where games are played when not in this process: a cluster (``arena.cluster.executor``).

    It plays batches of games (:mod:`arena.cluster.batching`) and tells each game as it goes;
    ``play_batch`` raises :class:`RunFailure` to stop the run (:class:`ClusterLost`: at once),
    :class:`MachineFault` when no worker could play the batch (replayed on resume)."""

    batch_cap: int | None
    """The most games in one batch (None: :data:`arena.cluster.batching.MAX_BATCH`)."""

    @property
    def slots(self) -> int:
        """Games the cluster plays at once now (its workers' threads): it grows and shrinks."""

    def attach(self, changed: Callable[[], None]) -> None:
        """Start hearing from the cluster; ``changed`` is called when its workers change."""

    async def watch(self) -> str:
        """Runs for the whole run; returns why it must stop (the cluster is gone)."""

    def stop(self) -> None:
        """No new games: the running batches end after their running game."""

    async def play_batch(self, orders: list[GameOrder], events: BatchEvents) -> None: ...


@dataclass
class Tournament:
    """The games still to play and everything needed to play them."""

    loaded: LoadedConfig
    pending: Iterable[ScheduledGame | None]
    """The games to play, in order: a list (a tournament's schedule), or an iterator that
    decides each game when a worker is about to be free (a league's night, whose pairings
    follow the ratings as they change). An iterator may yield ``None``: nothing to hand out
    until a running game is over (a knockout's or Swiss round waiting for its last results,
    :class:`arena.formats.schedule.RoundFeed`); with no game running then, the games it waits for
    failed, and scheduling stops (a resume plays them)."""
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
    result: RunResult = field(default_factory=RunResult)
    _feed_scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    _work_scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    pool: BotPool = field(default_factory=BotPool)
    """The live bot processes; made afresh (logging into ``out.logs``) by :meth:`run`."""
    prestarted: list[tuple[BotSpec, Launched]] = field(default_factory=list)
    """Processes launched before the run (:mod:`arena.bots.prestart`) for the pool to take over."""

    def stop_scheduling(self, reason: str) -> None:
        """Feed no more games; running games finish and are journaled."""
        if self.result.stop_reason is None:
            self.result.stop_reason = reason
        self._feed_scope.cancel()
        if self.executor is not None and hasattr(self, "_outer"):
            self._outer.start_soon(trio.to_thread.run_sync, self.executor.stop)

    def abort(self, reason: str) -> None:
        """Cancel the running games too (their bots are killed; they replay on resume)."""
        self.stop_scheduling(reason)
        self._work_scope.cancel()

    async def run(self) -> RunResult:
        self._periodic_running = False
        self._unwritten: list[GameRecord] = []
        self._journal_lock = trio.Lock()
        self._handed = 0
        """Games handed out (to a worker, or in a cluster's batch) and not yet journaled or
        dropped: a feed that waits for results (``None``) with none of them left is stuck."""
        self._settled = trio.Event()
        """Set when one of them is over (a fresh event for each wait)."""
        self._retired: set[str] = set()
        self._wake = trio.Event()
        """Set when a cluster batch ends or a handed-out game is over (a fresh one per wait)."""
        self._live = LiveFiles(self.out.root)
        self._games_left: Counter[str] | None = None
        """Games per bot still to play, when the games are known in advance: a bot with none
        left gives its processes back at once (an iterator's bots keep theirs to the end)."""
        if self.executor is not None:
            workers = 0  # the cluster's batches instead (_run_on_cluster)
        elif isinstance(self.pending, Sequence):
            listed = [g for g in self.pending if g is not None]
            workers = max(1, min(self.concurrency, len(listed)))
            self._games_left = Counter(name for g in listed for name in (g.p1, g.p2))
            unstarted = self._unstarted = self._games_left.copy()
            """Games per bot not taken by a worker yet: a bot with none left keeps no process."""
            self.pool = BotPool(self.out.logs, prestarted=self.prestarted,
                                wanted=lambda name: unstarted[name] > 0)
        else:
            workers = max(1, self.concurrency)
            self.pool = BotPool(self.out.logs, prestarted=self.prestarted)
        try:
            await self._run_games(workers)
        finally:
            await self.pool.aclose()  # shielded: no idle bot outlives the run
        return self.result

    async def _run_games(self, workers: int) -> None:
        async with trio.open_nursery() as outer:
            self._outer = outer
            if self.handle_signals:
                await outer.start(self._watch_signals)
            outer.start_soon(self._tick)
            send, receive = trio.open_memory_channel[ScheduledGame](0)
            with self._work_scope:
                async with trio.open_nursery() as work:
                    self._work = work
                    if self.executor is not None:
                        await self._run_on_cluster(self.executor)
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

    def _over(self, count: int = 1) -> None:
        """Handed-out games are journaled or dropped: a feed waiting for results asks again."""
        self._handed -= count
        self._settled.set()
        self._wake.set()

    async def _worker(self, receive: trio.MemoryReceiveChannel[ScheduledGame]) -> None:
        async with receive:
            async for game in receive:
                reason = self.may_start(game)
                if reason:
                    self.progress.message(reason)
                    self.stop_scheduling(reason)
                    self._over()
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
        on to its next game: an fsync'd append through a worker thread takes milliseconds on
        a busy machine, as long as a whole game at ``nodes=1``. At most one game per worker
        waits for the journal, so a slow disk slows the games instead of piling records up."""
        order = order_for(self.loaded, game)
        on_move = self._live.start(header_for(order, started_at=time.time()))
        handed = False
        try:
            record = await self._play_scheduled(order, on_move)
            if record is not None:
                with trio.CancelScope(shield=True):  # a finished game is kept, abort or not
                    await self._journal_slots.acquire()
                self._work.start_soon(self._journal, record, self._journal_slots)
                handed = True
        finally:
            if not handed:
                self._live.finish(game.id)
                self._over()

    async def _journal(self, record: GameRecord, slot: trio.Semaphore | None = None) -> None:
        """Journal a finished game, then tell the listeners (PGN, progress, report, SPRT);
        shielded, so a game that finished is kept even when the run is aborted meanwhile.

        Games that finish while the journal is being written wait, and are then written
        together by whichever comes first: one write and one fsync for all of them."""
        self._unwritten.append(record)
        try:
            with trio.CancelScope(shield=True):
                async with self._journal_lock:
                    records, self._unwritten = self._unwritten, []
                    if records:
                        await self._write(records)
        finally:
            if slot is not None:
                slot.release()
            self._over()

    async def _write(self, records: list[GameRecord]) -> None:
        try:
            await self.journal.append(records)
        except JournalWriteError as exc:
            self._arena_fault(str(exc), abort=True)
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

    # ------------------------------------------------------------------ on a cluster
    async def _run_on_cluster(self, executor: GameExecutor) -> None:
        """Keep the cluster busy with batches: as many running as it has threads now (at
        most ``concurrency`` when set) and, without such a bound, a few more queued so that
        an adaptive deployment sees work waiting and grows."""
        self._in_flight = 0
        self._on_worker: dict[str, Callable[[MoveRecord], None]] = {}
        executor.attach(lambda: self._wake.set())
        self._outer.start_soon(self._watch_cluster, executor)
        tc = next(iter(self.loaded.time_controls.values()), None)
        planner = self._planner = BatchPlanner(
            self.pending, guess_s=guess_game_seconds(tc), cap=executor.batch_cap or MAX_BATCH)
        with self._feed_scope:
            while True:
                while self._in_flight >= self._cluster_capacity(executor):
                    await self._wake.wait()
                    self._wake = trio.Event()
                games = planner.next_batch(max(1, executor.slots))
                for index, game in enumerate(games):
                    reason = self.may_start(game)
                    if reason:
                        self.progress.message(reason)
                        self.stop_scheduling(reason)
                        games = games[:index]
                        break
                if not games:
                    if not planner.waiting:
                        return
                    if self._handed == 0:  # the results it waits for failed
                        self.stop_scheduling(ROUND_STUCK)
                        return
                    self._wake = trio.Event()  # a knockout's or Swiss round: wait for a result
                    await self._wake.wait()
                    continue
                self._in_flight += 1
                self._handed += len(games)
                self._work.start_soon(self._play_batch, executor, games)
                await trio.sleep(0)  # let the batch be submitted before planning the next

    def _cluster_capacity(self, executor: GameExecutor) -> int:
        slots = executor.slots
        if self.concurrency > 0:
            return max(1, min(slots, self.concurrency))
        return slots + 1 + slots // 4

    async def _watch_cluster(self, executor: GameExecutor) -> None:
        self._arena_fault(await executor.watch(), abort=True)

    async def _play_batch(self, executor: GameExecutor, games: list[ScheduledGame]) -> None:
        orders = [order_for(self.loaded, game) for game in games]
        left = {order.id for order in orders}
        events = BatchEvents(
            started=self._cluster_started,
            moved=self._cluster_moved,
            finished=lambda record: self._cluster_finished(record, left),
            failed=lambda game_id, text: self._cluster_failed(game_id, text, left),
            replayed=self._cluster_replayed,
        )
        try:
            await executor.play_batch(orders, events)
        except ClusterLost as exc:
            self._arena_fault(str(exc), abort=True)
        except RunFailure as exc:  # no worker can play a bot
            self._arena_fault(str(exc))
        except MachineFault as fault:
            self._arena_fault(f"games could not be played, for a reason that is not the "
                              f"bots': {fault}")
        except Exception as exc:  # an arena bug must not take the tournament down
            for game_id in sorted(left):
                self.result.failed.append(game_id)
                self.progress.failed_game(game_id, f"{type(exc).__name__}: {exc}")
        finally:
            for game_id in left:  # not finished: replayed on resume
                self._on_worker.pop(game_id, None)
                self._live.finish(game_id)
            self._in_flight -= 1
            self._over(len(left))

    def _cluster_started(self, order: GameOrder, worker: str) -> None:
        self._live.finish(order.id)  # a game played again starts its live file again
        self._on_worker[order.id] = self._live.start(header_for(order, started_at=time.time()))
        self.progress.started_game(order.id, f"{order.bots[0].name}-{order.bots[1].name}")

    def _cluster_moved(self, game_id: str, moves: list[MoveRecord]) -> None:
        on_move = self._on_worker.get(game_id)
        if on_move is not None:
            for move in moves:
                on_move(move)

    def _cluster_finished(self, record: GameRecord, left: set[str]) -> None:
        left.discard(record.id)
        self._on_worker.pop(record.id, None)
        if record.started_at and record.ended_at:
            self._planner.observe(record.ended_at - record.started_at)
        self._work.start_soon(self._journal, record)

    def _cluster_failed(self, game_id: str, text: str, left: set[str]) -> None:
        left.discard(game_id)
        self._on_worker.pop(game_id, None)
        self._live.finish(game_id)
        self.result.failed.append(game_id)
        self.progress.failed_game(game_id, text)
        self._over()

    def _cluster_replayed(self, game_id: str, text: str) -> None:
        self._on_worker.pop(game_id, None)
        self._live.finish(game_id)
        self.progress.message(text)

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
            ), retrying)
        except MachineFault as fault:
            self._arena_fault(f"game {order.id} could not be started after {START_ATTEMPTS} "
                              f"tries, for a reason that is not the bots': {fault}")
            return None
        except Exception as exc:  # a referee bug must not take the tournament down
            self.result.failed.append(order.id)
            self.progress.failed_game(order.id, f"{type(exc).__name__}: {exc}")
            return None
        if record.termination == Termination.INTERRUPT or record.result == "*":
            return None  # cancelled by a second Ctrl-C or SIGTERM: replayed on resume
        return record

    def _arena_fault(self, message: str, *, abort: bool = False) -> None:
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
