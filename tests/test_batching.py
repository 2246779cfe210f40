"""Batches for cluster workers (``arena.cluster.batching``): one pairing each, colour pairs
together, sized from the time control and then from the games' real lengths, smaller near the end;
and records finished together journaled with one write."""

from __future__ import annotations

from pathlib import Path

from test_runner import RANDOM_BOT, bot, write_config

from arena.cluster.batching import BATCH_SECONDS, BatchPlanner, guess_game_seconds, pair_key
from arena.formats.schedule import ScheduledGame, build_schedule
from arena.rundir.journal import Journal, load
from arena.settings.config import load_config
from referee.record import GameRecord, Termination
from referee.timecontrol import TimeControl


def _games(tmp: Path, bots: int = 3, per_pairing: int = 8) -> list[ScheduledGame]:
    head = f'game = "dobutsu"\ntc = "10+0.1"\ngames_per_pairing = {per_pairing}\n'
    config = write_config(tmp, head, [bot(f"b{i}", RANDOM_BOT) for i in range(bots)])
    return list(build_schedule(load_config(config)).games)


def test_a_batch_holds_one_pairing_and_whole_colour_pairs(tmp_path: Path) -> None:
    games = _games(tmp_path)
    planner = BatchPlanner(games, guess_s=None)
    given: list[ScheduledGame] = []
    while batch := planner.next_batch(slots=1):
        assert len({pair_key(g) for g in batch}) == 1
        pairs = {g.pair for g in batch}
        assert all(sum(g.pair == p for g in batch) == 2 for p in pairs)  # both colours
        given += batch
    assert sorted(g.id for g in given) == sorted(g.id for g in games)  # each game once
    # Each batch starts with the earliest game not given out yet: the schedule's order holds.
    assert given[0].id == games[0].id


def test_the_size_follows_the_games_lengths_and_shrinks_at_the_end(tmp_path: Path) -> None:
    games = _games(tmp_path, bots=2, per_pairing=400)
    planner = BatchPlanner(games, guess_s=None)
    assert planner.size(slots=2) == 4  # nothing known yet: small
    for _ in range(50):
        planner.observe(1.0)
    assert planner.size(slots=2) == 30  # BATCH_SECONDS of one-second games
    assert BATCH_SECONDS == 30
    for _ in range(50):
        planner.observe(0.001)
    assert planner.size(slots=2) == 64  # capped
    taken = 0
    while taken < 390:
        taken += len(planner.next_batch(slots=2))
    assert planner.size(slots=2) <= 4  # the last games go to every slot
    assert BatchPlanner(games, guess_s=1.0, cap=1).size(slots=2) == 1  # one task per game


def test_an_iterator_gives_consecutive_games_of_one_pairing(tmp_path: Path) -> None:
    games = _games(tmp_path, per_pairing=2)  # p1, p2, p3 pairs, one after the other
    asked: list[str] = []

    def night() -> object:
        for game in games:
            asked.append(game.id)
            yield game

    planner = BatchPlanner(night(), guess_s=1.0)  # type: ignore[arg-type]
    batches = []
    while batch := planner.next_batch(slots=1):
        batches.append([g.id for g in batch])
    assert [g for b in batches for g in b] == [g.id for g in games]
    assert all(len({pair_key(g) for g in games if g.id in b}) == 1 for b in batches)
    assert len(asked) == len(games)  # each game decided once


def test_guessed_game_lengths() -> None:
    assert guess_game_seconds(TimeControl.parse("2+0.05")) == 2 + 60 * 0.05
    assert guess_game_seconds(TimeControl.parse("st=0.1")) == 6.0
    assert guess_game_seconds(TimeControl.parse("nodes=1000")) is None
    assert guess_game_seconds(None) is None


def test_records_finished_together_are_one_write(tmp_path: Path, monkeypatch: object) -> None:
    import os

    path = tmp_path / "games.jsonl"
    journal = Journal.open(path, print)
    writes: list[int] = []
    real = os.write

    def counting(fd: int, data: bytes) -> int:
        writes.append(len(data))
        return real(fd, data)

    monkeypatch.setattr(os, "write", counting)  # type: ignore[attr-defined]
    records = [GameRecord(game="dobutsu", p1="a", p2="b", result="1-0", id=f"g{i}",
                          termination=Termination.NORMAL, reason="test") for i in range(5)]
    journal.append_sync(records)
    assert len(writes) == 1 and journal.count == 5 and journal.ids() == {f"g{i}" for i in range(5)}
    assert [r.id for r in load(path, print)] == [f"g{i}" for i in range(5)]
