"""Time a bot waited for a CPU is not charged to its clock (referee/process/schedstat.py).

On scripted bots through the real referee, on trio's autojump clock, with the kernel's
counts faked at the reader's seam (:class:`Threads`: each thread of the bot runs and waits
at fixed rates of trio's clock): a move over its budget by the wall clock but mostly spent
waiting is no forfeit and its clock is charged wall less credit; a bot that keeps its own
threads busy gets no credit; one with too many threads none; ``cpuwait=charged`` turns it off;
a move on no clock samples nothing. The reader itself on real processes is tested in
tests/test_schedstat.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import trio
from fake_channel import Answer, Later
from scripted import NativeBot, ScriptedBot, ScriptedBots, play_scripted, scripted_channel
from trio.testing import MockClock

from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.connection import BotConnection
from referee.process.schedstat import MAX_THREADS, WaitMeter
from referee.record import GameRecord, Termination

PLIES = 4
BUDGET = "st=0.02 timemargin=20"
"""40 ms a move, as the bench's many-games setting."""


class Threads:
    """A scripted bot's threads as the kernel would count them: each of ``count`` threads
    runs on a CPU for ``run`` and waits in a run queue for ``wait`` of every second of
    trio's clock (``run + wait`` at most 1: the rest it sleeps)."""

    def __init__(self, run: float, wait: float, count: int = 1) -> None:
        self.run = run
        self.wait = wait
        self.count = count
        self.reads = 0
        self.origin = trio.current_time()

    def tids(self) -> list[int]:
        return list(range(1, self.count + 1))

    def read(self, tid: int) -> tuple[int, int]:
        self.reads += 1
        seconds = trio.current_time() - self.origin
        return int(self.run * seconds * 1e9), int(self.wait * seconds * 1e9)

    def meter(self) -> WaitMeter:
        return WaitMeter(self.tids, read=self.read, own=lambda: 0)


class MeteredBots(ScriptedBots):
    """:class:`ScriptedBots` whose channels measure their bot's threads by ``threads``."""

    def __init__(self, threads: dict[str, Threads | Queued | LateRead], *bots: ScriptedBot
                 ) -> None:
        super().__init__(*bots)
        self.threads = threads

    async def acquire(self, spec: BotSpec, game_id: str) -> BotConnection:
        connection = await super().acquire(spec, game_id)
        scripted_channel(connection).wait_meter = self.threads[spec.name].meter()  # type: ignore[attr-defined]
        return connection


def answering(name: str, after: float) -> ScriptedBot:
    """A native bot that answers every ``go`` ``after`` seconds later (never: ``inf``)."""

    def move(legal: Sequence[str], made: int) -> list[Answer]:
        return [] if after == float("inf") else [Later(after, f"bestmove {legal[0]}")]

    return ScriptedBot(name, lambda: NativeBot(move, name=name))


async def play(slow: Threads, *, after: float = 0.06, tc: str = BUDGET,
               quick: Threads | None = None) -> GameRecord:
    """A game of ``slow`` (p1, answering ``after`` s late, its threads ``slow``) against a
    bot that answers at once."""
    p1, p2 = answering("slow", after), answering("quick", 0.001)
    quick = quick if quick is not None else Threads(run=1.0, wait=0.0)
    with trio.fail_after(60):
        return await play_scripted(
            "dobutsu", p1, p2, tc=tc, bots=MeteredBots({"slow": slow, "quick": quick}, p1, p2),
            adjudication=Adjudication(max_plies=PLIES, draw_rules=False))


def slow_moves(record: GameRecord) -> list[tuple[float, float, float | None]]:
    return [(m.elapsed_ms, m.waited_ms, m.clock_ms) for m in record.moves if m.side == 0]


async def test_a_move_late_by_the_wall_but_waiting_for_a_cpu_is_no_forfeit(
        autojump_clock: MockClock) -> None:
    # 60 ms for a 40 ms budget, three quarters of it in a run queue: 45 ms credited, 15 charged.
    record = await play(Threads(run=0.25, wait=0.75))
    assert record.termination == Termination.ADJUDICATION, record.reason
    for elapsed, waited, _ in slow_moves(record):
        assert elapsed == pytest.approx(60, abs=0.01)
        assert waited == pytest.approx(45, abs=0.01)
    assert record.latency is not None
    spread = record.latency.sides[0].cpu_wait
    assert spread is not None and spread.n == PLIES // 2
    assert spread.max_ms == pytest.approx(45, abs=0.01)


