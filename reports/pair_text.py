"""Head-to-head lines as text, in cutechess-cli's and fastchess's style: W/L/D, score, the Elo
difference with its error, LOS and the pentanomial counts of every pair that met
(:mod:`ratings.pairwise`).

``arena ratings --pairs`` prints them, and so do the final standings of an ``arena run`` that
builds no report, whose text must not load the fit's numpy: nothing here does. The report's
head-to-head table (:func:`reports.rating_tables.head_to_head`) shows the same statistics,
each pair from its higher-ranked bot's side (:func:`ranked_pairs`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from ratings.pairwise import PairStats


def ranked_pairs(pairs: Iterable[PairStats], order: Sequence[str]) -> list[PairStats]:
    """Every pair from its higher-ranked bot's side (``order``: best first; a bot not in it
    counts as first), the best bot's pairs first."""
    rank = {bot: i for i, bot in enumerate(order)}
    sided = [stats.flipped() if rank.get(stats.player, 0) > rank.get(stats.opponent, 0)
             else stats for stats in pairs]
    return sorted(sided, key=lambda s: (rank.get(s.player, 0), rank.get(s.opponent, 0)))


def format_pairs(pairs: Mapping[tuple[str, str], PairStats] | Sequence[PairStats]) -> str:
    """One line per pair in cutechess/fastchess style (from the first-named player's view)."""
    lines = []
    for p in pairs.values() if isinstance(pairs, Mapping) else pairs:
        line = (
            f"{p.player} vs {p.opponent}: {p.wins} - {p.losses} - {p.draws} "
            f"[{p.score:.3f}] {p.games}  Elo {_signed(p.elo)} +/- {_one(p.elo_error)}, "
            f"LOS {100 * p.los:.1f} %"
        )
        if p.penta.pairs:
            ptnml = ", ".join(str(v) for v in p.penta.five())
            line += f", Ptnml(0-2) [{ptnml}] +/- {_one(p.penta_elo_error)}"
        lines.append(line)
    return "\n".join(lines) + ("\n" if lines else "")


def _one(x: float) -> str:
    return "-" if math.isnan(x) else "inf" if math.isinf(x) else f"{x:.1f}"


def _signed(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}"
