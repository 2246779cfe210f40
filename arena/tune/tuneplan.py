"""A tune as a source of games for the run driver: SPSA's iterations, then the proof.

:class:`TunePlanner` is an iterator of games, as a league night's planner is
(:class:`arena.run.runner.Tournament` asks it for the next game when a worker is free):

1. the tuning: iteration ``k`` is one colour pair (``tKKKKK-g1`` and ``-g2``, one opening,
   colours swapped) of the bot with ``θ + c_k Δ`` (``BOT.plus``) against itself with
   ``θ - c_k Δ`` (``BOT.minus``), planned from the ``θ`` of that moment; with several games
   at once, iterations overlap and each updates ``θ`` when its second game is journaled
   (fishtest's workers do the same). It stops after the schedule's iterations, or when the
   ``minutes`` are spent;
2. once every planned iteration is updated, the tuned values are fixed (:class:`Tuned`) and
   written as a bots-file entry, and the proof begins: ``BOT.tuned`` against ``BOT.start``
   in colour pairs (``pNNNNN-g1``/``-g2``) until its SPRT closes (:mod:`arena.tune.proof`).

What a resume needs is in the tune log (:mod:`arena.rundir.tunelog`) and the journal: a
planned iteration's missing games are played with the values it was planned with, and an
iteration whose games are journaled but whose update is not is updated once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

import msgspec

from arena.formats.schedule import ScheduledGame, book_openings, order_for, random_opening
from arena.openings import Opening
from arena.rundir.layout import RunDir
from arena.rundir.tunelog import Began, Planned, Tuned, TuneLog, Updated, append_tune_records
from arena.settings.config import LoadedConfig, TuneConfig
from arena.tune.proof import Proof
from arena.tune.spsa import Gains, Param, flips, perturb, sent_values, update
from ratings.sources import first_mover_points
from ratings.verdict import VerdictSettings
from referee.order import GameOrder
from referee.record import GameRecord

PLUS: Final = "plus"
MINUS: Final = "minus"
TUNED: Final = "tuned"
START: Final = "start"
SIDES: Final = (PLUS, MINUS, TUNED, START)


def side_name(bot: str, side: str) -> str:
    """The name a side plays under (``greedy.plus``), in the journal and the report."""
    return f"{bot}.{side}"


def tune_loaded(loaded: LoadedConfig, bot: str) -> LoadedConfig:
    """The config as the games see it: the tuned bot four times, once per side's name."""
    spec = next(b for b in loaded.bots if b.name == bot)
    tc = loaded.time_controls[bot]
    bots = tuple(msgspec.structs.replace(spec, name=side_name(bot, s)) for s in SIDES)
    return msgspec.structs.replace(loaded, bots=bots,
                               time_controls={b.name: tc for b in bots})


def pair_ids(key: str) -> tuple[str, str]:
    return f"{key}-g1", f"{key}-g2"


def tune_key(k: int) -> str:
    return f"t{k:05d}"


def proof_key(n: int) -> str:
    return f"p{n:05d}"


