"""Batches of games for cluster workers: one pairing per batch, colour pairs kept together,
sized to about :data:`BATCH_SECONDS` of play, and the feed that keeps a cluster busy with them.

A cluster plays a tournament batch by batch (one Dask task each, ``arena.cluster``): the cost
of sending a task, of the scheduler's bookkeeping and of the hand-over to a worker's game loop
is paid once per batch instead of once per game, and the games of a colour pair (the unit of
pentanomial statistics) are played on one machine by one bot process pool. Each game still
comes back on its own as soon as it ends, so the journal, the progress and the SPRT see every
game as in a local run.

How big: enough games for about :data:`BATCH_SECONDS` of play, from the time control at first
and from the games' measured lengths once some have finished, never more than the cap (``-j``
is not involved: a batch occupies one worker thread), and smaller near the end of a known
schedule, so that the last games are spread over every slot instead of queuing in one batch.

How many at once: :class:`ClusterFeed` keeps as many batches running as the cluster has
threads now (at most the run's ``concurrency`` when it is set) and, without such a bound, a
few more queued so that an adaptive deployment sees work waiting and grows. It plays the games
of a run (:class:`ClusterRun`, which :class:`arena.run.runner.Tournament` is) on a
:class:`GameExecutor` (:class:`arena.cluster.executor.DaskExecutor`), and tells the run of
each game as it goes: the run journals, shows and counts them as it does its own.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

import trio

from arena.errors import ClusterLost, RunFailure
from arena.formats.schedule import ROUND_STUCK, ScheduledGame, order_for
from arena.settings.config import LoadedConfig
from referee.order import GameOrder
from referee.process.faults import MachineFault
from referee.record import GameRecord, MoveRecord
from referee.timecontrol import TimeControl

BATCH_SECONDS: Final = 30.0
"""About how long a batch plays."""
MAX_BATCH: Final = 64
"""The most games in one batch (a worker lost mid-batch costs at most its running game, but a
batch also holds games back from the other workers near the end of a run)."""
TYPICAL_PLIES: Final = 60
"""Plies of a typical game, to guess a game's length from its time control."""


def guess_game_seconds(tc: TimeControl | None) -> float | None:
    """About how long a game lasts under ``tc`` (both sides), None when the clock says nothing
    (nodes, depth, no clock): the first finished games tell then."""
    if tc is None:
        return None
    if tc.movetime_ms is not None:
        return TYPICAL_PLIES * tc.movetime_ms / 1000
    if tc.base_ms is None:
        return None
    # Engines spend a part of their clock; both sides' increments are spent in full.
    return (tc.base_ms + TYPICAL_PLIES * tc.inc_ms) / 1000


def pair_key(game: ScheduledGame) -> tuple[str, str]:
    """The two bots of a game, whatever their colours."""
    first, second = sorted((game.p1, game.p2))
    return first, second


