"""The league report: ``build_league_report(root)`` writes ``DIR/report.html``, its chart in
``DIR/report/`` and the exports in ``DIR/export/``.

Layout of what it writes (nothing fetched from the network)::

    report.html                the page: leaderboard, history, versions, crosstables, nights
    report/history.png         every version's rating over the nights, with 95% bands
    export/leaderboard.csv     the leaderboard (and .json)
    export/history.csv         one row per night x version: night, version, rating, error,
                               games (and .json)
    export/pairs.csv           every pair that met, all nights: W/D/L, pentanomial, Elo

Called after each night closes and by ``arena report DIR`` / ``arena serve DIR``. It reads
only the small files a closed night leaves (:mod:`reports.league_data`), so a league of a
million games builds in seconds; every file is replaced atomically, so a browser reloading
mid-build sees the old page or the new one.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any, Final

from arena.atomicfile import write_atomic, write_with
from ratings.model import RatingFit
from reports.charts import league_history_chart
from reports.league_data import LeagueData, Standing, read_league
from reports.league_html import page

HISTORY_CHART: Final = "history.png"
LEGEND_VERSIONS: Final = 12
"""Versions named in a crowded history chart's legend: the leaderboard's best."""


def build_league_report(root: Path, fit: RatingFit | None = None) -> Path:
    """Write (or refresh) the report of the league at ``root``; return ``report.html``.
    ``fit``: the fit over every closed night, when the caller made it (a night closing)."""
    data = read_league(Path(root), fit=fit)
    league = data.league
    league.report_dir.mkdir(exist_ok=True)
    league.export.mkdir(exist_ok=True)
    chart = _history_chart(data, league.report_dir / HISTORY_CHART)
    exports = write_exports(data)
    relative = {what: p.relative_to(league.root) for what, p in exports.items()}
    write_atomic(league.report_page, page(data, chart.relative_to(league.root), relative))
    return league.report_page


def _history_chart(data: LeagueData, path: Path) -> Path:
    nights = [s.night for s in data.history]
    lines: dict[str, list[tuple[int, float, float]]] = {}
    for k, snap in enumerate(data.history):
        for r in snap.players:
            if r.rating is not None:
                err = math.nan if r.error is None else r.error
                lines.setdefault(r.player, []).append((k, r.rating, err))
    best = [s.version for s in data.leaderboard if s.games][:LEGEND_VERSIONS]
    return league_history_chart(nights, lines, path, highlight=best)


# ----- exports ------------------------------------------------------------------------------

def _num(x: float | None, digits: int = 2) -> float | None:
    """A number for CSV/JSON: NaN becomes empty (None); infinities too (JSON has none)."""
    if x is None or math.isnan(x) or math.isinf(x):
        return None
    return round(float(x), digits)


def leaderboard_rows(data: LeagueData) -> list[dict[str, Any]]:
    """The leaderboard as export rows (what ``leaderboard.csv`` and ``.json`` hold)."""

    def row(s: Standing) -> dict[str, Any]:
        return {
            "rank": s.rank, "version": s.version, "name": s.name, "number": s.number,
            "rating": _num(s.rating), "error": _num(s.error), "games": s.games,
            "points": s.points, "score": _num(s.score, 4), "los_next": _num(s.los_next, 4),
            "change": _num(s.change), "new": s.new, "bound": s.bound, "group": s.group,
        }

    return [row(s) for s in data.leaderboard]


def history_rows(data: LeagueData) -> list[dict[str, Any]]:
    return [{"night": p.night, "version": p.version, "rating": p.rating, "error": p.error,
             "games": p.games} for p in data.points]


def pair_rows(data: LeagueData) -> list[dict[str, Any]]:
    """Every pair that met over all closed nights (not capped like the page's tables)."""
    out = []
    for stats in data.head_to_head.values():
        p = stats.penta
        out.append({
            "version": stats.player, "opponent": stats.opponent, "games": stats.games,
            "wins": stats.wins, "draws": stats.draws, "losses": stats.losses,
            "score": _num(stats.score, 4), "elo": _num(stats.elo),
            "elo_error": _num(stats.elo_error), "los": _num(stats.los, 4), "pairs": p.pairs,
            "ll": p.ll, "ld": p.ld, "wl": p.wl, "dd": p.dd, "wd": p.wd, "ww": p.ww,
            "penta_elo_error": _num(stats.penta_elo_error) if p.pairs else None,
        })
    return out


def write_exports(data: LeagueData) -> dict[str, Path]:
    """Write every export file; returns {what it is: path}."""
    folder = data.league.export
    board, history, pairs = leaderboard_rows(data), history_rows(data), pair_rows(data)
    return {
        "leaderboard (CSV)": _csv(folder / "leaderboard.csv", board, list(_LEADERBOARD_FIELDS)),
        "leaderboard (JSON)": _json(folder / "leaderboard.json", board),
        "rating history (CSV)": _csv(folder / "history.csv", history, list(_HISTORY_FIELDS)),
        "rating history (JSON)": _json(folder / "history.json", history),
        "every pair (CSV)": _csv(folder / "pairs.csv", pairs, list(_PAIR_FIELDS)),
    }


_LEADERBOARD_FIELDS: Final = ("rank", "version", "name", "number", "rating", "error", "games",
                              "points", "score", "los_next", "change", "new", "bound",
                              "group")
_HISTORY_FIELDS: Final = ("night", "version", "rating", "error", "games")
_PAIR_FIELDS: Final = ("version", "opponent", "games", "wins", "draws", "losses", "score",
                       "elo", "elo_error", "los", "pairs", "ll", "ld", "wl", "dd", "wd", "ww",
                       "penta_elo_error")


def _csv(path: Path, rows: list[dict[str, Any]], fields: list[str]) -> Path:
    def write(tmp: Path) -> None:
        with tmp.open("w", newline="", encoding="utf-8") as fh:
            out = csv.DictWriter(fh, fieldnames=fields)
            out.writeheader()
            out.writerows(rows)

    return write_with(path, write)


def _json(path: Path, rows: list[dict[str, Any]]) -> Path:
    return write_atomic(path, json.dumps(rows, ensure_ascii=False, separators=(",", ":")) + "\n")
