"""The runner fed round by round (:class:`arena.formats.schedule.RoundFeed`): a round's games are
handed out only once the round before it is journaled, tie-break pairs as soon as a match is tied,
and a game that fails stops the feed instead of leaving it waiting forever.

The games are played by an executor that answers after a few milliseconds with a scripted
result (the runner's seam for a cluster: batches of one pairing's games, each told as it
ends): the runner, the journal and the feed are real, no bot process is started (process
behaviour is not the point here; test_formats_run.py plays real games). Real time: the
executor answers after 5 ms, so the runs are short."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from test_formats import config as config_file

from arena.bots.pool import BotPool
from arena.cluster.batching import BatchEvents
from arena.formats.schedule import RoundFeed, build_schedule, results_of
from arena.run.progress import Progress
from arena.run.runner import Tournament
from arena.rundir.journal import Journal, iter_records
from arena.rundir.layout import RunDir
from arena.settings.config import LoadedConfig, load_config
from referee.order import GameOrder
from referee.record import GameRecord, Termination


def config(tmp_path: Path, body: str, bots: int) -> LoadedConfig:
    return load_config(config_file(tmp_path, body, bots))


class Scripted:
    """A cluster of three slots that plays each game of a batch in turn, in a few
    milliseconds: the first mover wins, unless the id is in ``results``; an id in ``failing``
    fails (a referee bug: the game is not journaled)."""

    batch_cap: int | None = None
    slots = 3

    def __init__(self, results: dict[str, str] | None = None,
                 failing: frozenset[str] = frozenset()) -> None:
        self.results = results or {}
        self.failing = failing
        self.started: list[tuple[float, str]] = []
        self.ended: dict[str, float] = {}

    def attach(self, changed: Callable[[], None]) -> None:
        pass

    async def watch(self) -> str:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    def stop(self) -> None:
        pass

    async def play_batch(self, orders: list[GameOrder], events: BatchEvents) -> None:
        for order in orders:
            events.started(order, "scripted")
            self.started.append((trio.current_time(), order.id))
            await trio.sleep(0.005)
            if order.id in self.failing:
                events.failed(order.id, "referee bug")
                continue
            self.ended[order.id] = trio.current_time()
            events.finished(GameRecord(
                id=order.id, game=order.game, p1=order.bots[0].name, p2=order.bots[1].name,
                result=self.results.get(order.id, "1-0"), termination=Termination.NORMAL,
                reason="", round=order.round))


async def run(tmp_path: Path, loaded: LoadedConfig, executor: Scripted) -> tuple[
        Tournament, list[GameRecord]]:
    out = RunDir(tmp_path / "out")
    out.logs.mkdir(parents=True)
    journal = Journal.open(out.journal, lambda text: None)
    feed = RoundFeed(loaded, {})
    tournament = Tournament(
        loaded=loaded, pending=feed, journal=journal, out=out,
        progress=Progress(title="t", names=[b.name for b in loaded.bots],
                          total=feed.schedule.total, out=io.StringIO(), live=False),
        on_record=feed.record, finished_bots=feed.finished_bots, concurrency=3,
        handle_signals=False, executor=executor)
    with trio.fail_after(120):  # a few seconds even on a busy machine
        await tournament.run()
    return tournament, list(iter_records(out.journal))


async def test_rounds_start_when_the_round_before_is_journaled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    retired: list[tuple[float, str]] = []

    async def retire(pool: BotPool, name: str) -> None:
        retired.append((trio.current_time(), name))

    monkeypatch.setattr(BotPool, "retire", retire)
    loaded = config(tmp_path, 'format = "knockout"\ntiebreak_pairs = 1', bots=5)
    # round 1: b4-b5, a 1-1 tie (each wins with the first move), then the tie-break pair
    # 1.5-0.5 for b5; b1, b2, b3 have byes
    executor = Scripted({"r1-p01-g2": "1-0", "r1-p01-g3": "1/2-1/2", "r1-p01-g4": "1-0"})
    tournament, records = await run(tmp_path, loaded, executor)
    assert tournament.result.failed == [] and tournament.result.stop_reason is None
    final = build_schedule(loaded, results_of(records))
    assert final.final and sorted(r.id for r in records) == sorted(final.ids())
    rounds = {r.id: r.round for r in records}
    for started, game_id in executor.started:
        before = [g for g, n in rounds.items() if n < rounds[game_id]]
        assert all(executor.ended[g] <= started for g in before), game_id
    assert [g for _, g in executor.started][:3] == ["r1-p01-g1", "r1-p01-g2", "r1-p01-g3"]
    semis = {(r.p1, r.p2) for r in records if r.round == 2 and r.id.endswith("g1")}
    assert semis == {("b1", "b5"), ("b2", "b3")}
    # the losers' processes end when their round is decided, not when the run ends
    out_at = {name: at for at, name in retired}
    finalists = {r.p1 for r in records if r.round == 3}
    semi_losers = {"b1", "b2", "b3", "b5"} - finalists
    assert len(finalists) == 2 and len(semi_losers) == 2
    assert len(out_at) == 4 and set(out_at) >= {"b4"} | semi_losers  # all but the winner
    assert out_at["b4"] <= min(at for at, g in executor.started if g.startswith("r2"))
    final_start = min(at for at, g in executor.started if g.startswith("r3"))
    assert all(out_at[name] <= final_start for name in semi_losers)


async def test_a_failed_game_stops_the_feed_instead_of_waiting(tmp_path: Path) -> None:
    loaded = config(tmp_path, 'format = "swiss"\nrounds = 3', bots=4)
    executor = Scripted(failing=frozenset({"r1-p02-g2"}))
    tournament, records = await run(tmp_path, loaded, executor)
    assert tournament.result.failed == ["r1-p02-g2"]
    assert tournament.result.stop_reason is not None
    assert "failed" in tournament.result.stop_reason
    assert sorted(r.id for r in records) == ["r1-p01-g1", "r1-p01-g2", "r1-p02-g1"]
    assert all(not g.startswith("r2") for _, g in executor.started)