class BatchPlanner:
    """Cuts the games to play into batches, lazily: a list is grouped by pairing in its own
    order (each batch starts with the earliest game not yet given out), an iterator (a league's
    night, which decides each game when it is asked for it) gives batches of consecutive games
    of one pairing."""

    def __init__(self, pending: Iterable[ScheduledGame | None], *, guess_s: float | None,
                 cap: int = MAX_BATCH) -> None:
        self.cap = max(1, cap)
        self._mean_s = guess_s
        self._known = isinstance(pending, Sequence)
        self._order: deque[ScheduledGame] = deque()
        self._by_pair: dict[tuple[str, str], deque[ScheduledGame]] = {}
        self._taken: set[str] = set()
        self._left = 0
        self._iterator: Iterator[ScheduledGame | None] = iter(())
        self._back: ScheduledGame | None = None
        self.waiting = False
        """The iterator said "nothing until a running game is over" (``None``: a knockout's or
        Swiss round waiting for its results); asking again later may give more games."""
        if isinstance(pending, Sequence):
            self._order.extend(pending)
            for game in pending:
                self._by_pair.setdefault(pair_key(game), deque()).append(game)
            self._left = len(pending)
        else:
            self._iterator = iter(pending)

    def observe(self, seconds: float) -> None:
        """A finished game's length: the batch size follows the games' real lengths."""
        seconds = max(seconds, 0.001)  # a game of no measurable length is still a game
        self._mean_s = seconds if self._mean_s is None else 0.8 * self._mean_s + 0.2 * seconds

    def size(self, slots: int) -> int:
        """How many games the next batch gets when ``slots`` games run at once."""
        if self.cap == 1:
            return 1
        size = self.cap if self._mean_s is None or self._mean_s <= 0 else int(
            BATCH_SECONDS / self._mean_s)
        if self._mean_s is None:
            size = min(size, 4)
        if self._known:  # the last games go to every slot, not into one batch
            size = min(size, math.ceil(self._left / (2 * max(1, slots))))
        size = max(2, min(self.cap, size))
        return size - size % 2

    def next_batch(self, slots: int) -> list[ScheduledGame]:
        """The next batch ([] when every game has been given out)."""
        size = self.size(slots)
        if self._known:
            return self._next_known(size)
        return self._next_streamed(size)

    def _next_known(self, size: int) -> list[ScheduledGame]:
        while self._order and self._order[0].id in self._taken:
            self._order.popleft()
        if not self._order:
            return []
        same = self._by_pair[pair_key(self._order[0])]
        batch: list[ScheduledGame] = []
        while same and len(batch) < size:
            game = same.popleft()
            if game.id not in self._taken:
                self._taken.add(game.id)
                batch.append(game)
        self._left -= len(batch)
        return batch

    def _next_streamed(self, size: int) -> list[ScheduledGame]:
        batch: list[ScheduledGame] = []
        self.waiting = False
        while len(batch) < size:
            game, self._back = self._back, None
            if game is None:
                try:
                    game = next(self._iterator)
                except StopIteration:
                    break
                if game is None:  # nothing more until a running game is over
                    self.waiting = True
                    break
            if batch and pair_key(game) != pair_key(batch[0]):
                self._back = game  # the first game of the next batch
                break
            batch.append(game)
        return batch


@dataclass
class BatchEvents:
    """What a batch tells the runner, game by game (called in trio's thread)."""

    started: Callable[[GameOrder, str], None]
    """A game began on a worker (its address)."""
    moved: Callable[[str, list[MoveRecord]], None]
    """New moves of a running game (by id)."""
    finished: Callable[[GameRecord], None]
    """A game's record (once per game, however often it was played)."""
    failed: Callable[[str, str], None]
    """A game that cannot be played (the referee raised, e.g. a bad opening): not journaled."""
    replayed: Callable[[str, str], None]
    """A game that was running on a worker that was lost: it will be played again."""


class GameExecutor(Protocol):
    """Where games are played when not in this process: a cluster
    (:class:`arena.cluster.executor.DaskExecutor`).

    It plays batches of games and tells each game as it goes; ``play_batch`` raises
    :class:`RunFailure` to stop the run (:class:`ClusterLost`: at once), :class:`MachineFault`
    when no worker could play the batch (replayed on resume)."""

    batch_cap: int | None
    """The most games in one batch (None: :data:`MAX_BATCH`)."""

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


class ClusterRun(Protocol):
    """A run as the cluster's feed sees it (:class:`arena.run.runner.Tournament`): where its
    games come from, and what it does with each game the workers tell of."""

    loaded: LoadedConfig
    pending: Iterable[ScheduledGame | None]
    concurrency: int
    """The most games at once (0: as many as the cluster has threads)."""

    @property
    def outstanding(self) -> int:
        """Games handed out and not yet journaled or dropped."""

    def handed(self, count: int) -> None:
        """Games handed out together (a batch)."""

    def over(self, count: int = 1) -> None:
        """Handed-out games that will not be journaled (failed, or left over by a batch)."""

    def allowed(self, game: ScheduledGame) -> bool:
        """May ``game`` start now? If not, the run stops scheduling, saying why."""

    def stop_scheduling(self, reason: str) -> None: ...

    def arena_fault(self, message: str, *, abort: bool = False) -> None: ...

    def journal_soon(self, record: GameRecord) -> None:
        """A game's record: journal it (and then count it as over)."""

    def game_started(self, order: GameOrder) -> Callable[[MoveRecord], None]:
        """A game began on a worker; returns where its moves go."""

    def game_gone(self, game_id: str) -> None:
        """A game that will not come back from this batch (its live file ends)."""

    def game_failed(self, game_id: str, text: str) -> None:
        """A game that cannot be played: counted as failed, not journaled."""

    def tell(self, text: str) -> None: ...


