"""The league report's page: :func:`page` lays out :class:`~reports.league_data.LeagueData`.

The look is the run report's (its stylesheet, inlined), plus a few rules of its own. Element
ids and classes are stable (``#leaderboard`` rows carry ``data-version``, rating cells the class
``rating`` and the exact value in ``data-value``) so that tests and scripts can find the numbers.
Everything a person typed (bot names, authors, rejection reasons) is escaped.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from arena.leaguedir.versions import Version, label_sort_key
from ratings.pairwise import PairStats
from reports.htmlkit import (
    Cell,
    Html,
    Row,
    asset,
    data_value,
    document,
    element,
    escape,
    hint,
    join,
    link,
    number,
    percent,
    table,
    when,
)
from reports.league_data import CROSSTABLE_CAP, LeagueData, NightRow, Standing

NAV: Final = ("leaderboard", "history", "versions", "crosstable", "pentanomial", "nights",
              "exports")

LEAGUE_CSS: Final = """
td.up { color: var(--good); } td.down { color: var(--bad); }
span.new { background: #fff3c4; border: 1px solid #e0c060; border-radius: 3px; padding: 0 4px;
           font-size: 11px; font-weight: 600; color: #6b5200; }
div.bot { margin: 10px 0 18px; } div.bot h3 { color: var(--ink); }
td.reason { text-align: left; white-space: normal; max-width: 520px; }
details summary { cursor: pointer; color: var(--accent); margin: 6px 0; }
"""


def page(data: LeagueData, chart: Path, exports: dict[str, Path]) -> str:
    """The whole page; ``chart`` and ``exports`` are paths relative to the league directory."""
    sections = [
        _leaderboard(data),
        _history(data, chart),
        _versions(data),
        _crosstable(data),
        _pentanomial(data),
        _nights(data),
        _exports(exports),
        _notes(data.notes),
    ]
    name = data.league.root.resolve().name
    return document(f"League report: {name}", Html(f"""
{_header(data, name, exports)}
<nav>{"".join(f'<a href="#{s}">{s}</a>' for s in NAV)}</nav>
<main>
{chr(10).join(s for s in sections if s)}
</main>
<script>document.body.setAttribute("data-ready", "1");</script>
"""), head=Html(f"\n<style>{asset('report.css')}{LEAGUE_CSS}</style>"))


def _table(table_id: str, head: list[str], rows: Sequence[Row | Html]) -> Html:
    return table(head, rows, id=table_id)


# ----- sections -----------------------------------------------------------------------------

def _header(data: LeagueData, name: str, exports: dict[str, Path]) -> str:
    closed = len(data.summaries)
    open_nights = len(data.nights) - closed
    active = sum(1 for v in data.versions if v.state == "active")
    links = " · ".join(f'<a href="{escape(p.as_posix())}">{escape(p.name)}</a>'
                       for p in exports.values())
    return f"""<header><h1>League report: {escape(name)}</h1>
<div class="meta">{closed} closed night(s){f" + {open_nights} open" if open_nights else ""} ·
{data.closed_games} games · {active} active version(s) of {len(data.versions)} submitted ·
updated {escape(when(time.time()))} · {links}</div></header>"""


def _change(row: Standing) -> Cell:
    if math.isnan(row.change):
        return Cell("", "change")
    if abs(row.change) < 0.05:
        return Cell("=", "change", {"value": data_value(row.change)})
    arrow, cls = ("↑", "up") if row.change > 0 else ("↓", "down")
    return Cell(f"{arrow} {abs(row.change):.1f}", f"change {cls}",
                {"value": data_value(row.change)})


def _note(row: Standing) -> Html:
    parts: list[object] = [Html('<span class="new">new</span>')] if row.new else []
    if row.bound:
        parts.append(f"rating is a {row.bound} bound ("
                     f"{'won' if row.bound == 'lower' else 'lost'} every game)")
    if row.group is not None:
        parts.append(f"group {row.group}: " + (
            "order only, no rating" if math.isnan(row.rating)
            else "rated inside its group only"))
    if not row.games:
        parts.append("no games yet")
    return join(parts, " ")


def _standing_row(row: Standing, los: bool = True) -> Html:
    bound = {"lower": "≥ ", "upper": "≤ "}.get(row.bound, "")
    shown = f"{bound}{number(row.rating, signed=True)}"
    if row.group is not None:  # results that only order the versions
        shown = (f"order (group {row.group})" if math.isnan(row.rating)
                 else f"{shown} in group {row.group}")
    cells = [
        Cell(row.rank, "rank"),
        Cell(row.version, "version"),
        Cell(shown, "rating", {"value": data_value(row.rating)}),
        Cell(number(row.error), "error", {"value": data_value(row.error)}),
        Cell(row.games, "games"),
        Cell(f"{row.points:g}", "points"),
        Cell(percent(row.score), "score"),
    ]
    if los:
        cells += [Cell(percent(row.los_next), "los"), _change(row)]
    cells.append(Cell(_note(row) if los else "", "note"))
    return Row(cells, {"version": row.version}).html()


def _leaderboard(data: LeagueData) -> str:
    head = ["#", "version", "rating", "±", "games", "points", "score %", "LOS vs next %",
            "change", "note"]
    leaders = _table("leaderboard", head, [_standing_row(r) for r in data.leaderboard])
    previous = "the night before" if len(data.history) > 1 else "no earlier night"
    return f"""<section id="leaderboard-section"><h2>Leaderboard</h2>
<p class="hint">Active versions, from one maximum-likelihood fit over every game of the
{len(data.summaries)} closed night(s) (Ordo scale; ±: 95% error). LOS: likelihood that the version
is stronger than the one below it, from the fit. Change: rating now against the snapshot of
{previous} (ratings are relative to the pool's average, so a version can move without
playing); <span class="new">new</span>: not rated in that snapshot. A night still being
played counts once it closes.</p>
{leaders}{_retired(data.retired)}{_rejected(data.rejected(), data.pending())}</section>"""


def _retired(rows: list[Standing]) -> str:
    if not rows:
        return ""
    body = [_standing_row(r, los=False) for r in rows]
    return ("<h3>Retired</h3>" + _table(
        "retired-table", ["#", "version", "rating", "±", "games", "points", "score %", ""],
        body))


def _rejected(rejected: list[Version], pending: list[Version]) -> str:
    out = ""
    if rejected:
        rows = [Row([v.label, when(v.submitted_at), v.author, Cell(v.step, "step"),
                     Cell(v.reason, "reason")], {"version": v.label}) for v in rejected]
        out += "<h3>Rejected submissions</h3>" + _table(
            "rejected-table", ["version", "submitted", "author", "failed at", "reason"], rows)
    if pending:
        names = ", ".join(v.label for v in pending)
        out += hint(f"Being built and checked: {names}.", id="pending")
    return out


def _history(data: LeagueData, chart: Path) -> str:
    nights = [s.night for s in data.history]
    versions = sorted({p.version for p in data.points}, key=label_sort_key)
    cell = {(p.night, p.version): p for p in data.points}
    rows = []
    for night in nights:
        cells: list[object] = [night]
        for v in versions:
            p = cell.get((night, v))
            cells.append("" if p is None or p.rating is None else (
                number(p.rating, signed=True)
                + (f" ± {number(p.error)}" if p.error is not None else "")))
        rows.append(Row(cells, {"night": night}))
    stamp = int(time.time())
    return f"""<section id="history"><h2>Rating history</h2>
<p class="hint">Each version's rating in the snapshot taken after every closed night, with its
95% band: what the league said that morning (snapshots are never recomputed).</p>
<div class="charts"><img id="history-chart" src="{escape(chart.as_posix())}?v={stamp}"
alt="ratings of every version over the nights, with 95% bands"></div>
<details><summary>the numbers ({len(nights)} nights × {len(versions)} versions)</summary>
{_table("history-table", ["night", *versions], rows)}</details></section>"""


def _versions(data: LeagueData) -> str:
    if not data.bots:
        return ('<section id="versions"><h2>Versions of one bot</h2><p class="hint">No bot has '
                "played with two versions yet.</p></section>")
    blocks = []
    for bot in data.bots:
        rows = [
            Row([s.version, s.state,
                 Cell(number(s.rating, signed=True), "rating", {"value": data_value(s.rating)}),
                 Cell(number(s.error), "error", {"value": data_value(s.error)}),
                 Cell(s.games, "games"), Cell(percent(s.score), "score")],
                {"version": s.version})
            for s in bot.versions
        ]
        steps = [_step_row(step.newer, step.older, step.meeting, step.fit_diff, step.fit_los)
                 for step in bot.steps]
        blocks.append(
            f'<div class="bot" data-bot="{escape(bot.name)}"><h3>{escape(bot.name)}</h3>'
            + _table(f"versions-{bot.name}",
                     ["version", "state", "rating", "±", "games", "score %"], rows)
            + _table(f"steps-{bot.name}",
                     ["newer vs older", "games", "W", "D", "L", "score %", "Elo diff", "±",
                      "± (pentanomial)", "LOS %", "fit: rating diff", "fit: LOS %"], steps)
            + "</div>")
    return f"""<section id="versions"><h2>Versions of one bot</h2>
<p class="hint">Is the new version better than the one before? W/D/L, score and Elo diff are the
newer version's games against the older one (all nights; ± 95%, trinomial and, when the games
came in colour pairs, pentanomial); LOS from those wins and losses. The fit's columns use every
game of both versions, against everyone.</p>
{"".join(blocks)}</section>"""


def _step_row(newer: str, older: str, meeting: PairStats | None, diff: float,
              fit_los: float) -> Row:
    label = f"{newer} vs {older}"
    if meeting is None:
        head = [Cell(0, "games"), *(Cell("", c) for c in (
            "wins", "draws", "losses", "score", "elo", "elo-error", "penta-error", "los"))]
    else:
        penta = meeting.penta_elo_error if meeting.penta.pairs else math.nan
        head = [
            Cell(meeting.games, "games"), Cell(meeting.wins, "wins"),
            Cell(meeting.draws, "draws"), Cell(meeting.losses, "losses"),
            Cell(percent(meeting.score), "score"),
            Cell(number(meeting.elo, signed=True), "elo"),
            Cell(number(meeting.elo_error), "elo-error"), Cell(number(penta), "penta-error"),
            Cell(percent(meeting.los), "los")]
    return Row([label + ("" if meeting else " (never met)"), *head,
                Cell(number(diff, signed=True), "fit-diff"), Cell(percent(fit_los), "fit-los")],
               {"step": label})


def _cap_note(data: LeagueData, shown: int) -> str:
    played = sum(1 for s in data.leaderboard if s.games)
    if played <= shown:
        return ""
    return hint(f"The best {shown} of {played} active versions (cap {CROSSTABLE_CAP}); "
                "export/pairs.csv holds every pair.", class_="cap")


def _crosstable(data: LeagueData) -> str:
    players = data.crosstable_players()
    rows = []
    for a in players:
        cells = [Cell(a, header=True)]
        for b in players:
            stats = data.pair(a, b) if a != b else None
            cells.append(Cell() if stats is None else Cell(
                f"{stats.points:g}/{stats.games}",
                data={"games": stats.games, "points": f"{stats.points:g}"}))
        rows.append(Row(cells, {"version": a}))
    return f"""<section id="crosstable"><h2>Crosstable</h2>
