"""The report as plain text (``arena report RUN_DIR --text``): the standings and the statistics
blocks, read from the journal the way the HTML report reads it, with nothing written.

For a terminal, a log or a pipe: no charts, no viewers, no files. The numbers are the HTML
report's own (the same frames: :mod:`reports.rating_tables`, :mod:`reports.game_stats`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pandas as pd

from reports import format_tables, rating_tables, tables
from reports.context import read_context
from reports.game_stats import stats_text
from reports.journal_summary import summarise_journal
from reports.rating_tables import rating_text

OPENINGS_SHOWN: Final = 20
"""Openings listed in the text: the most unbalanced, those worth a look."""


def text_report(run_dir: Path) -> str:
    """Standings (with the known order when the results only order the bots), the notes of
    the rating fit, a knockout's bracket or the Swiss standings, the statistics blocks of
    every game of the run, and the most unbalanced openings."""
    journal = summarise_journal(run_dir)
    games = tables.games_frame(journal)
    bots = journal.bots
    ranking = rating_tables.rank(games, bots, rating_tables.fit_journal(journal))
    rating, standings, order = ranking.rating, ranking.standings, ranking.order
    done = len(tables.finished(games))
    names = ", ".join(sorted(games["game"].unique())) or "none yet"
    lines = [f"Arena report: {Path(run_dir).name} ({len(games)} games, {done} finished; "
             f"game: {names}; {len(bots)} bots)", "", "Standings"]
    if rating is not None and rating.separation is not None:
        known = rating.separation.describe(rating.players)
        lines.append(f"Known order (no rating across groups): {known}")
    shown = pd.DataFrame({
        "#": standings["rank"],
        "bot": standings["bot"],
        "Elo": [rating_text(v, e, b, int(g), bool(o)) or "-" for v, e, b, g, o in zip(
            standings["elo"], standings["elo_error"], standings["bound"], standings["group"],
            standings["order_only"], strict=True)],
        "games": standings["games"],
        "W": standings["wins"],
        "D": standings["draws"],
        "L": standings["losses"],
        "score %": standings["score_pct"].map(lambda x: "-" if x != x else f"{x:.1f}"),
    })
    if len(shown):
        lines += shown.to_string(index=False).splitlines()
    else:
        lines.append("no games yet")
    for note in rating.notes if rating is not None else []:
        lines.append(f"note: {note}")
    context = read_context(run_dir)
    if context.config is not None:
        try:
            bracket = format_tables.rounds_text(context.config,
                                                format_tables.first_mover_results(games))
        except (KeyError, ValueError) as exc:  # a journal that does not fit the config copy
            bracket = f"cannot rebuild the rounds from the config copy and the journal: {exc}"
        if bracket:
            lines += ["", bracket]
    lines.append("")
    lines.append(stats_text(games, journal, order))
    openings = tables.openings(games)
    if len(openings) > 1:  # a run from one start position has nothing to compare
        shown = openings.head(OPENINGS_SHOWN)
        lines += ["", f"Results by opening (the {len(shown)} most unbalanced of "
                  f"{len(openings)})" if len(openings) > OPENINGS_SHOWN
                  else "Results by opening (most unbalanced first)"]
        lines += shown.to_string(index=False).splitlines()
    return "\n".join(lines).rstrip("\n") + "\n"
