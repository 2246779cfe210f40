"""Thinking slots (referee/thinkslots.py): at most K bots think at once on a clock, whatever
the games at once; a game waits for a slot before its ``go``, with its clocks stopped.

First on scripted bots through the real referee, on trio's autojump clock (every delay is the
script's own and exact): which searches overlap, what the clocks charged, what the latency
record shows. Then ``arena run --think-slots`` with real bot processes, in one runner process
and over two referee processes; and how the run's K is shared out. No test times the machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import trio
from fake_channel import Answer, Later, ScriptedChannel
from scripted import NativeBot, ScriptedBot, ScriptedBots, play_scripted
from test_runner import BOTS, arena_run, bot, check_complete, write_config
from trio.testing import MockClock

from arena.errors import UserError
from arena.run.referees import Referees, referees_for, think_slots_for
from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.connection import BotConnection
from referee.record import GameRecord, Termination
from referee.thinkslots import ThinkSlots

PLIES = 6
THINK_S = 0.08
"""Each scripted answer's time: most of the 0.1 s a move is given."""
MOVE_TIME = "st=0.1"


def thinker(name: str) -> ScriptedBot:
    """A native bot that answers every ``go`` :data:`THINK_S` later with the first legal
    move."""

    def move(legal: Sequence[str], made: int) -> list[Answer]:
        return [Later(THINK_S, f"bestmove {legal[0]}")]

    return ScriptedBot(name, lambda: NativeBot(move, name=name))


async def play_at_once(games: int, slots: ThinkSlots | None, tc: str = MOVE_TIME,
                       source: ScriptedBots | None = None
                       ) -> tuple[list[GameRecord], list[ScriptedChannel]]:
    """``games`` games of two :func:`thinker` bots (``a`` and ``b``) at once, sharing
    ``slots``, from ``source`` (default: :class:`ScriptedBots` of the two); the records and
    every channel the bots talked through."""
    a, b = thinker("a"), thinker("b")
    source = ScriptedBots(a, b) if source is None else source
    records: list[GameRecord] = []

    async def one(index: int) -> None:
        records.append(await play_scripted(
            "dobutsu", a, b, tc=tc, bots=source, game_id=f"g{index}", slots=slots,
            adjudication=Adjudication(max_plies=PLIES, draw_rules=False)))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for index in range(games):
                nursery.start_soon(one, index)
    return records, source.channels["a"] + source.channels["b"]


def spans_between(channels: Sequence[ScriptedChannel], begin: str, end: str
                  ) -> list[tuple[float, float]]:
    """Every (line starting ``begin``, next line starting ``end``) pair's times, on trio's
    clock, over all ``channels``."""
    spans: list[tuple[float, float]] = []
    for channel in channels:
        began: float | None = None
        for at, line in channel.log:
            if line.startswith(begin):
                began = at
            elif line.startswith(end) and began is not None:
                spans.append((began, at))
                began = None
    return spans


def searches(channels: Sequence[ScriptedChannel]) -> list[tuple[float, float]]:
    """Every search as (its ``go`` written, its ``bestmove`` printed), on trio's clock."""
    return spans_between(channels, "> go", "< bestmove")


def most_at_once(spans: Sequence[tuple[float, float]]) -> int:
    """The most searches running at one moment (one that ends as another begins: not both)."""
    events = sorted([(end, -1) for _, end in spans] + [(start, 1) for start, _ in spans])
    running = most = 0
    for _, step in events:
        running += step
        most = max(most, running)
    return most


def check_played_out(records: Sequence[GameRecord], games: int) -> None:
    assert len(records) == games
    for record in records:
        assert record.termination == Termination.ADJUDICATION, record.reason
        assert record.plies == PLIES


async def test_one_slot_lets_one_bot_think_at_a_time_and_no_game_forfeits(
        autojump_clock: MockClock) -> None:
    """K=1, three timed games at once: no two searches overlap, and although each answer
    takes most of the move time and the games wait for each other, none forfeits: the wait
    comes before the ``go``, and each move is charged its own 80 ms."""
    records, channels = await play_at_once(3, ThinkSlots(1))
    check_played_out(records, 3)
    spans = searches(channels)
    assert len(spans) == 3 * PLIES
    assert most_at_once(spans) == 1
    for record in records:
        assert {move.elapsed_ms for move in record.moves} == {THINK_S * 1000}


