"""The league report's page: :func:`page` lays out :class:`~reports.league_data.LeagueData`.

The look is the run report's (its stylesheet, inlined), plus a few rules of its own. Element
ids and classes are stable (``#leaderboard`` rows carry ``data-version``, rating cells the class
``rating`` and the exact value in ``data-value``) so that tests and scripts can find the numbers.
Everything a person typed (bot names, authors, rejection reasons) is escaped.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Final

from arena.leaguedir.versions import Version
from ratings.pairwise import PairStats
from reports.html import _asset, _e
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
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>League report: {_e(name)}</title>
<link rel="icon" href="data:,">
<style>{_asset("report.css")}{LEAGUE_CSS}</style>
</head><body>
{_header(data, name, exports)}
<nav>{"".join(f'<a href="#{s}">{s}</a>' for s in NAV)}</nav>
<main>
{chr(10).join(s for s in sections if s)}
</main>
<script>document.body.setAttribute("data-ready", "1");</script>
</body></html>
"""


# ----- numbers as text ----------------------------------------------------------------------

def _f(x: float | None, fmt: str = ".1f", signed: bool = False) -> str:
    """A number as shown: blank for none or NaN, ∞ for an unbounded value."""
    if x is None or math.isnan(x):
        return ""
    if math.isinf(x):
        return ("+∞" if x > 0 else "−∞") if signed else "∞"
    return format(x, ("+" if signed else "") + fmt)


def _pct(x: float) -> str:
    return _f(100.0 * x if not math.isnan(x) else x)


def _value(x: float | None) -> str:
    """The exact value for a ``data-value`` attribute (empty when there is none)."""
    return "" if x is None or math.isnan(x) else repr(float(x))


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else ""


def _rows(rows: list[str]) -> str:
    return "".join(rows)


def _table(table_id: str, head: list[str], rows: list[str], extra: str = "") -> str:
    header = "".join(f"<th>{_e(h)}</th>" for h in head)
    return (f'<div class="scroll"><table class="data{extra}" id="{table_id}"><thead><tr>'
            f"{header}</tr></thead><tbody>{_rows(rows)}</tbody></table></div>")


# ----- sections -----------------------------------------------------------------------------

def _header(data: LeagueData, name: str, exports: dict[str, Path]) -> str:
    closed = len(data.summaries)
    open_nights = len(data.nights) - closed
    active = sum(1 for v in data.versions if v.state == "active")
    links = " · ".join(f'<a href="{_e(p.as_posix())}">{_e(p.name)}</a>'
                       for p in exports.values())
    return f"""<header><h1>League report: {_e(name)}</h1>
<div class="meta">{closed} closed night(s){f" + {open_nights} open" if open_nights else ""} ·
{data.closed_games} games · {active} active version(s) of {len(data.versions)} submitted ·
updated {_e(_when(time.time()))} · {links}</div></header>"""


def _change(row: Standing) -> str:
    if math.isnan(row.change):
        return '<td class="change"></td>'
    if abs(row.change) < 0.05:
        return f'<td class="change" data-value="{_value(row.change)}">=</td>'
    arrow, cls = ("↑", "up") if row.change > 0 else ("↓", "down")
    return (f'<td class="change {cls}" data-value="{_value(row.change)}">'
            f"{arrow} {abs(row.change):.1f}</td>")


def _note(row: Standing) -> str:
    parts = ['<span class="new">new</span>'] if row.new else []
    if row.bound:
        parts.append(_e(f"rating is a {row.bound} bound ("
                        f"{'won' if row.bound == 'lower' else 'lost'} every game)"))
    if row.group is not None:
        parts.append(_e(f"group {row.group}: " + (
            "order only, no rating" if math.isnan(row.rating)
            else "rated inside its group only")))
    if not row.games:
        parts.append("no games yet")
    return " ".join(parts)


def _standing_row(row: Standing, los: bool = True) -> str:
    bound = {"lower": "≥ ", "upper": "≤ "}.get(row.bound, "")
    shown = f"{bound}{_f(row.rating, signed=True)}"
    if row.group is not None:  # results that only order the versions
        shown = (f"order (group {row.group})" if math.isnan(row.rating)
                 else f"{shown} in group {row.group}")
    cells = [
        f'<td class="rank">{row.rank}</td>',
        f'<td class="version">{_e(row.version)}</td>',
        f'<td class="rating" data-value="{_value(row.rating)}">{_e(shown)}</td>',
        f'<td class="error" data-value="{_value(row.error)}">{_f(row.error)}</td>',
        f'<td class="games">{row.games}</td>',
        f'<td class="points">{row.points:g}</td>',
        f'<td class="score">{_pct(row.score)}</td>',
    ]
    if los:
        cells.append(f'<td class="los">{_pct(row.los_next)}</td>')
        cells.append(_change(row))
    cells.append(f'<td class="note">{_note(row) if los else ""}</td>')
    return f'<tr data-version="{_e(row.version)}">{"".join(cells)}</tr>'


