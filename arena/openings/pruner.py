"""Pruning a book by its games: the openings whose results are too lopsided to be chance.

``arena openings prune BOOK RUN_DIR...`` reads the games the runs played from the book's
openings (:mod:`arena.openings.scoring`), tests each opening (the first mover's wins against
its losses, exact binomial) and drops those the test finds unbalanced. Not a fixed threshold:
an opening won 7 times in 10 by the first mover may well be sound, one won 40 times in 50 is
not, and the test says how surprising each record is for a balanced opening.

A book of hundreds of openings tested at 5% each would drop a dozen sound ones by chance,
so the p-values are adjusted for their number (Benjamini-Hochberg, the false discovery rate:
of the openings dropped, at most ``alpha`` are expected to be sound ones). Controlling the
false discovery rate rather than the chance of any mistake at all (Holm) is the choice of
fishtest-style book curation: a sound opening dropped costs the book one line, an unsound
one kept costs every run that uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from arena.openings import Opening
from arena.openings.scoring import FirstMover

DEFAULT_ALPHA: Final = 0.05


@dataclass(frozen=True)
class Verdict:
    """One opening of the book, its games, its test and what became of it."""

    opening: Opening
    key: str | None
    """The position it leads to (None: the rules could not play it with these options)."""
    results: FirstMover
    p_value: float
    adjusted: float
    """The p-value adjusted for the number of openings tested (Benjamini-Hochberg)."""
    dropped: bool

    def comment(self) -> str:
        """Its statistics, as the pruned book's comment: source, results, test."""
        text = f"{self.opening.source}: {self.results.text()}"
        if self.results.games:
            text += f", p {self.p_value:.3g} (adjusted {self.adjusted:.3g})"
        return text


def prune(openings: Sequence[Opening], keys: Sequence[str | None],
          results: dict[str, FirstMover], alpha: float = DEFAULT_ALPHA) -> list[Verdict]:
    """A verdict per opening, in the book's order: dropped when its adjusted p-value is at
    most ``alpha``. ``keys[i]`` is where ``openings[i]`` leads; ``results`` are the games by
    key. Openings without decisive games are kept (nothing speaks against them) and do not
    count among the openings tested."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie between 0 and 1, got {alpha}")
    found = [results.get(key, FirstMover()) if key is not None else FirstMover() for key in keys]
    p_values = [r.p_value() for r in found]
    tested = [i for i, r in enumerate(found) if r.wins + r.losses]
    adjusted = [1.0] * len(found)
    if tested:
        from scipy.stats import false_discovery_control

        values = false_discovery_control([p_values[i] for i in tested], method="bh")
        for i, value in zip(tested, values, strict=True):
            adjusted[i] = float(value)
    return [Verdict(opening, key, r, p, a, a <= alpha)
            for opening, key, r, p, a in zip(openings, keys, found, p_values, adjusted,
                                             strict=True)]
