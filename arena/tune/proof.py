"""The proof of a tune: a pentanomial SPRT of the tuned values against the start, as the
league's verdict on a new version against its parent (:mod:`ratings.verdict`).

A tune always ends somewhere, also where the games could not tell the options apart; the
values it ends on are worth keeping only if they beat the ones it started from. So the
tuned bot then plays the start bot in colour pairs until the test decides (H0: at most
``elo0`` better; H1: at least ``elo1``) or ``max_games`` are played ("undecided"). Nothing here
plays a game: it is handed the tuned side's two scores of each pair, in the order the pairs
finished.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ratings.pairwise import Pentanomial
from ratings.verdict import Verdict, VerdictSettings, parent_verdict


@dataclass
class Proof:
    """The SPRT of the tuned values against the start, fed colour pairs as they finish.

    The test is looked at after each :meth:`add` (one pair, or several that finished
    together: looking less often makes it slightly more cautious, never less, as the
    league's nights do); once it has closed, later pairs change nothing."""

    settings: VerdictSettings = field(default_factory=VerdictSettings)
    counted: Pentanomial = field(default_factory=Pentanomial)
    """The pairs the verdict rests on, from the tuned side's point of view."""
    verdict: Verdict | None = None

    def add(self, pairs: Iterable[tuple[float, float]]) -> Verdict | None:
        """Pairs finished: the tuned side's two scores (1, 1/2, 0) in each. Returns the
        verdict (None before any pair)."""
        if self.closed:
            return self.verdict
        for first, second in pairs:
            self.counted = self.counted.add(first, second)
        if self.counted.pairs:
            self.verdict = parent_verdict([self.counted], self.settings)
        return self.verdict

    @property
    def closed(self) -> bool:
        """Decided, or stopped undecided at ``max_games``."""
        return self.verdict is not None and self.verdict.closed