def _leaderboard(data: LeagueData) -> str:
    head = ["#", "version", "rating", "±", "games", "points", "score %", "LOS vs next %",
            "change", "note"]
    table = _table("leaderboard", head, [_standing_row(r) for r in data.leaderboard])
    previous = "the night before" if len(data.history) > 1 else "no earlier night"
    return f"""<section id="leaderboard-section"><h2>Leaderboard</h2>
<p class="hint">Active versions, from one maximum-likelihood fit over every game of the
{len(data.summaries)} closed night(s) (Ordo scale; ±: 95% error). LOS: likelihood that the version
is stronger than the one below it, from the fit. Change: rating now against the snapshot of
{previous} (ratings are relative to the pool's average, so a version can move without
playing); <span class="new">new</span>: not rated in that snapshot. A night still being
played counts once it closes.</p>
{table}{_retired(data.retired)}{_rejected(data.rejected(), data.pending())}</section>"""


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
        rows = [
            f'<tr data-version="{_e(v.label)}"><td>{_e(v.label)}</td>'
            f"<td>{_e(_when(v.submitted_at))}</td><td>{_e(v.author)}</td>"
            f'<td class="step">{_e(v.step)}</td><td class="reason">{_e(v.reason)}</td></tr>'
            for v in rejected
        ]
        out += "<h3>Rejected submissions</h3>" + _table(
            "rejected-table", ["version", "submitted", "author", "failed at", "reason"], rows)
    if pending:
        names = ", ".join(_e(v.label) for v in pending)
        out += f'<p class="hint" id="pending">Being built and checked: {names}.</p>'
    return out


def _history(data: LeagueData, chart: Path) -> str:
    nights = [s.night for s in data.history]
    versions = sorted({p.version for p in data.points}, key=_label_key)
    cell = {(p.night, p.version): p for p in data.points}
    rows = []
    for night in nights:
        cells = []
        for v in versions:
            p = cell.get((night, v))
            text = "" if p is None or p.rating is None else (
                _f(p.rating, signed=True) + (f" ± {_f(p.error)}" if p.error is not None else ""))
            cells.append(f"<td>{_e(text)}</td>")
        rows.append(f'<tr data-night="{_e(night)}"><td>{_e(night)}</td>{"".join(cells)}</tr>')
    stamp = int(time.time())
    return f"""<section id="history"><h2>Rating history</h2>
<p class="hint">Each version's rating in the snapshot taken after every closed night, with its
95% band: what the league said that morning (snapshots are never recomputed).</p>
<div class="charts"><img id="history-chart" src="{_e(chart.as_posix())}?v={stamp}"
alt="ratings of every version over the nights, with 95% bands"></div>
<details><summary>the numbers ({len(nights)} nights × {len(versions)} versions)</summary>
{_table("history-table", ["night", *versions], rows)}</details></section>"""


def _label_key(label: str) -> tuple[str, int]:
    name, _, number = label.rpartition("@")
    return (name, int(number)) if number.isdigit() else (label, 0)


