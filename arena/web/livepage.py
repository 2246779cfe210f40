"""The live page's HTML, filled from a snapshot: the first paint, before (or without) JavaScript.

The page's script (``assets/live.js``) redraws every part from each snapshot the server
pushes; the server writes the same parts, from the same snapshot, into the page it sends, so
the first response already shows the games in progress (players, ply, clocks, the board as
the rules draw it in text), the standings, the crosstable and the finished games: a browser
without JavaScript, a slow one, or a screenshot sees the run, not an empty frame. The ids and
classes are the ones the script fills in place. Without JavaScript the page reloads itself
every :data:`NO_SCRIPT_REFRESH_SECONDS`.
"""

from __future__ import annotations

import time
from typing import Any, Final
from urllib.parse import quote

from reports.htmlkit import Cell, Html, Row, escape, link, table, time_of_day

NO_SCRIPT_REFRESH_SECONDS: Final = 10
"""A page without JavaScript gets no pushed snapshot: it reloads itself this often."""


def game_pgn_url(key: str) -> str:
    """Where the live server sends a finished game's PGN (it exists as soon as the game is
    journaled, before the report's viewer has the game)."""
    return f"/game/{quote(key, safe='')}.pgn"


def progress_text(snap: dict[str, Any]) -> str:
    """The header's line: games finished (of the schedule's), games in progress, problems."""
    total = f"/{snap['total']}" if snap.get("total") else ""
    text = (f"{snap.get('done') or 0}{total} games finished, "
            f"{len(snap.get('running') or [])} in progress")
    for key in ("error", "report_error"):
        if snap.get(key):
            text += f" · {snap[key]}"
    return text


def final_caption(doc: dict[str, Any] | None) -> str:
    """The caption of a replayed game's last position (``partie 1 ply 2``), as the viewer
    shows it: captions are given by index, only where they change."""
    if not doc or not doc.get("captions"):
        return ""
    index = 0
    for frame in doc.get("frames", []):
        index = frame.get("c", index)
    captions = doc["captions"]
    return str(captions[index]) if 0 <= index < len(captions) else ""


def running_hint(game: dict[str, Any]) -> str:
    """The line under a running game's title: game, time control, ply, last move, clocks
    and the position's caption (the script writes the same)."""
    text = game["game"] + (f" {game['time_control']}" if game.get("time_control") else "")
    text += f", ply {game['plies']}"
    if game.get("last"):
        text += f", last move {game['last']}"
    for side, ms in enumerate(game.get("clocks") or []):
        if ms is not None:
            text += f" · p{side + 1} {ms / 1000:.1f} s"
    caption = final_caption(game.get("doc"))
    if caption:
        text += f" · {caption}"
    return text


def _board_card(game: dict[str, Any]) -> str:
    diagram = game.get("diagram") or (game.get("doc") or {}).get("error") or "no board yet"
    return (f'<div class="board-card" data-game="{escape(game["id"])}">'
            f'<h3>{escape(game["id"])}: {escape(game["p1"])} vs {escape(game["p2"])}</h3>'
            f'<div class="hint">{escape(running_hint(game))}</div>'
            f'<div class="live-board"><pre class="diagram">{escape(diagram)}</pre></div></div>')


STANDINGS_HEAD: Final = ("rank", "bot", "Elo", "games", "W", "D", "L", "score %", "note")
FINISHED_HEAD: Final = ("", "id", "p1", "p2", "result", "ending", "plies", "reason")


def _standings(rows: list[dict[str, Any]]) -> Html:
    return table(STANDINGS_HEAD, [[
        s["rank"], s["bot"], s["elo"], s["games"], s["wins"], s["draws"], s["losses"],
        "" if s["score_pct"] is None else f"{s['score_pct']:.1f}", s["note"]] for s in rows],
        id="standings-table")


def _crosstable(cross: dict[str, Any] | None) -> Html:
    """The crosstable (its head and body empty until the first game: the script fills them)."""
    if not cross:
        return Html('<div class="scroll"><table class="data" id="crosstable-table">'
                    "<thead></thead><tbody></tbody></table></div>")
    return table(["", *cross["bots"]], [
        [Cell(bot, header=True), *cells]
        for bot, cells in zip(cross["bots"], cross["cells"], strict=False)],
        id="crosstable-table")


def finished_link(game: dict[str, Any]) -> Html:
    """The first cell of a finished game: the report's viewer once it has the game, its PGN
    until then (never a link to nothing)."""
    if game.get("viewer"):
        href = f"/run/report.html#game={quote(game['key'], safe='')}&ply=0"
        return link(href, "view", target="_blank", class_="view")
    return link(game_pgn_url(game["key"]), "PGN", target="_blank", class_="pgn")


def _finished(games: list[dict[str, Any]]) -> Html:
    return table(FINISHED_HEAD, [
        Row([finished_link(g), g["id"], g["p1"], g["p2"], g["result"], g["termination"],
             g["plies"], g["reason"]], {"key": g["key"]}) for g in games], id="finished-table")


def no_script_head() -> str:
    """For the page's head: without JavaScript, reload now and then (nothing is pushed)."""
    return (f'<noscript><meta http-equiv="refresh" content="{NO_SCRIPT_REFRESH_SECONDS}">'
            "</noscript>")


def live_body(snap: dict[str, Any]) -> str:
    """The page's body with ``snap`` drawn in."""
    running = snap.get("running") or []
    shown_at = time_of_day(time.time())
    return f"""
<header><h1>Arena live: <span id="run-name">{escape(snap.get("run", ""))}</span></h1>
<div class="meta"><span id="progress">{escape(progress_text(snap))}</span> ·
<span id="conn">as of {shown_at}</span> ·
<a href="/run/report.html" id="report-link">full report</a></div>
<noscript><p class="hint">Without JavaScript this page shows the run as it was when loaded
and reloads itself every {NO_SCRIPT_REFRESH_SECONDS} s.</p></noscript></header>
<main>
<section id="running"><h2>Games in progress</h2>
<div id="boards" class="boards">{"".join(_board_card(g) for g in running)}</div>
<p class="hint" id="no-running"{' style="display: none"' if running else ""}>No game in
progress.</p></section>
<section id="standings"><h2>Standings</h2>
<p class="hint">Updated as games finish. Elo: maximum-likelihood fit with 95% error
(≥/≤: a bound, for a bot that won or lost every game).</p>
{_standings(snap.get("standings") or [])}</section>
<section id="crosstable"><h2>Crosstable</h2><p class="hint">Points of the row bot against the
column bot / games played.</p>{_crosstable(snap.get("crosstable"))}</section>
<section id="finished"><h2>Finished games</h2>
<p class="hint">Newest first; "view" opens the game in the report's viewer once the report
has it (it is rebuilt a few seconds after games finish), "PGN" its record until then.</p>
{_finished(snap.get("finished") or [])}</section>
</main>
"""
