"""Ratings as tables: the Ordo-style text, CSV and JSON of a fit (``arena ratings``, the
standings ``arena run`` prints), and the report's standings, first-move advantage, rating
progression and head to head as frames (the report, its text, the live page).

The text is laid out exactly like Ordo's. Ordo's words are kept ("White advantage") so that
tools which read Ordo output read ours; in every game here "White" means the first mover
(``p1``). As in Ordo, the ERROR column is the half-width of the confidence interval (95% by
default), while the "+/-" after the white advantage and the draw rate is one standard
deviation. Players whose rating is only a bound (they won or lost every game) get a note at
the end of their line; players without games are listed with dashes. When the results only
order the players (:mod:`ratings.separation`), a player with no rating reads ``order`` in the
RATING column, every line names its group, and the notes under the table state the order that
is known. The text keeps the plain ``-`` and ``inf`` of the tools that read it; the frames are
shown on pages, whose numbers :mod:`reports.htmlkit` writes.

The report's fit is the Bayesian one (:func:`fit_counts`: :mod:`ratings.bayes`, a finite
rating and interval for every bot, a mark where a distance rests on the prior, a league
night's ``NAME@N`` centred on their previous versions); ``arena ratings --prior off`` prints
the maximum-likelihood fit through the same text. This module only feeds the fit counts
aggregated from the journal summary and lays its results out. Progression refits the games
played so far at a few checkpoints, with error bars, which costs one small Newton solve per
checkpoint whatever the number of games. pandas is imported by the frames' functions only:
``arena ratings`` prints its text without it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ratings import GameResult, pairwise
from ratings.counts import Counts, aggregate_arrays
from ratings.model import (
    ALL_LOSSES,
    ALL_WINS,
    MARK_TEXT,
    ON_PRIOR,
    ORDER_ONLY,
    PRIOR_ONLY,
    RatingFit,
    fit_ratings,
)
from ratings.pairwise import PairStats
from ratings.prior import Prior, version_parents
from referee.record import P1_POINTS
from reports.htmlkit import number
from reports.pair_text import ranked_pairs

if TYPE_CHECKING:
    import pandas as pd

    from reports.journal_summary import JournalSummary

PROGRESS_POINTS = 24
"""How many times the rating progression chart refits (evenly spaced in games played)."""


SMALL_SAMPLE = 20
"""Fewer games than this and an error bar is flagged as rough (the normal approximation behind
it needs a few dozen games)."""

BOUND_OF = {ALL_WINS: "lower", ALL_LOSSES: "upper"}
"""Which side a bounded rating is a bound on."""


def rating_text(value: float, error: float, bound: str = "", group: int = 0,
                order_only: bool = False) -> str:
    """A rating as read: an estimate with its error, or a bound, or an unbounded error; when
    the results only order the bots, its place (``order only``) or its rating inside its
    group."""
    if order_only:
        return f"order only (group {group})"
    if group and not math.isnan(value):
        return f"{rating_text(value, error, bound)} in group {group}"
    if math.isnan(value):
        return ""
    if bound:
        return f"{'≥' if bound == 'lower' else '≤'} {value:+.1f} ({bound} bound)"
    if math.isinf(error):
        return f"{value:+.1f} ± ∞"
    if math.isnan(error):
        return f"{value:+.1f}"
    return f"{value:+.1f} ± {error:.1f}"


def _note(mark: str, games: int, error: float) -> str:
    """The standings' note: the rating's mark, an infinite error, a small sample."""
    parts = [mark] if mark else []
    if math.isinf(error):
        parts.append("error unbounded (∞)")
    if 0 < games < SMALL_SAMPLE:
        parts.append(f"small sample ({games} games)")
    return "; ".join(parts)


@dataclass(frozen=True)
class RatedJournal:
    """A run's journal read once (its summary) and the fit of its finished games made once:
    what the report, its text, the standings a run prints at its end and a league night's
    closing all show, so that none of them reads the journal or fits the games again."""

    journal: JournalSummary
    fit: RatingFit | None
    """The fit of every finished game, players in :attr:`JournalSummary.bots` order; None
    before any game has finished."""

    @classmethod
    def of(cls, journal: JournalSummary) -> RatedJournal:
        return cls(journal, fit_journal(journal))

    def players(self) -> list[str]:
        """The players of the finished games."""
        return sorted({name for g in self.journal.games if g.result in P1_POINTS
                       for name in (g.p1, g.p2)})


def journal_counts(journal: JournalSummary) -> Counts:
    """Per-pairing counts of the journal's finished games, players in its ``bots`` order
    (the same counts :func:`counts_of` makes of its game table, without pandas)."""
    index = {b: i for i, b in enumerate(journal.bots)}
    done = [g for g in journal.games if g.result in P1_POINTS]
    return aggregate_arrays(
        journal.bots,
        np.array([index[g.p1] for g in done], dtype=np.int64),
        np.array([index[g.p2] for g in done], dtype=np.int64),
        np.array([P1_POINTS[g.result] for g in done], dtype=float),
    )


def fit_counts(counts: Counts) -> RatingFit:
    """The fit a report shows: Bayesian (the default prior; a ``NAME@N`` centred on its
    previous version when both played), a number and an interval for every bot."""
    return fit_ratings(counts, prior=Prior(parents=version_parents(counts.players)))


def fit_journal(journal: JournalSummary) -> RatingFit | None:
    """The ratings of the journal's finished games, or None before any has finished."""
    counts = journal_counts(journal)
    return fit_counts(counts) if counts.total() else None