def _versions(data: LeagueData) -> str:
    if not data.bots:
        return ('<section id="versions"><h2>Versions of one bot</h2><p class="hint">No bot has '
                "played with two versions yet.</p></section>")
    blocks = []
    for bot in data.bots:
        rows = [
            f'<tr data-version="{_e(s.version)}"><td>{_e(s.version)}</td><td>{_e(s.state)}</td>'
            f'<td class="rating" data-value="{_value(s.rating)}">{_f(s.rating, signed=True)}</td>'
            f'<td class="error" data-value="{_value(s.error)}">{_f(s.error)}</td>'
            f'<td class="games">{s.games}</td><td class="score">{_pct(s.score)}</td></tr>'
            for s in bot.versions
        ]
        steps = [_step_row(step.newer, step.older, step.meeting, step.fit_diff, step.fit_los)
                 for step in bot.steps]
        blocks.append(
            f'<div class="bot" data-bot="{_e(bot.name)}"><h3>{_e(bot.name)}</h3>'
            + _table(f"versions-{_e(bot.name)}",
                     ["version", "state", "rating", "±", "games", "score %"], rows)
            + _table(f"steps-{_e(bot.name)}",
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
              fit_los: float) -> str:
    label = f"{newer} vs {older}"
    if meeting is None:
        head = '<td class="games">0</td>' + "".join(
            f'<td class="{c}"></td>' for c in ("wins", "draws", "losses", "score", "elo",
                                                "elo-error", "penta-error", "los"))
    else:
        penta = meeting.penta_elo_error if meeting.penta.pairs else math.nan
        head = (
            f'<td class="games">{meeting.games}</td><td class="wins">{meeting.wins}</td>'
            f'<td class="draws">{meeting.draws}</td><td class="losses">{meeting.losses}</td>'
            f'<td class="score">{_pct(meeting.score)}</td>'
            f'<td class="elo">{_f(meeting.elo, signed=True)}</td>'
            f'<td class="elo-error">{_f(meeting.elo_error)}</td>'
            f'<td class="penta-error">{_f(penta)}</td>'
            f'<td class="los">{_pct(meeting.los)}</td>')
    return (f'<tr data-step="{_e(label)}"><td>{_e(label)}'
            f'{"" if meeting else " (never met)"}</td>{head}'
            f'<td class="fit-diff">{_f(diff, signed=True)}</td>'
            f'<td class="fit-los">{_pct(fit_los)}</td></tr>')


def _cap_note(data: LeagueData, shown: int) -> str:
    played = sum(1 for s in data.leaderboard if s.games)
    if played <= shown:
        return ""
    return (f'<p class="hint cap">The best {shown} of {played} active versions (cap '
            f"{CROSSTABLE_CAP}); export/pairs.csv holds every pair.</p>")


def _crosstable(data: LeagueData) -> str:
    players = data.crosstable_players()
    rows = []
    for a in players:
        cells = []
        for b in players:
            stats = data.pair(a, b) if a != b else None
            if stats is None:
                cells.append("<td></td>")
            else:
                cells.append(f'<td data-games="{stats.games}" data-points="{stats.points:g}">'
                             f"{stats.points:g}/{stats.games}</td>")
        rows.append(f'<tr data-version="{_e(a)}"><th>{_e(a)}</th>{"".join(cells)}</tr>')
    return f"""<section id="crosstable"><h2>Crosstable</h2>
<p class="hint">Points of the row version against the column version / games, over every closed
night; active versions, best first.</p>{_cap_note(data, len(players))}
{_table("crosstable-table", ["version", *players], rows)}</section>"""


def _pentanomial(data: LeagueData) -> str:
    players = data.crosstable_players()
    rows = []
    for s in data.pairs(players):
        p = s.penta
        rows.append(
            f'<tr data-pair="{_e(s.player)} vs {_e(s.opponent)}"><td>{_e(s.player)}</td>'
            f"<td>{_e(s.opponent)}</td><td>{s.games}</td><td>{s.wins}</td><td>{s.draws}</td>"
            f"<td>{s.losses}</td><td>{p.pairs}</td><td>{p.ll}</td><td>{p.ld}</td>"
            f"<td>{p.dd}/{p.wl}</td><td>{p.wd}</td><td>{p.ww}</td>"
            f"<td>{_f(s.elo, signed=True)}</td><td>{_f(s.elo_error)}</td>"
            f"<td>{_f(s.penta_elo_error) if p.pairs else ''}</td><td>{_pct(s.los)}</td></tr>")
    return f"""<section id="pentanomial"><h2>Head to head, pentanomial</h2>
<p class="hint">Every pair that met, from the better-ranked side. Pairs: colour pairs (same
opening, colours swapped) by outcome: LL, LD, DD/WL (one point either way), WD, WW. Elo diff
from the score, with its 95% error from the games (trinomial) and from the pairs (pentanomial:
the honest one for paired games).</p>{_cap_note(data, len(players))}
{_table("pentanomial-table", ["version", "opponent", "games", "W", "D", "L", "pairs", "LL",
                              "LD", "DD/WL", "WD", "WW", "Elo diff", "±", "± (pentanomial)",
                              "LOS %"], rows)}</section>"""


def _night_row(row: NightRow) -> str:
    faults = sum(row.faults.values())
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(row.faults.items()))
    movers = ", ".join(f"{v} {c:+.1f}" for v, c in row.movers)
    report = games = pgn = ""
    if row.report is not None:
        href = _e(row.report.as_posix())
        report = f'<a class="night-report" href="{href}">report</a>'
        games = f'<a class="night-games" href="{href}#games">games</a>'
    if row.pgn is not None:
        pgn = f'<a class="night-pgn" href="{_e(row.pgn.as_posix())}">PGN</a>'
    state = "closed" if row.closed else "open"
    return (f'<tr data-night="{_e(row.night)}"><td>{_e(row.night)}</td><td>{state}</td>'
            f'<td class="games">{row.games if row.closed else ""}</td>'
            f'<td class="faults">{faults if row.closed else ""}</td><td>{_e(kinds)}</td>'
            f'<td class="movers">{_e(movers)}</td>'
            f'<td class="new-versions">{_e(", ".join(row.new_versions))}</td>'
            f"<td>{report} {games} {pgn}</td></tr>")


def _nights(data: LeagueData) -> str:
    rows = [_night_row(r) for r in data.night_rows]
    return f"""<section id="nights"><h2>Nights</h2>
<p class="hint">Newest first. Faults: games lost by a bot's own failure. Moved: the biggest
rating changes against the night before's snapshot. Each night's own report lists its games
and opens them in its viewer.</p>
{_table("nights-table", ["night", "state", "games", "faults", "by kind", "moved",
                         "new versions", "files"], rows)}</section>"""


def _exports(exports: dict[str, Path]) -> str:
    items = "".join(f'<li><a href="{_e(p.as_posix())}">{_e(p.as_posix())}</a>: {_e(what)}</li>'
                    for what, p in exports.items())
    return f'<section id="exports"><h2>Exports</h2><ul>{items}</ul></section>'


def _notes(notes: list[str]) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{_e(t)}</li>" for t in notes)
    return f'<section id="notes"><h2>Notes</h2><ul>{items}</ul></section>'