async def test_the_clock_is_charged_wall_time_less_the_credit(autojump_clock: MockClock) -> None:
    # A 1 s clock: 300 ms a move, half of it waiting: 150 ms charged a move, not 300.
    record = await play(Threads(run=0.5, wait=0.5), after=0.3, tc="1")
    assert record.termination == Termination.ADJUDICATION, record.reason
    assert [clock for _, _, clock in slow_moves(record)] == pytest.approx([850, 700], abs=0.01)


async def test_without_the_credit_the_same_move_forfeits(autojump_clock: MockClock) -> None:
    slow = Threads(run=0.25, wait=0.75)
    record = await play(slow, tc=f"{BUDGET} cpuwait=charged")
    assert record.termination == Termination.TIME_FORFEIT
    assert record.winner == 1 and "not charged" not in record.reason
    assert slow.reads == 0  # switched off: nothing is read either


async def test_a_bot_that_keeps_its_own_threads_busy_gets_no_credit(
        autojump_clock: MockClock) -> None:
    # Four threads busy on two cores: each waits half the time, but the bot used two cores'
    # worth of CPU: its threads waited for each other, not for the machine.
    record = await play(Threads(run=0.5, wait=0.5, count=4))
    assert record.termination == Termination.TIME_FORFEIT
    assert record.winner == 1
    assert "waiting for a CPU" not in record.reason


async def test_a_bot_with_too_many_threads_gets_no_credit(autojump_clock: MockClock) -> None:
    slow = Threads(run=0.0, wait=0.9, count=MAX_THREADS + 1)
    record = await play(slow)
    assert record.termination == Termination.TIME_FORFEIT
    assert slow.reads == 0  # the list was refused whole: no thread's file was read


async def test_a_late_move_is_waited_for_while_its_credit_grows(autojump_clock: MockClock) -> None:
    # Half its time waiting: its 40 ms budget lasts 80 ms of wall time; it answers at 75 ms.
    record = await play(Threads(run=0.5, wait=0.5), after=0.075)
    assert record.termination == Termination.ADJUDICATION, record.reason
    for elapsed, waited, _ in slow_moves(record):
        assert (elapsed, waited) == pytest.approx((75, 37.5), abs=0.01)


class Queued:
    """A bot's one thread as the kernel counts it when it sits in a run queue at each ``go``
    for ``queued`` seconds, then runs ``runs`` seconds and answers: the wait shows in its
    ``run_delay`` only once it runs (until then its counts stand still, its state ``R``)."""

    def __init__(self, queued: float, runs: float) -> None:
        self.queued = queued
        self.runs = runs
        self.goes: list[float] = []

    def bot(self, name: str) -> ScriptedBot:
        def move(legal: Sequence[str], made: int) -> list[Answer]:
            self.goes.append(trio.current_time())
            return [Later(self.queued + self.runs, f"bestmove {legal[0]}")]

        return ScriptedBot(name, lambda: NativeBot(move, name=name))

    def read(self, tid: int) -> tuple[int, int]:
        now = trio.current_time()
        cpu = delay = 0.0
        for go in self.goes:
            if now >= go + self.queued:  # it got a CPU: the wait is counted now
                delay += self.queued
                cpu += min(now - go - self.queued, self.runs)
        return int(cpu * 1e9), int(delay * 1e9)

    def state(self, tid: int) -> bytes:
        now = trio.current_time()
        running = any(go <= now < go + self.queued + self.runs for go in self.goes)
        return b"R" if running else b"S"

    def meter(self) -> WaitMeter:
        return WaitMeter(lambda: [1], read=self.read, state=self.state, own=lambda: 0)


@pytest.mark.parametrize("seen", [True, False])
async def test_a_wait_the_kernel_has_not_counted_yet_is_waited_for(
        autojump_clock: MockClock, seen: bool) -> None:
    # 50 ms in a run queue after each go, past the 40 ms deadline, where schedstat shows
    # nothing yet; then 15 ms of search. Seen as waiting, it is waited for and charged 15 ms.
    queued = Queued(queued=0.05, runs=0.015)
    if not seen:  # a thread that is not runnable is not waiting for a CPU: no more time
        queued.state = lambda tid: b"S"  # type: ignore[method-assign]
    p1, p2 = queued.bot("slow"), answering("quick", 0.001)
    bots = MeteredBots({"slow": queued, "quick": Threads(run=1.0, wait=0.0)}, p1, p2)
    with trio.fail_after(60):
        record = await play_scripted("dobutsu", p1, p2, tc=BUDGET, bots=bots,
                                     adjudication=Adjudication(max_plies=PLIES,
                                                               draw_rules=False))
    if seen:
        assert record.termination == Termination.ADJUDICATION, record.reason
        for elapsed, waited, _ in slow_moves(record):
            assert (elapsed, waited) == pytest.approx((65, 50), abs=0.01)
    else:
        assert record.termination == Termination.TIME_FORFEIT