@dataclass
class TunePlanner:
    """The tune's games, one at a time, and what it makes of each journaled one."""

    loaded: LoadedConfig
    """The config as the games see it (:func:`tune_loaded`)."""
    tune: TuneConfig
    params: Sequence[Param]
    out: RunDir
    log: TuneLog
    done: dict[str, float]
    """Journaled games of this tune: id -> the first mover's points."""
    clock: Callable[[], float] = time.time
    gains: Gains = field(init=False)
    theta: tuple[float, ...] = field(init=False)
    proof: Proof = field(init=False)
    _openings: list[Opening] | None = field(init=False, default=None)
    _proof_pairs: set[str] = field(init=False, default_factory=set)
    _tuning_games: int = field(init=False, default=0)
    """Tuning games journaled (an update's place on the report's x axis)."""

    def __post_init__(self) -> None:
        tune = self.tune
        self.gains = Gains.for_iterations(tune.games // 2, tune.a_ratio, tune.alpha, tune.gamma)
        self.theta = (tuple(self.log.updated[-1].theta) if self.log.updated
                      else tuple(p.start for p in self.params))
        proof = tune.proof
        self.proof = Proof(VerdictSettings(proof.elo0, proof.elo1, proof.alpha, proof.beta,
                                           proof.max_games))
        if self.log.began is None:
            self.log.began = Began(bot=tune.bot, options=[p.name for p in self.params],
                                   start=[p.start for p in self.params],
                                   c=[p.c_end for p in self.params],
                                   iterations=self.gains.iterations,
                                   seed=self.loaded.config.seed, at=self.clock(),
                                   proof=[proof.elo0, proof.elo1, proof.alpha, proof.beta])
            append_tune_records(self.out.tune_log, [self.log.began])
        # Iterations whose games were journaled before their update was written: once, now.
        for k in sorted(self.log.planned):
            self._update_if_played(k)
        if self.log.tuned is None and self._tuning_over():
            self._finish_tuning()

    # ------------------------------------------------------------------ the iterator
    def __iter__(self) -> Iterator[ScheduledGame | None]:
        for k in sorted(self.log.planned):
            if k not in self.log.updated_ks:
                yield from self._missing(tune_key(k), PLUS, MINUS, k)
        k = max(self.log.planned, default=0) + 1
        while self.log.tuned is None and k <= self.gains.iterations and not self.out_of_time():
            self._plan(k)
            yield from self._missing(tune_key(k), PLUS, MINUS, k)
            k += 1
        while self.log.tuned is None:
            if self._tuning_over():
                self._finish_tuning()
                break
            yield None  # the last iterations' games are still being played
        n = 1
        while not self.proof.closed:
            if 2 * (n - 1) >= self.proof.settings.max_games:
                yield None  # every pair handed out: wait for the last results
                continue
            yield from self._missing(proof_key(n), TUNED, START, n)
            n += 1

    def _missing(self, key: str, first: str, second: str, number: int
                 ) -> Iterator[ScheduledGame]:
        opening, index = self._opening(key, number)
        bot = self.tune.bot
        for g, (p1, p2) in enumerate(((first, second), (second, first)), start=1):
            game_id = f"{key}-g{g}"
            if game_id not in self.done:
                yield ScheduledGame(id=game_id, round=1 if key[0] == "t" else 2,
                                    pairing=number, game_no=g, p1=side_name(bot, p1),
                                    p2=side_name(bot, p2), opening=opening, pair=key,
                                    opening_index=index)

    def _opening(self, key: str, number: int) -> tuple[Opening, int | None]:
        """The pair's opening: from the book (in order, or drawn by the seed), else random
        plies, else the start position (a league night's rule)."""
        config = self.loaded.config
        rng = random.Random(f"{config.seed}:tune:{key}")
        if self.loaded.openings_file is not None:
            if self._openings is None:
                self._openings = book_openings(self.loaded)
            if config.openings is not None and config.openings.order == "random":
                index = rng.randrange(len(self._openings))
            else:
                index = (number - 1) % len(self._openings)
            return self._openings[index], index
        plies = config.openings.random_plies if config.openings else None
        if plies:
            return random_opening(config.game, plies, rng, self.loaded.game_options), None
        return Opening(), None

    # ------------------------------------------------------------------ the tuning
    def out_of_time(self) -> bool:
        minutes = self.tune.minutes
        assert self.log.began is not None
        return minutes is not None and self.clock() >= self.log.began.at + 60.0 * minutes

    def _plan(self, k: int) -> None:
        signs = flips(self.loaded.config.seed, k, len(self.params))
        sides = perturb(self.params, self.gains, self.theta, k, signs)
        planned = Planned(k=k, flips=list(signs), plus=list(sides.plus),
                          minus=list(sides.minus), games=list(pair_ids(tune_key(k))))
        append_tune_records(self.out.tune_log, [planned])  # durable before it is played
        self.log.planned[k] = planned

    def _tuning_over(self) -> bool:
        planned = self.log.planned
        updated = self.log.updated_ks
        if any(k not in updated for k in planned):
            return False
        return len(planned) >= self.gains.iterations or self.out_of_time()

    def _update_if_played(self, k: int) -> None:
        if k in self.log.updated_ks:
            return
        first, second = pair_ids(tune_key(k))
        if first not in self.done or second not in self.done:
            return
        # g1: plus moves first; g2: minus moves first.
        plus_points = self.done[first] + (1.0 - self.done[second])
        result = 2.0 * (plus_points - 1.0)
        planned = self.log.planned[k]
        self.theta = update(self.params, self.gains, self.theta, k, planned.flips, result)
        record = Updated(k=k, result=result, theta=list(self.theta), games=self._tuning_games)
        append_tune_records(self.out.tune_log, [record])
        self.log.updated.append(record)

    def _finish_tuning(self) -> None:
        tuned = Tuned(theta=list(self.theta), values=list(sent_values(self.params, self.theta)),
                      iterations=len(self.log.updated))
        append_tune_records(self.out.tune_log, [tuned])
        self.log.tuned = tuned

    # ------------------------------------------------------------------ journaled games
    def record(self, record: GameRecord) -> None:
        """A game of the tune was journaled (in journal order, on resume too)."""
        try:
            points = first_mover_points(record.result)
        except ValueError:
            return
        if points is None:
            return
        if record.id in self.done:
            return
        self.done[record.id] = points
        key = record.id.split("-", 1)[0]
        if key.startswith("t") and key[1:].isdigit():
            self._tuning_games += 1
            self._update_if_played(int(key[1:]))
        elif key.startswith("p") and key not in self._proof_pairs:
            first, second = pair_ids(key)
            if first in self.done and second in self.done:
                self._proof_pairs.add(key)
                # g1: tuned moves first; g2: start moves first.
                self.proof.add([(self.done[first], 1.0 - self.done[second])])

    def stop_when(self, records: list[GameRecord]) -> str | None:
        """Stop handing out games once the proof has closed."""
        if self.proof.closed and self.proof.verdict is not None:
            return f"proof closed: {self.proof.verdict.describe()}"
        return None

    # ------------------------------------------------------------------ the orders
    def order(self, game: ScheduledGame) -> GameOrder:
        """The game's order, each side with its own values of the tuned options."""
        base = order_for(self.loaded, game)
        key = game.pair
        number = int(key[1:])
        if key.startswith("t"):
            planned = self.log.planned[number]
            values = {side_name(self.tune.bot, PLUS): planned.plus,
                      side_name(self.tune.bot, MINUS): planned.minus}
        else:
            assert self.log.tuned is not None
            values = {side_name(self.tune.bot, TUNED): self.log.tuned.values,
                      side_name(self.tune.bot, START): list(
                          sent_values(self.params, [p.start for p in self.params]))}
        first, second = (
            msgspec.structs.replace(spec, options={
                **spec.options, **{p.name: v for p, v in zip(self.params, values[spec.name],
                                                             strict=True)}})
            for spec in base.bots)
        return msgspec.structs.replace(base, bots=(first, second))