async def test_without_slots_the_same_games_think_at_once(autojump_clock: MockClock) -> None:
    """The control of the test above: the same three games without slots search at once."""
    records, channels = await play_at_once(3, None)
    check_played_out(records, 3)
    assert most_at_once(searches(channels)) == 3
    assert all(side.slot_wait is None for record in records
               for side in (record.latency.sides if record.latency else []))


async def test_two_slots_let_two_bots_think_at_once(autojump_clock: MockClock) -> None:
    records, channels = await play_at_once(3, ThinkSlots(2))
    check_played_out(records, 3)
    assert most_at_once(searches(channels)) == 2


async def test_moves_limited_by_nodes_alone_are_not_gated(autojump_clock: MockClock) -> None:
    """No clock, nothing to gate: with one slot the three games still search at once, and no
    game's record has a wait."""
    records, channels = await play_at_once(3, ThinkSlots(1), tc="inf nodes=1000")
    check_played_out(records, 3)
    assert most_at_once(searches(channels)) == 3
    for record in records:
        assert record.latency is not None
        assert all(side.slot_wait is None for side in record.latency.sides)


async def test_the_clocks_do_not_run_while_a_game_waits(autojump_clock: MockClock) -> None:
    """Sudden death, 1 s each, one slot for three games: every move is charged its 80 ms and
    the clock falls by exactly that, though the games waited longer than that between
    moves."""
    records, _ = await play_at_once(3, ThinkSlots(1), tc="1")
    check_played_out(records, 3)
    for record in records:
        left = [1000.0, 1000.0]
        for move in record.moves:
            left[move.side] -= THINK_S * 1000
            assert move.elapsed_ms == THINK_S * 1000
            assert move.clock_ms == pytest.approx(left[move.side])
    waits = [side.slot_wait for record in records
             for side in (record.latency.sides if record.latency else [])]
    assert all(wait is not None for wait in waits)
    assert max(wait.max_ms for wait in waits if wait is not None) >= 2 * THINK_S * 1000


async def test_the_latency_record_shows_the_wait_apart_from_the_referee(
        autojump_clock: MockClock) -> None:
    """The wait for a slot is recorded per side (every gated move counted), and the referee's
    own turnaround does not include it (the referee takes no time on the mock clock)."""
    records, _ = await play_at_once(3, ThinkSlots(1))
    longest = 0.0
    for record in records:
        assert record.latency is not None
        for side in record.latency.sides:
            assert side.slot_wait is not None and side.slot_wait.n == PLIES // 2
            assert side.turnaround is None or side.turnaround.max_ms == 0.0
            longest = max(longest, side.slot_wait.max_ms)
    # Three games, one slot: the last game in line waits for the two searches before it.
    assert longest == pytest.approx(2 * THINK_S * 1000)


async def test_a_slot_is_given_back_when_the_move_fails(autojump_clock: MockClock) -> None:
    """A bot that never answers loses on time and frees its slot: the other game goes on."""

    def hang(legal: Sequence[str], made: int) -> list[Answer]:
        return []

    slots = ThinkSlots(1)
    hanger = ScriptedBot("h", lambda: NativeBot(hang, name="h"))
    a, b = thinker("a"), thinker("b")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            results: list[GameRecord] = []

            async def game(p1: ScriptedBot, p2: ScriptedBot) -> None:
                results.append(await play_scripted(
                    "dobutsu", p1, p2, tc=MOVE_TIME, slots=slots,
                    adjudication=Adjudication(max_plies=PLIES, draw_rules=False)))

            nursery.start_soon(game, hanger, a)
            nursery.start_soon(game, a, b)
    terminations = sorted(str(record.termination) for record in results)
    assert terminations == ["adjudication", "time-forfeit"]
    assert slots.thinking == 0 and slots.waiting == 0


LOAD_S = 0.15
"""Each scripted bot's start: an engine loading its tables before it reads a line."""