class LateRead:
    """A bot whose one thread runs ``runs`` seconds after each ``go`` (never waiting) while
    its answer is read only ``read_after`` seconds after the ``go``, and a referee whose own
    thread waits in a run queue for ``referee_wait`` of every second meanwhile: a move read
    late because the referee waited for a core."""

    def __init__(self, runs: float, read_after: float, referee_wait: float) -> None:
        self.runs = runs
        self.read_after = read_after
        self.referee_wait = referee_wait
        self.goes: list[float] = []

    def bot(self, name: str) -> ScriptedBot:
        def move(legal: Sequence[str], made: int) -> list[Answer]:
            self.goes.append(trio.current_time())
            return [Later(self.read_after, f"bestmove {legal[0]}")]

        return ScriptedBot(name, lambda: NativeBot(move, name=name))

    def read(self, tid: int) -> tuple[int, int]:
        now = trio.current_time()
        cpu = sum(min(max(now - go, 0.0), self.runs) for go in self.goes)
        return int(cpu * 1e9), 0

    def own(self) -> int:
        return int(self.referee_wait * trio.current_time() * 1e9)

    def meter(self) -> WaitMeter:
        return WaitMeter(lambda: [1], read=self.read, own=self.own)


@pytest.mark.parametrize(("runs", "forfeit"), [(0.02, False), (0.055, True)])
async def test_the_referee_s_own_wait_counts_after_the_bot_s_answer(
        autojump_clock: MockClock, runs: float, forfeit: bool) -> None:
    # Read at 55 ms; the referee waited for a core for 30 of them. A bot that ran 20 ms (and
    # then slept) is credited those 30 and charged 25; one that ran all 55 ms was still
    # thinking while the referee waited: the wait cost it nothing, and it is charged 55.
    late = LateRead(runs=runs, read_after=0.055, referee_wait=30 / 55)
    p1, p2 = late.bot("slow"), answering("quick", 0.001)
    bots = MeteredBots({"slow": late, "quick": Threads(run=1.0, wait=0.0)}, p1, p2)
    with trio.fail_after(60):
        record = await play_scripted("dobutsu", p1, p2, tc=BUDGET, bots=bots,
                                     adjudication=Adjudication(max_plies=PLIES,
                                                               draw_rules=False))
    if forfeit:
        assert record.termination == Termination.TIME_FORFEIT
    else:
        assert record.termination == Termination.ADJUDICATION, record.reason
        for elapsed, waited, _ in slow_moves(record):
            assert (elapsed, waited) == pytest.approx((55, 30), abs=0.01)


async def test_a_bot_that_never_answers_forfeits_once_its_charged_time_is_up(
        autojump_clock: MockClock) -> None:
    slow = Threads(run=0.5, wait=0.5)
    began = trio.current_time()
    record = await play(slow, after=float("inf"))
    assert record.termination == Termination.TIME_FORFEIT
    assert "ms waiting for a CPU not charged" in record.reason, record.reason
    # 40 ms charged is 80 ms of wall time; the referee looks again at most every 2 ms.
    assert trio.current_time() - began == pytest.approx(0.080, abs=0.003)


async def test_the_forfeit_message_says_what_was_credited(autojump_clock: MockClock) -> None:
    # Answers at 100 ms, a fifth of it waiting: 80 ms charged of a 40 ms budget... but the
    # referee gave up waiting at 50 ms (charged 40): the timeout's message carries the credit.
    record = await play(Threads(run=0.8, wait=0.2), after=0.1)
    assert record.termination == Termination.TIME_FORFEIT
    assert "not charged" in record.reason and "clock plus margin" in record.reason


async def test_a_move_on_no_clock_reads_nothing(autojump_clock: MockClock) -> None:
    slow, quick = Threads(run=0.5, wait=0.5), Threads(run=0.5, wait=0.5)
    record = await play(slow, after=0.01, tc="inf nodes=1", quick=quick)
    assert record.termination == Termination.ADJUDICATION, record.reason
    assert slow.reads == quick.reads == 0
    assert all(move.waited_ms == 0 for move in record.moves)