<p class="hint">Points of the row version against the column version / games, over every closed
night; active versions, best first.</p>{_cap_note(data, len(players))}
{_table("crosstable-table", ["version", *players], rows)}</section>"""


def _pentanomial(data: LeagueData) -> str:
    players = data.crosstable_players()
    rows = []
    for s in data.pairs(players):
        p = s.penta
        rows.append(Row(
            [s.player, s.opponent, s.games, s.wins, s.draws, s.losses, p.pairs, p.ll, p.ld,
             f"{p.dd}/{p.wl}", p.wd, p.ww, number(s.elo, signed=True), number(s.elo_error),
             number(s.penta_elo_error) if p.pairs else "", percent(s.los)],
            {"pair": f"{s.player} vs {s.opponent}"}))
    return f"""<section id="pentanomial"><h2>Head to head, pentanomial</h2>
<p class="hint">Every pair that met, from the better-ranked side. Pairs: colour pairs (same
opening, colours swapped) by outcome: LL, LD, DD/WL (one point either way), WD, WW. Elo diff
from the score, with its 95% error from the games (trinomial) and from the pairs (pentanomial:
the honest one for paired games).</p>{_cap_note(data, len(players))}
{_table("pentanomial-table", ["version", "opponent", "games", "W", "D", "L", "pairs", "LL",
                              "LD", "DD/WL", "WD", "WW", "Elo diff", "±", "± (pentanomial)",
                              "LOS %"], rows)}</section>"""


def _night_row(row: NightRow) -> Row:
    faults = sum(row.faults.values())
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(row.faults.items()))
    movers = ", ".join(f"{v} {c:+.1f}" for v, c in row.movers)
    files: list[object] = ["", " ", "", " ", ""]
    if row.report is not None:
        href = row.report.as_posix()
        files[0] = link(href, "report", class_="night-report")
        files[2] = link(f"{href}#games", "games", class_="night-games")
    if row.pgn is not None:
        files[4] = link(row.pgn.as_posix(), "PGN", class_="night-pgn")
    return Row([row.night, "closed" if row.closed else "open",
                Cell(row.games if row.closed else "", "games"),
                Cell(faults if row.closed else "", "faults"), kinds, Cell(movers, "movers"),
                Cell(", ".join(row.new_versions), "new-versions"), join(files)],
               {"night": row.night})


def _nights(data: LeagueData) -> str:
    rows = [_night_row(r) for r in data.night_rows]
    return f"""<section id="nights"><h2>Nights</h2>
<p class="hint">Newest first. Faults: games lost by a bot's own failure. Moved: the biggest
rating changes against the night before's snapshot. Each night's own report lists its games
and opens them in its viewer.</p>
{_table("nights-table", ["night", "state", "games", "faults", "by kind", "moved",
                         "new versions", "files"], rows)}</section>"""


def _exports(exports: dict[str, Path]) -> str:
    items = join(element("li", link(p.as_posix(), p.as_posix()), f": {what}")
                 for what, p in exports.items())
    return f'<section id="exports"><h2>Exports</h2><ul>{items}</ul></section>'


def _notes(notes: list[str]) -> str:
    if not notes:
        return ""
    items = join(element("li", t) for t in notes)
    return f'<section id="notes"><h2>Notes</h2><ul>{items}</ul></section>'