def counts_of(games: pd.DataFrame, bots: list[str]) -> Counts:
    """Per-pairing counts of the finished games, players in ``bots`` order."""
    from reports.tables import finished

    done = finished(games)
    index = {b: i for i, b in enumerate(bots)}
    return aggregate_arrays(
        bots,
        done["p1"].map(index).to_numpy(dtype=np.int64),
        done["p2"].map(index).to_numpy(dtype=np.int64),
        done["result"].map(P1_POINTS).to_numpy(dtype=float),
    )


@dataclass(frozen=True)
class Ranking:
    """A run's standings as every view shows them (the report, its text, the live page): the
    results per bot, the rating fit, and the standings table, whose order is the one order
    every other table follows."""

    wdl: pd.DataFrame
    rating: RatingFit | None
    standings: pd.DataFrame

    @property
    def order(self) -> list[str]:
        return list(self.standings["bot"])


def rank(games: pd.DataFrame, bots: list[str], rating: RatingFit | None) -> Ranking:
    """The standings of ``bots`` from ``games`` and their ``rating`` (the fit of the same
    games, made once: :func:`fit_journal`)."""
    from reports.tables import wdl

    results = wdl(games, bots)
    return Ranking(results, rating, standings(results, rating))


def standings(wdl: pd.DataFrame, rating: RatingFit | None) -> pd.DataFrame:
    """Rank, bot, Elo, error, games, W/D/L, score %, LOS against the next bot down,
    ``on_prior`` (the Bayesian fit's rating rests on the prior: the results alone only order
    it), and for a maximum-likelihood fit whose results only order the bots (no common
    scale) the bot's ``group`` (1 = best; 0 otherwise) and ``order_only`` (no rating at all,
    only its place)."""
    import pandas as pd

    bots = list(wdl.index)
    group: dict[str, int] = {b: 0 for b in bots}
    order_only: dict[str, bool] = {b: False for b in bots}
    on_prior: dict[str, bool] = {b: False for b in bots}
    if rating is None:
        order = sorted(bots, key=lambda b: (-float(wdl.at[b, "points"]), b))
        elo = {b: math.nan for b in bots}
        err = dict(elo)
        los_next: dict[str, float] = dict(elo)
        marks = {b: "" for b in bots}
        bound = dict(marks)
    else:
        order = [rating.players[i] for i in rating.order()]
        elo = {p: float(rating.ratings[i]) for i, p in enumerate(rating.players)}
        err = {p: float(rating.errors[i]) for i, p in enumerate(rating.players)}
        marks = {p: mark_text(rating, i) for i, p in enumerate(rating.players)}
        bound = {p: BOUND_OF.get(rating.marks[i], "") for i, p in enumerate(rating.players)}
        group.update({p: rating.group(i) or 0 for i, p in enumerate(rating.players)})
        order_only.update({p: rating.marks[i] == ORDER_ONLY
                           for i, p in enumerate(rating.players)})
        on_prior.update({p: rating.marks[i] in (ON_PRIOR, PRIOR_ONLY)
                         for i, p in enumerate(rating.players)})
        los_next = {}
        for here, below in zip(order, [*order[1:], None], strict=True):
            if below is None:
                los_next[here] = math.nan
            else:
                los_next[here] = float(rating.los[rating.index(here), rating.index(below)])
    rows = []
    for rank, bot in enumerate(order, start=1):
        rows.append(
            {
                "rank": rank,
                "bot": bot,
                "elo": round(elo[bot], 1) if not math.isnan(elo[bot]) else math.nan,
                "elo_error": round(err[bot], 1) if not math.isnan(err[bot]) else math.nan,
                "games": int(wdl.at[bot, "games"]),
                "wins": int(wdl.at[bot, "wins"]),
                "draws": int(wdl.at[bot, "draws"]),
                "losses": int(wdl.at[bot, "losses"]),
                "points": float(wdl.at[bot, "points"]),
                "score_pct": float(wdl.at[bot, "score_pct"]),
                "los_next_pct": round(100.0 * los_next[bot], 1)
                if not math.isnan(los_next[bot]) else math.nan,
                "bound": bound[bot],
                "group": group[bot],
                "order_only": order_only[bot],
                "on_prior": on_prior[bot],
                "note": _note(marks[bot], int(wdl.at[bot, "games"]), err[bot]),
            }
        )
    return pd.DataFrame(rows, columns=STANDINGS_COLUMNS)