class ClusterFeed:
    """Keeps a cluster busy with a run's games, batch by batch, as long as the run feeds
    (its caller cancels the feed to stop)."""

    def __init__(self, executor: GameExecutor, run: ClusterRun) -> None:
        self.executor = executor
        self.run = run
        self._in_flight = 0
        """Batches submitted and not over."""
        self._on_worker: dict[str, Callable[[MoveRecord], None]] = {}
        """Where the moves of each game running on a worker go (its live file)."""
        self._wake = trio.Event()
        """Set when a batch ends, a handed-out game is over or the cluster changes (a fresh
        one per wait)."""
        self._outer: trio.Nursery | None = None
        tc = next(iter(run.loaded.time_controls.values()), None)
        self._planner = BatchPlanner(run.pending, guess_s=guess_game_seconds(tc),
                                     cap=executor.batch_cap or MAX_BATCH)

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        """The run stops scheduling: the cluster starts no new game (in a thread: it asks
        the scheduler)."""
        if self._outer is not None:
            self._outer.start_soon(trio.to_thread.run_sync, self.executor.stop)

    async def feed(self, work: trio.Nursery, outer: trio.Nursery) -> None:
        """Submit batches (each a task in ``work``) until the games run out or the run stops
        feeding; the cluster is watched from ``outer`` for as long as the run lasts."""
        self._outer = outer
        self.executor.attach(self.wake)
        outer.start_soon(self._watch)
        planner = self._planner
        while True:
            while self._in_flight >= self._capacity():
                await self._wake.wait()
                self._wake = trio.Event()
            games = planner.next_batch(max(1, self.executor.slots))
            for index, game in enumerate(games):
                if not self.run.allowed(game):
                    games = games[:index]
                    break
            if not games:
                if not planner.waiting:
                    return
                if self.run.outstanding == 0:  # the results it waits for failed
                    self.run.stop_scheduling(ROUND_STUCK)
                    return
                self._wake = trio.Event()  # a knockout's or Swiss round: wait for a result
                await self._wake.wait()
                continue
            self._in_flight += 1
            self.run.handed(len(games))
            work.start_soon(self._play_batch, games)
            await trio.sleep(0)  # let the batch be submitted before planning the next

    def _capacity(self) -> int:
        slots = self.executor.slots
        if self.run.concurrency > 0:
            return max(1, min(slots, self.run.concurrency))
        return slots + 1 + slots // 4

    async def _watch(self) -> None:
        self.run.arena_fault(await self.executor.watch(), abort=True)

    async def _play_batch(self, games: list[ScheduledGame]) -> None:
        run = self.run
        orders = [order_for(run.loaded, game) for game in games]
        left = {order.id for order in orders}
        events = BatchEvents(
            started=self._started,
            moved=self._moved,
            finished=lambda record: self._finished(record, left),
            failed=lambda game_id, text: self._failed(game_id, text, left),
            replayed=self._replayed,
        )
        try:
            await self.executor.play_batch(orders, events)
        except ClusterLost as exc:
            run.arena_fault(str(exc), abort=True)
        except RunFailure as exc:  # no worker can play a bot
            run.arena_fault(str(exc))
        except MachineFault as fault:
            run.arena_fault(f"games could not be played, for a reason that is not the "
                            f"bots': {fault}")
        except Exception as exc:  # an arena bug must not take the tournament down
            for game_id in sorted(left):
                run.game_failed(game_id, f"{type(exc).__name__}: {exc}")
        finally:
            for game_id in left:  # not finished: replayed on resume
                self._on_worker.pop(game_id, None)
                run.game_gone(game_id)
            self._in_flight -= 1
            run.over(len(left))

    def _started(self, order: GameOrder, worker: str) -> None:
        self._on_worker[order.id] = self.run.game_started(order)

    def _moved(self, game_id: str, moves: list[MoveRecord]) -> None:
        on_move = self._on_worker.get(game_id)
        if on_move is not None:
            for move in moves:
                on_move(move)

    def _finished(self, record: GameRecord, left: set[str]) -> None:
        left.discard(record.id)
        self._on_worker.pop(record.id, None)
        if record.started_at and record.ended_at:
            self._planner.observe(record.ended_at - record.started_at)
        self.run.journal_soon(record)

    def _failed(self, game_id: str, text: str, left: set[str]) -> None:
        left.discard(game_id)
        self._on_worker.pop(game_id, None)
        self.run.game_gone(game_id)
        self.run.game_failed(game_id, text)
        self.run.over()

    def _replayed(self, game_id: str, text: str) -> None:
        self._on_worker.pop(game_id, None)
        self.run.game_gone(game_id)
        self.run.tell(text)
