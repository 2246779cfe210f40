"""A set of games folded into counts that can be stored, merged and fitted: what a league keeps
of each closed night instead of re-reading its games.

A :class:`Tally` holds, per ordered pair (first mover, second mover), the first mover's wins,
draws and losses (all the rating fit needs: :meth:`Tally.counts`), and per unordered pair the
pentanomial counts of its colour pairs (the head-to-head's error bars). Its size grows with
the pairs that met, not with the games: a night of a million games between fifty versions is
a few thousand numbers. Tallies of several nights merge by adding cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec
import numpy as np

from ratings.counts import Counts, aggregate
from ratings.pairwise import PairStats, Pentanomial, colour_pairs
from ratings.sources import GameResult

PENTA_FIELDS = ("ll", "ld", "wl", "dd", "wd", "ww")


class Tally(msgspec.Struct, frozen=True, omit_defaults=True):
    """Counts of games between named players."""

    players: list[str] = []
    cells: list[tuple[int, int, int, int, int]] = []
    """(first mover, second mover, first mover's wins, draws, losses), players by index."""
    pentanomial: list[tuple[int, int, int, int, int, int, int, int]] = []
    """(a, b, ll, ld, wl, dd, wd, ww) from ``a``'s point of view, ``a < b`` by index."""
    unpaired: list[tuple[int, int, int]] = []
    """(a, b, games of that pair that could not be matched into colour pairs), ``a < b``."""

    @property
    def games(self) -> int:
        return sum(w + d + lo for _, _, w, d, lo in self.cells)

    def counts(self, players: Sequence[str] = ()) -> Counts:
        """The rating fit's input; ``players`` fixes the order and may add players."""
        names = list(players) + [p for p in self.players if p not in set(players)]
        index = {name: i for i, name in enumerate(names)}
        remap = np.array([index[p] for p in self.players], dtype=np.int64)
        table = np.array(self.cells, dtype=np.int64).reshape(-1, 5)
        return Counts(
            names,
            remap[table[:, 0]] if len(table) else np.zeros(0, np.int64),
            remap[table[:, 1]] if len(table) else np.zeros(0, np.int64),
            table[:, 2].astype(np.float64),
            table[:, 3].astype(np.float64),
            table[:, 4].astype(np.float64),
        )

    def games_by_player(self) -> dict[str, int]:
        played = dict.fromkeys(self.players, 0)
        for f, s, w, d, lo in self.cells:
            played[self.players[f]] += w + d + lo
            played[self.players[s]] += w + d + lo
        return played

    def head_to_head(self) -> dict[tuple[str, str], PairStats]:
        """Every pair that met, keyed ``(a, b)`` with ``a`` first in :attr:`players`, from
        ``a``'s point of view (``.flipped()`` for ``b``'s)."""
        wdl: dict[tuple[int, int], list[int]] = {}
        for f, s, w, d, lo in self.cells:
            a, b = min(f, s), max(f, s)
            slot = wdl.setdefault((a, b), [0, 0, 0])
            if f == a:
                slot[0] += w
                slot[2] += lo
            else:
                slot[0] += lo
                slot[2] += w
            slot[1] += d
        penta = {(row[0], row[1]): Pentanomial(*row[2:]) for row in self.pentanomial}
        unpaired = {(a, b): n for a, b, n in self.unpaired}
        return {
            (self.players[a], self.players[b]): PairStats(
                self.players[a], self.players[b], w, d, lo,
                penta.get((a, b), Pentanomial()), unpaired.get((a, b), 0))
            for (a, b), (w, d, lo) in wdl.items()
        }


def tally(results: Iterable[GameResult], players: Sequence[str] = ()) -> Tally:
    """The counts of ``results`` (each game once; colour pairs matched by their ``pair``)."""
    games = list(results)
    counts = aggregate(games, players)
    index = {name: i for i, name in enumerate(counts.players)}
    cells = [
        (int(f), int(s), int(w), int(d), int(lo))
        for f, s, w, d, lo in zip(counts.first, counts.second, counts.wins, counts.draws,
                                  counts.losses, strict=True)
    ]
    pairs, single = colour_pairs(games)
    penta: dict[tuple[int, int], Pentanomial] = {}
    for one, two in pairs:
        i, j = index[one.first], index[one.second]
        a = min(i, j)
        s1 = one.score if index[one.first] == a else 1.0 - one.score
        s2 = two.score if index[two.first] == a else 1.0 - two.score
        key = (a, max(i, j))
        penta[key] = penta.get(key, Pentanomial()).add(s1, s2)
    unpaired: dict[tuple[int, int], int] = {}
    for g in single:
        i, j = index[g.first], index[g.second]
        key = (min(i, j), max(i, j))
        unpaired[key] = unpaired.get(key, 0) + 1
    return Tally(
        counts.players, cells,
        [(a, b, *(getattr(p, k) for k in PENTA_FIELDS)) for (a, b), p in sorted(penta.items())],
        [(a, b, n) for (a, b), n in sorted(unpaired.items())],
    )


def merge(tallies: Iterable[Tally], players: Sequence[str] = ()) -> Tally:
    """One tally of every game of ``tallies`` (players in ``players`` order first, then in
    order of first appearance)."""
    names = list(players)
    index = {name: i for i, name in enumerate(names)}
    cells: dict[tuple[int, int], list[int]] = {}
    penta: dict[tuple[int, int], list[int]] = {}
    unpaired: dict[tuple[int, int], int] = {}
    for t in tallies:
        remap = []
        for name in t.players:
            if name not in index:
                index[name] = len(names)
                names.append(name)
            remap.append(index[name])
        for f, s, w, d, lo in t.cells:
            slot = cells.setdefault((remap[f], remap[s]), [0, 0, 0])
            slot[0] += w
            slot[1] += d
            slot[2] += lo
        for a, b, *five in t.pentanomial:
            ra, rb = remap[a], remap[b]
            row = five if ra < rb else [five[5], five[4], five[2], five[3], five[1], five[0]]
            into = penta.setdefault((min(ra, rb), max(ra, rb)), [0] * 6)
            for k, n in enumerate(row):
                into[k] += n
        for a, b, n in t.unpaired:
            key = (min(remap[a], remap[b]), max(remap[a], remap[b]))
            unpaired[key] = unpaired.get(key, 0) + n
    return Tally(
        names,
        [(f, s, *wdl) for (f, s), wdl in sorted(cells.items())],  # type: ignore[misc]
        [(a, b, *five) for (a, b), five in sorted(penta.items())],  # type: ignore[misc]
        [(a, b, n) for (a, b), n in sorted(unpaired.items())],
    )
