"""An author's own page: their bots' versions, rating history, results and games, and the
files only they may read (build and check logs, their bots' stderr logs, their games'
transcripts).

The numbers are the league report's (:func:`reports.league_data.read_league`: the fit over
the closed nights, ``history.jsonl``), filtered to the author's versions, never recomputed;
the games come from the nights' journals (:func:`reports.journal_summary.summarise_journal`), each
linked into its night's report, where the viewer opens it.

Which files are the author's (:func:`own_file`): a version's ``build.log``/``check.log`` when
the bot is theirs; a night's stderr log when its name is the one the runner gives their
version's process (:meth:`arena.rundir.layout.RunDir.stderr_log`); a transcript when a game of that
night between their version and another names it. A transcript holds both sides' protocol lines:
the opponent's side is its moves and search info, which the game record shows anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote

from arena.league.authors import bots_of
from arena.leaguedir.directory import BUILD_LOG, CHECK_LOG, LeagueDir
from arena.leaguedir.versions import Version, read_versions
from reports.htmlkit import Cell, Html, Row, escape, join, link, number, table, when
from reports.journal_summary import GameSummary, JournalError, summarise_journal
from reports.league_data import LeagueData, read_league

MAX_GAMES: Final = 300
"""Games listed on the page (the newest): the nights' reports hold them all."""


@dataclass(frozen=True)
class NightGame:
    night: str
    game: GameSummary


def author_versions(league: LeagueDir, author: str) -> list[Version]:
    """The versions ``author`` submitted of the bots they own: not the rejected versions of a
    name another author held before it was freed (their logs and reasons are that author's)."""
    bots = set(bots_of(league, author))
    return [v for v in read_versions(league) if v.name in bots and v.author == author]


def own_games(league: LeagueDir, labels: set[str], limit: int = MAX_GAMES) -> list[NightGame]:
    """The games of ``labels`` in every night, newest night first, at most ``limit``."""
    found: list[NightGame] = []
    for night in reversed(league.night_names()):
        run = league.night(night)
        if not run.journal.is_file():
            continue
        try:
            summary = summarise_journal(run.root)
        except JournalError:
            continue
        mine = [g for g in summary.games if g.p1 in labels or g.p2 in labels]
        found += [NightGame(night, g) for g in reversed(mine)]
        if len(found) >= limit:
            return found[:limit]
    return found


def own_file(league: LeagueDir, author: str, night: str, kind: str, relative: str) -> Path | None:
    """The night's file ``kind/relative`` if it is the author's to read, else None."""
    labels = {v.label for v in author_versions(league, author)}
    if night not in league.night_names():
        return None
    run = league.night(night)
    if kind == "logs":
        for label in labels:
            pooled = run.stderr_log(label)
            per_game = run.stderr_log(label, "g")
            allowed = (pooled.relative_to(run.logs).as_posix(),)
            folder = per_game.parent.relative_to(run.logs).as_posix()
            parts = relative.split("/")
            if relative in allowed or (len(parts) == 2 and parts[0] == folder
                                       and parts[1].endswith(".stderr.log")
                                       and not parts[1].startswith(".")):
                return run.logs / relative
        return None
    if kind == "transcripts":
        for item in own_games(league, labels, limit=10**9):
            if item.night == night and item.game.transcript == relative:
                return run.transcript(relative)
    return None


def _elo(x: float | None) -> str:
    return number(x, ".0f", signed=True) or "-"


def _score(x: float) -> str:
    shown = number(100 * x, ".0f")
    return f"{shown}%" if shown else "-"


