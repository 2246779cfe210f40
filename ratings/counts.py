"""Results aggregated into per-pair-per-colour counts: the only input the rating fit needs.

A million games between a hundred players collapse into at most 9,900 cells (first mover,
second mover, wins, draws, losses), so every later step costs the number of pairings, not the
number of games. Aggregation is one ``np.bincount``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ratings.sources import GameResult

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import ArrayLike, NDArray

    IntArray = NDArray[np.int64]
    FloatArray = NDArray[np.float64]


_DENSE_LIMIT = 3_000_000
"""Above this many (pair, outcome) slots, aggregate by sorting rather than a dense table."""


@dataclass(frozen=True)
class Counts:
    """Per ordered pair (first mover, second mover): the first mover's wins, draws and losses.

    ``players`` may include players without games (they are listed but not rated).
    """

    players: list[str]
    first: IntArray
    second: IntArray
    wins: FloatArray
    draws: FloatArray
    losses: FloatArray

    @property
    def games(self) -> FloatArray:
        result: FloatArray = self.wins + self.draws + self.losses
        return result

    @property
    def points(self) -> FloatArray:
        """The first mover's points in each cell."""
        result: FloatArray = self.wins + 0.5 * self.draws
        return result

    def played(self) -> FloatArray:
        """Games played by each player."""
        n = len(self.players)
        g = self.games
        result = np.asarray(
            np.bincount(self.first, g, n) + np.bincount(self.second, g, n), dtype=np.float64
        )
        return result

    def scored(self) -> FloatArray:
        """Points scored by each player."""
        n = len(self.players)
        first = np.bincount(self.first, self.points, n)
        second = np.bincount(self.second, self.games - self.points, n)
        result = np.asarray(first + second, dtype=np.float64)
        return result

    def total(self) -> int:
        return int(round(float(self.games.sum())))

    def swapped(self) -> Counts:
        """The same games with colours swapped (for checks of the first-move advantage)."""
        return Counts(self.players, self.second, self.first, self.losses, self.draws, self.wins)


def aggregate_arrays(
    players: Sequence[str], first: ArrayLike, second: ArrayLike, score: ArrayLike
) -> Counts:
    """Counts from parallel arrays: player indices and the first mover's score (1, 0.5, 0)."""
    n = len(players)
    f = np.asarray(first, dtype=np.int64)
    s = np.asarray(second, dtype=np.int64)
    sc = np.asarray(score, dtype=np.float64)
    if not (f.shape == s.shape == sc.shape):
        raise ValueError("first, second and score must have the same length")
    if f.size and (min(f.min(), s.min()) < 0 or max(f.max(), s.max()) >= n):
        raise ValueError("player index out of range")
    if np.any(f == s):
        raise ValueError("a player cannot play against itself")
    outcome = np.rint(sc * 2.0).astype(np.int64)  # 0 loss, 1 draw, 2 win
    if np.any((outcome < 0) | (outcome > 2)) or np.any(np.abs(sc * 2.0 - outcome) > 1e-9):
        raise ValueError("scores must be 0, 0.5 or 1")
    key = (f * n + s) * 3 + outcome
    if n * n * 3 <= _DENSE_LIMIT:
        dense = np.bincount(key, minlength=n * n * 3).reshape(n * n, 3).astype(np.float64)
        cells = np.flatnonzero(dense.sum(axis=1))
        table = dense[cells]
    else:  # many players: sort instead of a dense n*n table
        keys, numbers = np.unique(key, return_counts=True)
        cells, inverse = np.unique(keys // 3, return_inverse=True)
        table = np.zeros((cells.size, 3))
        np.add.at(table, (inverse, keys % 3), numbers)
    return Counts(
        list(players),
        (cells // n).astype(np.int64),
        (cells % n).astype(np.int64),
        table[:, 2].copy(),
        table[:, 1].copy(),
        table[:, 0].copy(),
    )


def aggregate(results: Iterable[GameResult], players: Sequence[str] = ()) -> Counts:
    """Counts from game results; ``players`` fixes the order and may add players without games.

    Players not in ``players`` are appended in order of first appearance.
    """
    names = list(players)
    index = {name: i for i, name in enumerate(names)}
    first: list[int] = []
    second: list[int] = []
    score: list[float] = []
    for game in results:
        for name in (game.first, game.second):
            if name not in index:
                index[name] = len(names)
                names.append(name)
        first.append(index[game.first])
        second.append(index[game.second])
        score.append(game.score)
    return aggregate_arrays(names, first, second, score)
