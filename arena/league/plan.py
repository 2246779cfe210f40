"""What a night plays: its budget, its placement games, then the pairings chosen as the
ratings sharpen, each game written to ``plan.jsonl`` before it is played.

A night's games cannot be listed in advance as a tournament's can (each block of pairings
follows the ratings of the games before it), so resume rests on the plan instead of a
schedule: a game is planned (fsync'd) before any worker takes it, and a resumed night plays
the planned games missing from its journal first, in their order, then plans more. A game
killed in flight is thus played again, and no game is played twice.

The deadline is kept game by game: a game starts only when the lengths of the league's past
games (their 95th percentile) say it ends before the deadline. A league that has finished no
game yet has no such history: its first games start (the most a time control allows, both
clocks run down, is far longer than a game takes, and would keep a first night from starting
at all), and from the first finished game on the history decides.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import msgspec

from arena.formats.schedule import ScheduledGame, book_openings, random_opening
from arena.leaguedir.leaguetoml import Policy
from arena.openings import Opening
from arena.settings.config import LoadedConfig
from ratings.sources import GameResult
from ratings.tally import Tally, merge, tally

LENGTH_QUANTILE: Final = 0.95
"""Which of the past game lengths a game is expected to need, for the deadline."""
BLOCK_PAIRS_MIN: Final = 4
"""Colour pairs chosen at a time (at least; more when more games run at once): the ratings are
refitted between blocks."""



class Budget(msgspec.Struct, frozen=True, omit_defaults=True):
    """When a night stops planning games."""

    games: int | None = None
    """Games in the night, the journaled and the planned counted."""
    deadline: float | None = None
    """No game starts that cannot finish before this (seconds since the epoch)."""


class NightState(msgspec.Struct, omit_defaults=True):
    """``night.json``: written when the night begins, rewritten when it closes."""

    name: str
    started_at: float
    versions: list[str]
    """The versions that play this night (labels), fixed when it begins."""
    newcomers: list[str]
    """Those that had played no game in the league before it (placement first)."""
    budget: Budget
    closed_at: float | None = None


def planned_games(path: Path) -> list[ScheduledGame]:
    """The plan so far; a torn last line (killed while planning) is dropped, since its game
    was never handed to a worker."""
    if not path.is_file():
        return []
    decoder = msgspec.json.Decoder(ScheduledGame)
    games: list[ScheduledGame] = []
    lines = path.read_bytes().split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            games.append(decoder.decode(line))
        except msgspec.DecodeError as exc:
            if number == len(lines):
                break
            raise ValueError(f"{path}:{number}: not a planned game ({exc})") from None
    return games


@dataclass
class Planner:
    """The night's games, one at a time (an iterator for :class:`arena.run.runner.Tournament`)."""

    loaded: LoadedConfig
    policy: Policy
    state: NightState
    plan_path: Path
    history: Tally
    """Every game of the closed nights (the night's own are added as they finish)."""
    lengths: list[float]
    """Past games' wall-clock lengths in seconds (a sample), for the deadline."""
    planned: list[ScheduledGame]
    done: set[str]
    """Ids of the night's games in its journal."""
    night_results: list[GameResult] = field(default_factory=list)
    clock: Callable[[], float] = time.time
    _pending_results: list[GameResult] = field(default_factory=list)
    _fit_tally: Tally | None = None
    _openings: list[Opening] | None = None

    # ----------------------------------------------------------------- the iterator
    def __iter__(self) -> Iterator[ScheduledGame]:
        for game in list(self.planned):
            if game.id not in self.done:
                yield game
        if not self.planned:
            yield from self._plan_pairs(self._placement(), round_no=1)
        while self._budget_left() > 0:
            pairs = self._choose(self._block_size())
            if not pairs:
                return
            yield from self._plan_pairs(pairs, round_no=2)

    def may_start(self, game: ScheduledGame) -> str | None:
        """A text when ``game`` cannot finish before the deadline (the night ends)."""
        deadline = self.state.budget.deadline
        if deadline is None:
            return None
        need = self.expected_length()
        now = self._now()
        if need is not None and now + need > deadline:
            return (f"deadline {time.strftime('%H:%M:%S', time.localtime(deadline))}: a game "
                    f"takes up to {need:.1f} s and {max(0.0, deadline - now):.1f} s are left")
        if now >= deadline:
            return "deadline reached"
        return None

    def record(self, result: GameResult | None, length: float | None) -> None:
        """A game of the night finished (called after it is journaled)."""
        if result is not None:
            self.night_results.append(result)
            self._pending_results.append(result)
        if length is not None:
            self.lengths.append(length)

    def expected_length(self) -> float | None:
        """The 95th percentile of past game lengths; None before any game has finished."""
        if not self.lengths:
            return None
        ordered = sorted(self.lengths)
        return ordered[min(len(ordered) - 1, int(LENGTH_QUANTILE * len(ordered)))]

    # ----------------------------------------------------------------- choosing
    def _now(self) -> float:
        return self.clock()

    def _budget_left(self, more: int = 0) -> float:
        """Games the budget still allows beyond the planned ones and ``more``."""
        budget = self.state.budget
        planned = len(self.planned) + more
        left = math.inf
        if budget.games is not None:
            left = budget.games - planned
        if budget.deadline is not None and self._now() >= budget.deadline:
            left = 0
        if budget.games is None and budget.deadline is None:
            left = self.policy.night_games - planned
        return left

    def _block_size(self) -> int:
        return max(BLOCK_PAIRS_MIN, self.loaded.config.concurrency)

    def current(self) -> Tally:
        """Every game so far: the closed nights' and this night's finished ones."""
        if self._fit_tally is None:
            self._fit_tally = merge([self.history, tally(self.night_results)])
            self._pending_results.clear()
        elif self._pending_results:
            self._fit_tally = merge([self._fit_tally, tally(self._pending_results)])
            self._pending_results.clear()
        return self._fit_tally

    def _field(self) -> object:
        from arena.league.pairing import Field
        from arena.leaguedir.standings import fit_tally

        everything = self.current()
        players = tuple(self.state.versions)
        rated = [p for p in everything.players if p in set(players)]
        # The prior, not the order: pairing needs a rating and a covariance for every version,
        # and an ordered-but-unscaled field (a young league's perfect ladder) has neither.
        fit = (fit_tally(everything, separated="prior") if len(rated) >= 2 and everything.games
               else None)
        return Field.from_fit(players, fit, met_counts(everything))

    def _placement(self) -> list[tuple[str, str]]:
        from arena.league.pairing import Field, placement

        if not self.state.newcomers:
            return []
        field_ = self._field()
        assert isinstance(field_, Field)
        return placement(self.state.newcomers, field_, self.policy.placement_opponents,
                         self.policy.placement_pairs)

    def _choose(self, count: int) -> list[tuple[str, str]]:
        from arena.league.pairing import Field, choose_pairs

        if len(self.state.versions) < 2:
            return []
        field_ = self._field()
        assert isinstance(field_, Field)
        rng = random.Random(f"{self.loaded.config.seed}:{self.state.name}:{len(self.planned)}")
        return choose_pairs(field_, count, rng, self.policy.pairing)

    # ----------------------------------------------------------------- planning
    def _plan_pairs(self, pairs: Sequence[tuple[str, str]], round_no: int
                    ) -> Iterator[ScheduledGame]:
        """Each pair as two games, one opening, colours swapped, as many as the budget
        allows; the whole block is planned (fsync'd) before its first game is handed out, so
        that a night killed meanwhile plays all of it on resume."""
        block: list[ScheduledGame] = []
        for a, b in pairs:
            if self._budget_left(len(block)) <= 0:
                break
            number = (len(self.planned) + len(block)) // 2 + 1
            opening, index = self._opening(number)
            key = f"k{number:05d}"
            block.extend(
                ScheduledGame(id=f"{key}-g{g}", round=round_no, pairing=number, game_no=g,
                              p1=p1, p2=p2, opening=opening, pair=key, opening_index=index)
                for g, (p1, p2) in ((1, (a, b)), (2, (b, a)))
            )
        if block:
            append_plan(self.plan_path, block)
            self.planned.extend(block)
        yield from block

    def _opening(self, number: int) -> tuple[Opening, int | None]:
        config = self.loaded.config
        rng = random.Random(f"{config.seed}:{self.state.name}:{number}")
        if self.loaded.openings_file is not None:
            if self._openings is None:
                self._openings = book_openings(self.loaded)
            if config.openings is not None and config.openings.order == "sequential":
                index = (number - 1) % len(self._openings)
            else:
                index = rng.randrange(len(self._openings))
            return self._openings[index], index
        plies = config.openings.random_plies if config.openings else None
        if plies:
            return random_opening(config.game, plies, rng, self.loaded.game_options), None
        return Opening(), None


def met_counts(everything: Tally) -> dict[tuple[str, str], int]:
    """Games between each two players, keyed by the sorted pair."""
    met: dict[tuple[str, str], int] = {}
    for f, s, w, d, lo in everything.cells:
        a, b = sorted((everything.players[f], everything.players[s]))
        met[a, b] = met.get((a, b), 0) + w + d + lo
    return met


def append_plan(path: Path, games: Sequence[ScheduledGame]) -> None:
    """Add games to the plan and make them durable before any is played."""
    data = b"".join(msgspec.json.encode(g) + b"\n" for g in games)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