STANDINGS_COLUMNS = [
    "rank", "bot", "elo", "elo_error", "games", "wins", "draws", "losses", "points",
    "score_pct", "los_next_pct", "bound", "group", "order_only", "on_prior", "note",
]
"""The columns of :func:`standings` (and of ``standings.csv``)."""


def first_move_advantage(games: pd.DataFrame, bots: list[str],
                         whole: RatingFit | None = None) -> pd.DataFrame:
    """Per game type: fitted first-move advantage (Elo +- one sd) and draw rate of equals.
    ``whole`` is the fit of every finished game, reused for a game type that has them all
    (a run of one game: no second fit of the same games)."""
    import pandas as pd

    from reports.tables import finished

    rows = []
    done = finished(games)
    for name, part in done.groupby("game", sort=True):
        if whole is not None and len(part) == len(done):
            result: RatingFit | None = whole
        else:
            counts = counts_of(part, bots)
            result = fit_counts(counts) if counts.total() else None
        adv = result.white_advantage if result and result.white_advantage_fitted else math.nan
        sd = result.white_advantage_sd if result else math.nan
        d0 = result.draw_rate if result else math.nan
        rows.append(
            {
                "game": name,
                "first-move advantage (Elo)": round(adv, 1) if not math.isnan(adv) else math.nan,
                "+- sd": round(sd, 1) if not math.isnan(sd) else math.nan,
                "draw rate of equals %": round(100.0 * d0, 1) if not math.isnan(d0) else math.nan,
            }
        )
    return pd.DataFrame(rows, columns=[
        "game", "first-move advantage (Elo)", "+- sd", "draw rate of equals %",
    ])


