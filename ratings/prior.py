"""The prior of the Bayesian rating fit: a Gaussian on every rating, some relative to another.

Without a prior, a rating exists only where the results pin it down (:mod:`ratings.model`):
a bot that won every game, or groups of which one never scored against the other, have no
finite maximum-likelihood rating, and a league then shows an order without numbers. A prior
gives every rating a finite posterior whatever the results, so the leaderboard always has a
number and an interval; where the results decide, they outweigh it within a few games.

Two kinds, both Gaussian, both centred so that the log prior is ``-theta' P theta / 2`` with
the precision matrix ``P`` of :meth:`Prior.precision`:

- **absolute**: a player's rating is ``N(0, sd^2)`` around the pool's centre. ``sd`` is the
  prior's strength (narrower is stronger). The default, 400 points, is TrueSkill's default
  width (twice the difference that gives a 76% expected score, which is 202 points on Ordo's
  scale): before any game a bot is believed within about +-800 points of the pool, wider than
  any real league's field. It matters only where the results say little.
- **relative** (Ordo's relative anchors): a new version's rating is
  ``N(rating of its parent, parent_sd^2)``, the parent being its previous version. A
  submission thus starts where its parent stands and has a meaningful rating from its first
  games, and its results move it away as far as they show. ``parent_sd`` (default 200 points)
  says how far a new version is believed to be from its parent: most changes are within
  +-400 points, a rewrite can be more and shows so within a night. The prior is on the
  difference, so the parent's rating is not frozen: both are fitted together.

The first-move advantage gets an absolute prior of the same width: it only matters when one
colour won every game (the advantage then has no finite maximum either).

Why a Gaussian rather than BayesElo's virtual draws (``prior = 2`` draws spread over the
opponents a player met): the virtual draws' pull depends on who played whom, so in a league,
whose pairing chooses the opponents, the prior would change with the schedule; its width is
counted in games, not points, and has no meaning before the first game (a player with no
opponent gets no prior at all); and virtual draws enter the draw-rate fit as if they were
played. A Gaussian has one width in rating points that reads the same in every field, gives a
new version with no games its parent's rating, carries over unchanged to a prior on the
difference between two versions, and its curvature adds directly to the likelihood's to give
the posterior's interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import numpy as np

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]

DEFAULT_SD: Final = 400.0
"""Width (one standard deviation, rating points) of every rating's absolute prior."""

DEFAULT_PARENT_SD: Final = 200.0
"""Width (one standard deviation, rating points) of a version's prior around its parent."""


@dataclass(frozen=True)
class Prior:
    """A Gaussian prior on every rating (module docstring).

    ``parents`` maps a player to the player its prior is centred on; a player whose parent is
    not among the fitted players, or who has none, gets the absolute prior.
    """

    sd: float = DEFAULT_SD
    parents: Mapping[str, str] = field(default_factory=dict)
    parent_sd: float = DEFAULT_PARENT_SD

    def __post_init__(self) -> None:
        for name, value in (("sd", self.sd), ("parent_sd", self.parent_sd)):
            if not (value > 0.0 and np.isfinite(value)):
                raise ValueError(f"prior {name} must be a positive number of rating points, "
                                 f"got {value!r}")
        for child, parent in self.parents.items():
            if child == parent:
                raise ValueError(f"prior: {child!r} cannot be its own parent")

    def parent_of(self, players: Sequence[str]) -> list[int | None]:
        """Per player, the index of the player its prior is centred on (None: absolute).

        A chain of parents that loops (which a league's ``NAME@N`` numbering cannot make)
        would leave the prior without a centre: it is refused, naming the players."""
        index = {name: i for i, name in enumerate(players)}
        out: list[int | None] = [index.get(self.parents.get(p, "")) for p in players]
        for start in range(len(players)):
            seen = {start}
            at = out[start]
            while at is not None:
                if at in seen:
                    loop = " -> ".join(players[i] for i in sorted(seen))
                    raise ValueError(f"prior: the parents of {loop} form a loop")
                seen.add(at)
                at = out[at]
        return out

    def precision(self, players: Sequence[str], advantage: bool) -> FloatArray:
        """The prior's precision over (ratings of ``players``[, advantage]), in 1/points^2.

        Positive definite: every chain of parents ends at a player with the absolute prior."""
        m = len(players)
        size = m + (1 if advantage else 0)
        p = np.zeros((size, size))
        base = 1.0 / self.sd**2
        rel = 1.0 / self.parent_sd**2
        for i, parent in enumerate(self.parent_of(players)):
            if parent is None:
                p[i, i] += base
            else:
                p[i, i] += rel
                p[parent, parent] += rel
                p[i, parent] -= rel
                p[parent, i] -= rel
        if advantage:
            p[m, m] = base
        return p

    def describe(self) -> str:
        """One line for a table's notes."""
        text = f"Gaussian prior: every rating sd {self.sd:g} points around the pool"
        if self.parents:
            text += f", a new version sd {self.parent_sd:g} around its previous version"
        return text


def version_parents(labels: Sequence[str]) -> dict[str, str]:
    """The league's versions convention: ``NAME@N``'s parent is the highest ``NAME@K``,
    ``K < N``, among ``labels`` (the previous version that played; a rejected one never
    does). Labels not of that form have no parent."""
    by_name: dict[str, list[tuple[int, str]]] = {}
    for label in labels:
        name, at, number = label.rpartition("@")
        if at and name and number.isdigit():
            by_name.setdefault(name, []).append((int(number), label))
    parents: dict[str, str] = {}
    for versions in by_name.values():
        versions.sort()
        for (_, previous), (_, label) in zip(versions, versions[1:], strict=False):
            parents[label] = previous
    return parents
