"""Ratings and match statistics: the Bayesian and the Ordo-style Elo fits, pairwise tables,
pentanomial, SPRT, the verdict on a new version against its parent.

Used by the tournament runner (live SPRT, standings) and by the reports; imports nothing from
``arena``, which reads the files (``arena.rundir.results.read_results(path)``: a run directory,
a games.jsonl journal or a PGN file, as a list of ``GameResult``). The public API is
re-exported here:

- ``aggregate(results, players=()) -> Counts``; ``aggregate_arrays(...)`` for bulk data.
- ``fit_ratings(counts, scale=, white_advantage=, anchor=, average=, errors=, ...,
  prior=None) -> RatingFit``: maximum likelihood (Ordo's) without a ``prior``; with a
  ``Prior(sd=, parents=, parent_sd=)`` the Bayesian fit (:mod:`ratings.bayes`), finite for
  everyone; ``version_parents(labels)`` gives a league's ``NAME@N`` their previous versions.
- ``pairwise(results) -> {(a, b): PairStats}``; ``colour_pairs(results)``.
- ``Sprt(elo0, elo1, alpha, beta, model=, elo_model=).update(score, pair=None) -> SprtStatus``
  (``elo_model``: ``"logistic"``, the default, or ``"normalized"`` nElo);
  ``llr_trinomial``, ``llr_pentanomial`` (same ``elo_model`` argument), ``bounds``.
- ``parent_verdict(nights, VerdictSettings()) -> Verdict``: a new version against its parent,
  a pentanomial SPRT checked night by night (:mod:`ratings.verdict`).

The fits, SPRT and verdicts need numpy and are imported on first use (``ratings.fit_ratings``
loads :mod:`ratings.model` then); the pairwise statistics do not.

A fit as text, CSV or JSON (``format_table``, ``format_csv``, ``format_json``) is a report's
rendering, with the report's tables: :mod:`reports.rating_tables`.
"""

import importlib
from typing import TYPE_CHECKING, Any

# Light and imported at once: the head-to-head statistics, the results, the scales (no numpy).
# ``pairwise`` is both a submodule and its function: binding the function here, as an eager
# import does, keeps ``from ratings import pairwise`` the function whoever imported first.
from ratings.pairwise import (
    PairStats,
    Pentanomial,
    colour_pairs,
    likelihood_of_superiority,
    pairwise,
    pentanomial_error,
    score_to_elo,
    trinomial_error,
)
from ratings.scale import SCALES
from ratings.sources import GameResult

if TYPE_CHECKING:
    from ratings.counts import Counts, aggregate, aggregate_arrays
    from ratings.model import RatingFit, fit_ratings
    from ratings.prior import Prior, version_parents
    from ratings.sprt import (
        Decision,
        Sprt,
        SprtStatus,
        bounds,
        llr_pentanomial,
        llr_trinomial,
    )
    from ratings.verdict import Outcome, Verdict, VerdictSettings, parent_verdict

_LAZY: dict[str, str] = {
    **dict.fromkeys(("Counts", "aggregate", "aggregate_arrays"), "ratings.counts"),
    **dict.fromkeys(("RatingFit", "fit_ratings"), "ratings.model"),
    **dict.fromkeys(("Prior", "version_parents"), "ratings.prior"),
    **dict.fromkeys(("Decision", "Sprt", "SprtStatus", "bounds", "llr_pentanomial",
                     "llr_trinomial"), "ratings.sprt"),
    **dict.fromkeys(("Outcome", "Verdict", "VerdictSettings", "parent_verdict"),
                    "ratings.verdict"),
}
"""The names that need numpy (the fits, SPRT, verdicts), imported on first use: a caller that
only counts pairs (``arena run`` without a report) never loads numpy."""


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'ratings' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "SCALES",
    "Counts",
    "Decision",
    "GameResult",
    "Outcome",
    "PairStats",
    "Pentanomial",
    "Prior",
    "RatingFit",
    "Sprt",
    "SprtStatus",
    "Verdict",
    "VerdictSettings",
    "aggregate",
    "aggregate_arrays",
    "bounds",
    "colour_pairs",
    "fit_ratings",
    "likelihood_of_superiority",
    "llr_pentanomial",
    "llr_trinomial",
    "pairwise",
    "parent_verdict",
    "pentanomial_error",
    "score_to_elo",
    "trinomial_error",
    "version_parents",
]