def progression(games: pd.DataFrame, bots: list[str],
                points: int = PROGRESS_POINTS, whole: RatingFit | None = None) -> pd.DataFrame:
    """Elo of every bot after the first k finished games, at ``points`` checkpoints, with its
    95% error (columns: games, bot, elo, error, bound). The first checkpoint is the game after
    which every bot had played once (before it some bots have no rating at all); ratings that
    are only bounds so far are kept, marked in ``bound``. At a checkpoint where the results
    only order the bots the distances rest on the prior, not on games: each bot gets a row
    with no rating and ``bound`` = ``"order"``, so that the chart can say so instead of
    drawing the prior's numbers. The last
    checkpoint is every game: ``whole``, their fit already made, is used there when given."""
    import pandas as pd

    from reports.tables import finished

    done = finished(games)
    n = len(done)
    if n < 2:
        return pd.DataFrame({"games": [], "bot": [], "elo": [], "error": [], "bound": []})
    index = {b: i for i, b in enumerate(bots)}
    first = done["p1"].map(index).to_numpy(dtype=np.int64)
    second = done["p2"].map(index).to_numpy(dtype=np.int64)
    score = done["result"].map(P1_POINTS).to_numpy(dtype=float)
    # The game after which every bot that plays at all has played once.
    first_game = np.full(len(bots), n, dtype=np.int64)
    np.minimum.at(first_game, first, np.arange(n))
    np.minimum.at(first_game, second, np.arange(n))
    start = max(2, int(first_game[first_game < n].max()) + 1)
    marks = sorted({int(x) for x in np.linspace(start, n, points)})
    rows = []
    for k in marks:
        if k == n and whole is not None:
            result = whole
        else:
            result = fit_counts(aggregate_arrays(bots, first[:k], second[:k], score[:k]))
        for i, bot in enumerate(result.players):
            if result.separation is not None or result.known_order is not None:
                if result.played[i] > 0:
                    rows.append({"games": k, "bot": bot, "elo": math.nan, "error": math.nan,
                                 "bound": "order"})
                continue
            value = float(result.ratings[i])
            if math.isnan(value):
                continue
            bound = BOUND_OF.get(result.marks[i], "")
            error = float(result.errors[i]) if not bound else math.nan
            rows.append({"games": k, "bot": bot, "elo": value, "error": error, "bound": bound})
    return pd.DataFrame(rows, columns=["games", "bot", "elo", "error", "bound"])


def progression_gap(progress: pd.DataFrame) -> str | None:
    """Why the rating progression is not worth a chart (None when it is): fewer than two
    checkpoints put the bots on a scale of results (too few games, or the results so far
    only order them and the numbers would be the prior's)."""
    drawn = progress[progress["bound"] != "order"]
    checkpoints = int(drawn["games"].nunique()) if len(drawn) else 0
    if checkpoints >= 2:
        return None
    if progress["bound"].eq("order").any():
        return ("at every checkpoint but at most one the results only order the bots, so "
                "their distances would be the prior's, not the games'")
    return "too few games to follow the ratings as they accumulate"


def head_to_head(journal: JournalSummary, order: list[str]) -> pd.DataFrame:
    """Every pair that met, from the higher-ranked bot's side: W/D/L, score, the Elo difference
    the score implies with its error, LOS, and the pentanomial counts of colour pairs
    (:func:`ratings.pairwise`)."""
    import pandas as pd

    from reports.tables import DECISIVE_OR_DRAWN

    results = [
        GameResult(g.p1, g.p2, P1_POINTS[g.result], g.pair, g.key)
        for g in journal.games
        if g.result in DECISIVE_OR_DRAWN
    ]
    rows = []
    for stats in ranked_pairs(pairwise(results).values(), order):
        penta = stats.penta
        rows.append(
            {
                "bot": stats.player,
                "opponent": stats.opponent,
                "games": stats.games,
                "W": stats.wins,
                "D": stats.draws,
                "L": stats.losses,
                "score %": round(100.0 * stats.score, 1),
                "Elo diff": number(stats.elo, signed=True),
                "+-": number(stats.elo_error),
                "LOS %": round(100.0 * stats.los, 1),
                "pairs 0/0.5/1/1.5/2": " ".join(str(n) for n in penta.five())
                if penta.pairs else "",
                "note": f"small sample ({stats.games} games)"
                if stats.games < SMALL_SAMPLE else "",
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=["bot", "opponent", "games", "W", "D", "L", "score %",
                                     "Elo diff", "+-", "LOS %", "pairs 0/0.5/1/1.5/2",
                                     "note"])
    return frame


# ----- a fit as text, CSV and JSON (``arena ratings``) ------------------------------------

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
    """``player,rating,error,points,played,group,mark`` rows, best first (empty fields when
    unknown; ``group`` only when the results separate the players into ordered groups in the
    maximum-likelihood fit; ``mark``: why a rating is not a plain estimate, e.g. ``on-prior``
    when it rests on the Bayesian fit's prior, ``order-only``, ``all-wins``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["player", "rating", "error", "points", "played", "group", "mark"])
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
                fit.marks[i],
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
