"""Results that split the players into groups no rating can join: the groups and their order.

A maximum-likelihood rating exists for a set of players only when, for every way of splitting
them in two, each side scored (won or drew) against the other. Otherwise one side never lost
to the other and the likelihood keeps growing as the gap widens: no finite distance fits.
The groups are the strongly connected components of the directed graph "``a`` scored at least
a draw against ``b``". Inside a group every split has results both ways, so ratings relative
to the group are finite; between groups only the order is known, and only where the results
lead from one group to the other (a group above another one it beat, or beat a group that beat
it); two groups with no chain of results between them are not ordered at all.

A perfect ladder (each player beat every player below it, nobody ever scored upwards) is the
extreme case: every group is one player, and all that is known is the order.
"""

from __future__ import annotations

from dataclasses import dataclass
from graphlib import TopologicalSorter
from typing import TYPE_CHECKING

import numpy as np

from ratings.counts import Counts
from ratings.numeric import strong_components

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import NDArray

    BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class Separation:
    """The groups of the players with games, best first, and which group is known above which.

    ``groups[g]`` lists player indices (into the fit's ``players``); ``above[g, h]`` is True
    when the results put group ``g`` above group ``h`` (directly or through other groups).
    Groups are listed in an order consistent with ``above``; where the results leave a
    choice, a group known below the one listed before it comes first (a chain reads as one),
    then the one with more groups known below it, then the better score, then by name."""

    groups: list[list[int]]
    above: BoolArray

    def group_of(self, player: int) -> int | None:
        """The group (0-based, 0 = best) of ``player``; None for a player without games."""
        for g, members in enumerate(self.groups):
            if player in members:
                return g
        return None

    def ordered_with_next(self, g: int) -> bool:
        """Is group ``g`` known to be above the group listed after it?"""
        return g + 1 < len(self.groups) and bool(self.above[g, g + 1])

    def describe(self, players: list[str]) -> str:
        """What is known, in one line: ``a > b > {c, d} ? e`` (``?``: no results order the two
        neighbours; braces: a group rated inside itself)."""
        parts: list[str] = []
        for g, members in enumerate(self.groups):
            names = [players[p] for p in members]
            parts.append(names[0] if len(names) == 1 else "{" + ", ".join(names) + "}")
            if g + 1 < len(self.groups):
                parts.append(">" if self.ordered_with_next(g) else "?")
        return " ".join(parts)


def scored_against(counts: Counts, active: BoolArray) -> tuple[NDArray[np.int64],
                                                               NDArray[np.int64]]:
    """Edges ``a -> b`` between ``active`` players: ``a`` won or drew at least once against
    ``b`` (in either colour)."""
    inside = active[counts.first] & active[counts.second]
    first, second = counts.first[inside], counts.second[inside]
    points, games = counts.points[inside], counts.games[inside]
    src = np.concatenate([first[points > 0], second[points < games]])
    dst = np.concatenate([second[points > 0], first[points < games]])
    return src.astype(np.int64), dst.astype(np.int64)


def find_groups(counts: Counts, active: BoolArray, scored: NDArray[np.float64],
                played: NDArray[np.float64]) -> Separation:
    """The groups of the ``active`` players (strongly connected components of the "scored
    against" graph), best first; ``scored``/``played`` per player break ties between groups
    the results do not order (better score first, then name)."""
    n = len(counts.players)
    src, dst = scored_against(counts, active)
    labels = strong_components(n, src, dst)
    members: dict[int, list[int]] = {}
    for p in np.flatnonzero(active).tolist():
        members.setdefault(labels[p], []).append(p)
    comps = list(members)
    index = {c: k for k, c in enumerate(comps)}
    k = len(comps)
    direct = np.zeros((k, k), dtype=bool)
    for s, d in zip(src.tolist(), dst.tolist(), strict=True):
        if labels[s] != labels[d]:
            direct[index[labels[s]], index[labels[d]]] = True
    reach = _closure(direct)

    below = reach.sum(axis=1)

    def rank_key(c: int, last: int | None) -> tuple[bool, int, float, str]:
        """Among the groups that may come next: one known below the group just listed (so
        that a chain reads as one), then the one with more groups known below it, then the
        better score, then the first name."""
        ps = members[c]
        pct = float(scored[ps].sum() / max(played[ps].sum(), 1.0))
        after_last = last is not None and bool(reach[index[last], index[c]])
        return (not after_last, -int(below[index[c]]), -pct, min(counts.players[p] for p in ps))

    # Predecessors of a group: the groups that scored against it (those above it).
    sorter = TopologicalSorter({c: [d for d in comps if direct[index[d], index[c]]]
                                for c in comps})
    sorter.prepare()
    ordered: list[int] = []
    ready: set[int] = set()
    while sorter.is_active():
        ready.update(sorter.get_ready())
        last = ordered[-1] if ordered else None
        pick = min(ready, key=lambda c: rank_key(c, last))
        ready.discard(pick)
        ordered.append(pick)
        sorter.done(pick)
    perm = [index[c] for c in ordered]
    groups = [sorted(members[c], key=lambda p: counts.players[p]) for c in ordered]
    return Separation(groups, reach[np.ix_(perm, perm)])


def _closure(direct: BoolArray) -> BoolArray:
    """Reachability in a small directed graph (repeated boolean squaring)."""
    reach = direct.copy()
    while True:
        more = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if np.array_equal(more, reach):
            return reach
        reach = more