class LoadingBots(ScriptedBots):
    """Scripted bots that each take :data:`LOAD_S` to start; ``loads`` keeps every start as
    (began, ended) on trio's clock."""

    def __init__(self, *bots: ScriptedBot) -> None:
        super().__init__(*bots)
        self.loads: list[tuple[float, float]] = []

    async def acquire(self, spec: BotSpec, game_id: str) -> BotConnection:
        began = trio.current_time()
        await trio.sleep(LOAD_S)
        self.loads.append((began, trio.current_time()))
        return await super().acquire(spec, game_id)


async def test_a_bot_starting_for_a_timed_game_takes_a_slot(autojump_clock: MockClock) -> None:
    """Two slots, three timed games whose six bots each take 150 ms to start: never more than
    two bots busy at once, starting or searching, so no search shares its core with an engine
    loading (the run that showed it: 60 of 64 games at 32 at once forfeited on their first
    move out of the book, every engine of the first games loading at once)."""
    slots = ThinkSlots(2)
    source = LoadingBots(thinker("a"), thinker("b"))
    records, channels = await play_at_once(3, slots, MOVE_TIME, source)
    check_played_out(records, 3)
    assert len(source.loads) == 6
    assert most_at_once(source.loads) == 2
    assert most_at_once(list(source.loads) + searches(channels)) == 2
    assert slots.thinking == 0


async def test_bots_of_untimed_games_start_at_once(autojump_clock: MockClock) -> None:
    """The control: the same games limited by nodes alone start all six bots at once."""
    source = LoadingBots(thinker("a"), thinker("b"))
    records, _ = await play_at_once(3, ThinkSlots(2), "inf nodes=1000", source)
    check_played_out(records, 3)
    assert most_at_once(source.loads) == 6


RESET_S = 0.05
"""Each scripted bot's reset for a new game: its ``readyok`` comes that much later."""


def resetter(name: str) -> ScriptedBot:
    """A :func:`thinker` whose every ``uginewgame`` takes :data:`RESET_S`."""

    def move(legal: Sequence[str], made: int) -> list[Answer]:
        return [Later(THINK_S, f"bestmove {legal[0]}")]

    return ScriptedBot(name, lambda: NativeBot(move, name=name, reset_seconds=RESET_S))


def resets(channels: Sequence[ScriptedChannel]) -> list[tuple[float, float]]:
    """Every reset as (its ``uginewgame`` written, the ``readyok`` after it printed)."""
    return spans_between(channels, "> uginewgame", "< readyok")


async def test_a_reset_for_a_timed_game_takes_a_slot(autojump_clock: MockClock) -> None:
    """One slot, three timed games whose bots take 50 ms to reset: no reset overlaps a
    search or another reset (a fresh engine's first reset touches its whole hash: at 32 games
    at once, those resets beside the first searches lost games on time)."""
    source = ScriptedBots(resetter("a"), resetter("b"))
    records, channels = await play_at_once(3, ThinkSlots(1), MOVE_TIME, source)
    check_played_out(records, 3)
    assert len(resets(channels)) == 6
    assert most_at_once(resets(channels) + searches(channels)) == 1


async def test_resets_of_untimed_games_overlap(autojump_clock: MockClock) -> None:
    source = ScriptedBots(resetter("a"), resetter("b"))
    records, channels = await play_at_once(3, ThinkSlots(1), "inf nodes=1000", source)
    check_played_out(records, 3)
    assert most_at_once(resets(channels)) > 1


def test_zero_slots_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        ThinkSlots(0)


# ----------------------------------------------------------------------------- the run's K
def test_the_run_s_slots_are_shared_out_over_its_referee_processes() -> None:
    assert referees_for(None, 32, cores=2, think_slots=2) == Referees(1, 32, 2)
    assert referees_for(2, 32, cores=2, think_slots=2) == Referees(2, 16, 1)
    assert referees_for(2, 32, cores=2, think_slots=5) == Referees(2, 16, 2)  # rounded down
    assert referees_for(4, 32, cores=2, think_slots=2) == Referees(4, 8, 1)  # at least 1
    # No more games at once than slots: one bot per game thinks at a time, no gate needed.
    assert referees_for(None, 2, cores=2, think_slots=2) == Referees(1, 2, 0)
    assert referees_for(None, 32, cores=2, think_slots=0) == Referees(1, 32, 0)  # no limit
    assert think_slots_for(3) == 3 and think_slots_for(0) == 0
    assert think_slots_for(None) >= 1  # the cores this process may use
    assert think_slots_for(4, timed=False) == 0  # no clock: nothing to gate
    with pytest.raises(UserError, match="think slots -1: expected 0 .no limit. or a positive"):
        think_slots_for(-1)