def author_body(league: LeagueDir, author: str, pending_per_author: int,
                upload_mb: float) -> str:
    """The page's HTML body (the submission form, then one section per bot)."""
    e = escape
    versions = author_versions(league, author)
    data: LeagueData = read_league(league.root)
    labels = {v.label for v in versions}
    base = f"/authors/{quote(author)}"
    out = [f"""<header><h1>Arena league: {e(author)}</h1>
<div class="meta"><a href="/league/report.html">league report</a> ·
<button type="button" id="logout">log out</button></div>
</header><main>
<section id="submit"><h2>Submit a bot</h2>
<p class="hint">A <code>.zip</code>, <code>.tar.gz</code> or <code>.tar</code> of the bot's
folder (with its optional <code>bot.toml</code>), or a single source file; at most
{upload_mb:g} MB. A new name becomes yours; a name of yours gets a new version. At most
{pending_per_author} submissions wait at once; they are built one at a time.</p>
<form id="submit-form"><label>bot name <input id="bot-name" name="bot" required
pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{{0,63}}"></label>
<label>file <input id="bot-file" name="file" type="file" required></label>
<button type="submit" id="submit-button">submit</button></form>
<p id="submit-message" class="hint"></p>
<h3>Your submissions</h3>
<div class="scroll"><table class="data" id="jobs"><thead><tr><th>submitted</th><th>bot</th>
<th>file</th><th>version</th><th>progress</th><th>reason</th><th>logs</th></tr></thead>
<tbody></tbody></table></div></section>"""]
    by_bot: dict[str, list[Version]] = {}
    for v in versions:
        by_bot.setdefault(v.name, []).append(v)
    if not by_bot:
        out.append('<section id="bots"><p class="hint">No bots yet.</p></section>')
    standing = {s.version: s for s in data.leaderboard + data.retired}
    players = data.fit.players if data.fit is not None else []
    games = own_games(league, labels)
    for name, mine in sorted(by_bot.items()):
        rows = []
        for v in mine:
            s = standing.get(v.label)
            logs = join((link(f"{base}/logs/{quote(v.name)}/{v.number}/{log}", log,
                              class_="log")
                         for log in (BUILD_LOG, CHECK_LOG)
                         if (league.version_dir(v.name, v.number) / log).is_file()), " ")
            rows.append(Row([
                v.label, Cell(v.state, "state"), when(v.submitted_at, missing="-"),
                Cell(_elo(s.rating if s else None), "rating"), Cell(s.games if s else 0, "games"),
                f"{v.step}{': ' if v.step else ''}{v.reason}", logs], {"version": v.label}))
        history = [[p.night, p.version, _elo(p.rating),
                    "-" if p.error is None else f"± {number(p.error, '.0f')}", p.games]
                   for p in data.points if p.version in {v.label for v in mine}]
        results = []
        for v in mine:
            for other in players:
                stats = data.pair(v.label, other) if other != v.label else None
                if stats is not None and stats.games:
                    results.append(Row([
                        v.label, other, Cell(stats.wins, "wins"), Cell(stats.draws, "draws"),
                        Cell(stats.losses, "losses"), _score(stats.score)],
                        {"pair": f"{v.label} vs {other}"}))
        bot_games = []
        for item in games:
            g = item.game
            if not {g.p1, g.p2} & {v.label for v in mine}:
                continue
            night = quote(item.night)
            links = [link(f"/league/nights/{night}/report.html#game={quote(g.key)}", "view",
                          class_="view")]
            run = league.night(item.night)
            for label in {g.p1, g.p2} & {v.label for v in mine}:
                for path in (run.stderr_log(label), run.stderr_log(label, g.id)):
                    if path.is_file():
                        rel = path.relative_to(run.logs).as_posix()
                        links.append(link(f"{base}/nights/{night}/logs/{quote(rel)}", "stderr",
                                          class_="stderr"))
            if g.transcript:
                links.append(link(f"{base}/nights/{night}/transcripts/{quote(g.transcript)}",
                                  "transcript", class_="transcript"))
            bot_games.append(Row([item.night, g.id, g.p1, g.p2, g.result, g.termination,
                                  g.plies, join(links, " ")], {"game": g.key}))
        out.append(f"""<section class="bot" data-bot="{e(name)}"><h2>{e(name)}</h2>
<h3>Versions</h3>{table(["version", "state", "submitted", "Elo", "games", "why", "logs"],
                        rows, class_="versions")}
<h3>Rating history</h3>{_table("history", ["night", "version", "Elo", "error", "games"],
                               history)}
<h3>Results against each opponent</h3>{_table(
    "results", ["version", "opponent", "W", "D", "L", "score"], results)}
<h3>Games</h3>{_table("games", ["night", "id", "p1", "p2", "result", "ending", "plies", ""],
                      bot_games)}
</section>""")
    out.append("</main>")
    return "\n".join(out)


def _table(kind: str, head: list[str], rows: list[Row] | list[list[object]]) -> Html:
    if not rows:
        return Html(f'<p class="hint {kind}">None yet (after a night).</p>')
    return table(head, rows, class_=kind)
