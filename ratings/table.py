"""Text, CSV and JSON renderings of a rating fit, the text one laid out exactly like Ordo's.

Ordo's words are kept ("White advantage") so that tools which read Ordo output read ours; in
every game here "White" means the first mover (``p1``). As in Ordo, the ERROR column is the
half-width of the confidence interval (95% by default), while the "+/-" after the white
advantage and the draw rate is one standard deviation. Players whose rating is only a bound
(they won or lost every game) get a note at the end of their line; players without games are
listed with dashes. When the results only order the players (:mod:`ratings.separation`), a
player with no rating reads ``order`` in the RATING column, every line names its group, and the
notes under the table state the order that is known.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from typing import Any

from ratings.model import MARK_TEXT, ORDER_ONLY, RatingFit
from ratings.pairwise import PairStats


def format_table(fit: RatingFit) -> str:
    """The Ordo-style table followed by the white-advantage and draw-rate lines."""
    width = max([len(p) for p in fit.players] + [len("PLAYER")]) + 1
    lines = [f"   # {'PLAYER':<{width}}   :  RATING  ERROR  POINTS  PLAYED   (%)"]
    for rank, i in enumerate(fit.order(), start=1):
        name = fit.players[i]
        played = int(fit.played[i])
        pct = 100.0 * fit.points[i] / played if played else 0.0
        rating = fit.ratings[i]
        error = fit.errors[i]
        if fit.marks[i] == ORDER_ONLY:
            lines.append(
                f"{rank:4d} {name:<{width}}   :{'order':>8} {'----':>6} {fit.points[i]:7.1f} "
                f"{played:7d} {pct:5.0f}"
            )
        elif math.isnan(rating):
            lines.append(
                f"{rank:4d} {name:<{width}}   :{'----':>8} {'----':>6} {fit.points[i]:7.1f} "
                f"{played:7d} {'----':>5}"
            )
        else:
            err = "----" if math.isnan(error) or error <= 0 else f"{error:.1f}"
            lines.append(
                f"{rank:4d} {name:<{width}}   :{rating:8.1f} {err:>6} {fit.points[i]:7.1f} "
                f"{played:7d} {pct:5.0f}"
            )
        if fit.marks[i]:
            lines[-1] += f"   ({mark_text(fit, i)})"
    lines.append("")
    if fit.white_advantage_fitted:
        lines.append(
            f"White advantage = {fit.white_advantage:.2f} +/- {_num(fit.white_advantage_sd)}"
        )
    else:
        lines.append(f"White advantage = {fit.white_advantage:.2f} (not fitted)")
    lines.append(f"Draw rate (equal opponents) = {draw_rate_text(fit)}")
    for note in fit.notes:
        lines.append(f"Note: {note}")
    return "\n".join(lines) + "\n"


def mark_text(fit: RatingFit, i: int) -> str:
    """Why player ``i``'s rating is not a plain estimate (empty when it is), naming its group
    when the results separate the players."""
    text = MARK_TEXT.get(fit.marks[i], "")
    group = fit.group(i)
    if group is None or fit.separation is None:
        return text
    where = f"group {group} of {len(fit.separation.groups)}"
    if fit.separation.ordered_with_next(group - 1):
        where += f", above group {group + 1}"
    return f"{where}; {text}" if text else where


def draw_rate_text(fit: RatingFit) -> str:
    """The fitted draw rate of equals with its sd, or why there is none: a rate at 0 or 100%
    fitted to a handful of games has no error estimate and is not a finding."""
    draws = int(fit.counts.draws.sum())
    games = int(fit.counts.games.sum())
    if not math.isnan(fit.draw_rate_sd) and 0.0 < fit.draw_rate < 1.0 - 1e-6:
        return f"{_num(100 * fit.draw_rate)} % +/- {_num(100 * fit.draw_rate_sd)}"
    if draws == 0 and games and fit.draw_rate == 0.0:
        return f"0.00 % (no draws in {games} games; no error estimate)"
    return f"- (not estimable: {draws} draw(s) in {games} games)"


def _num(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


def format_csv(fit: RatingFit) -> str:
    """``player,rating,error,points,played,group`` rows, best first (empty fields when
    unknown; ``group`` only when the results separate the players into ordered groups)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["player", "rating", "error", "points", "played", "group"])
    for i in fit.order():
        rating, error = fit.ratings[i], fit.errors[i]
        writer.writerow(
            [
                fit.players[i],
                "" if math.isnan(rating) else f"{rating:.1f}",
                "" if math.isnan(error) else f"{error:.1f}",
                f"{fit.points[i]:.1f}",
                int(fit.played[i]),
                fit.group(i) or "",
            ]
        )
    return out.getvalue()


def fit_document(fit: RatingFit, pairs: Mapping[tuple[str, str], PairStats] = {}) -> dict[str, Any]:
    """The full fit as a JSON-ready dict, with the pairwise statistics when given."""
    doc = fit.to_dict()
    doc["pairwise"] = [p.to_dict() for p in pairs.values()]
    return doc


def format_json(fit: RatingFit, pairs: Mapping[tuple[str, str], PairStats] = {}) -> str:
    return json.dumps(fit_document(fit, pairs), indent=2) + "\n"


def format_pairs(pairs: Mapping[tuple[str, str], PairStats]) -> str:
    """One line per pair in cutechess/fastchess style (from the first-named player's view)."""
    lines = []
    for p in pairs.values():
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