# ----------------------------------------------------------------------------- real processes
HEAD = ('game = "dobutsu"\ntc = "st=1 timemargin=500"\nconcurrency = 3\n'
        "games_per_pairing = 6\n[adjudication]\nmax_plies = 8\n")
"""Six games, three at once, a generous move time: a busy machine forfeits none of them."""


def delayed_bots() -> list[str]:
    return [bot(f"slow{i}", BOTS / "runner_first_bot.py", "--delay", "0.05") for i in (1, 2)]


@pytest.mark.slow
@pytest.mark.parametrize(("extra", "said"), [
    (("--think-slots", "1", "--referees", "1"), "3 games at once, at most 1 bot thinking at a "
                                               "time"),
    (("--think-slots", "2", "--referees", "2"), "3 games at once, at most 2 bots thinking at a "
                                               "time, 1 per referee process"),
], ids=["referees-1", "referees-2"])
def test_a_run_under_think_slots_journals_every_game_with_its_waits(
        tmp_path: Path, extra: tuple[str, ...], said: str) -> None:
    """Real bot processes, three games at once and one slot per referee process: every game is
    played and journaled, and each record counts every searched move as gated."""
    out = tmp_path / "out"
    done = arena_run(write_config(tmp_path, HEAD, delayed_bots()), out, *extra)
    assert done.returncode == 0, done.stderr
    assert said in done.stdout, done.stdout
    records = check_complete(out)
    assert len(records) == 6
    waited = 0.0
    for record in records:
        assert record.termination != Termination.TIME_FORFEIT, record.reason
        assert record.latency is not None
        for side, latency in enumerate(record.latency.sides):
            searched = sum(1 for move in record.moves if move.side == side and not move.book)
            assert latency.slot_wait is not None and latency.slot_wait.n == searched
            waited = max(waited, latency.slot_wait.max_ms)
    assert waited > 0  # three games, one slot: some move waited


@pytest.mark.slow
def test_no_limit_and_a_negative_limit(tmp_path: Path) -> None:
    """``--think-slots 0`` gates nothing (no wait recorded, nothing said); a negative number
    is a one-line error."""
    config = write_config(tmp_path, HEAD, delayed_bots())
    out = tmp_path / "out"
    done = arena_run(config, out, "--think-slots", "0")
    assert done.returncode == 0, done.stderr
    assert "thinking at a time" not in done.stdout
    for record in check_complete(out):
        assert record.latency is not None
        assert all(side.slot_wait is None for side in record.latency.sides)
    refused = arena_run(config, tmp_path / "other", "--think-slots", "-2")
    assert refused.returncode == 2
    assert "think slots -2: expected 0 (no limit) or a positive number" in refused.stderr


def test_a_cluster_worker_with_more_threads_than_cores_says_so() -> None:
    """A worker thread plays one game at a time: one with no more threads than cores needs no
    gate, one with more says, once, that its bots share cores."""
    import os

    from arena.cluster.worker import _note_threads
    from referee.process.sandbox import warnings_given

    cores = len(os.sched_getaffinity(0))
    _note_threads("tcp://fits:1", cores)
    assert not any("tcp://fits:1" in text for text in warnings_given())
    _note_threads("tcp://crowded:1", cores + 3)
    said = [text for text in warnings_given() if "tcp://crowded:1" in text]
    assert said == [f"worker tcp://crowded:1: {cores + 3} threads on {cores} cores: up to "
                    f"{cores + 3} bots think on a clock at once there; start it with "
                    f"--nthreads {cores} (or fewer) for a core per thinking bot"]
