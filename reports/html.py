"""The HTML report of a run: ``build_report(run_dir)`` writes ``RUN_DIR/report.html`` and its files.

Layout of what it writes (all beside the journal, nothing fetched from the network)::

    report.html            tables, charts, game list and viewer (CSS and JS inlined)
    games.csv              one row per game
    standings.csv          the standings table
    report/*.png           charts
    report/index.js        the game list, loaded by report.html
    report/games/*.js      one viewer file per game (cached between builds)
    report/journal-summary.msgpack  the journal's summary, so a refresh reads only new games

The runner calls :func:`build_report` every few games during a run and once at the end, so it
is idempotent, rewrites files atomically (a browser reloading mid-build sees the old or the new
file, never half of one) and re-renders only viewer files of games it has not seen before.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from arena.atomicfile import write_atomic, write_with
from arena.rundir.layout import (
    CONFIG_COPY,
    GAMES_CSV,
    REPORT_DIR,
    REPORT_INDEX,
    STANDINGS_CSV,
    RunDir,
)
from ratings.model import RatingFit
from referee.record import BOT_FAULTS
from reports import charts, format_tables, rating_tables, tables
from reports.context import RunContext, context_rows, read_context, sprt_llr
from reports.game_stats import game_statistics, partie_endings, partie_games, partie_points
from reports.htmlkit import (
    Cell,
    Html,
    Row,
    asset,
    data_value,
    document,
    element,
    escape,
    frame_table,
    hint,
    image,
    number,
    section,
    table,
    when,
)
from reports.journal_summary import JournalSummary, summarise_journal
from reports.latency_tables import latency_tables
from reports.rating_tables import RatedJournal
from reports.viewer_files import DEFAULT_VIEWER_LIMIT, render_viewers
from reports.workers import worker_table

NAV = (
    "context", "faults", "standings", "ratings", "crosstable", "endings", "colours", "openings",
    "moves", "games",
)


@dataclass(frozen=True)
class ReportPage:
    """Everything the report's page shows, computed once by :func:`build`; :func:`render`
    lays it out."""

    name: str
    """The run directory's name (the page's title)."""
    journal: JournalSummary
    games: pd.DataFrame
    standings: pd.DataFrame
    points: pd.DataFrame
    """The crosstable's points (row bot against column bot), with ``count`` its games."""
    count: pd.DataFrame
    pairs: pd.DataFrame
    """Head to head, from the higher-ranked bot's side."""
    faults: pd.DataFrame
    colours: pd.DataFrame
    advantage: pd.DataFrame
    move_table: pd.DataFrame
    charts: dict[str, Path]
    notes: list[str]
    context: RunContext
    order: list[str]
    """The bots in the standings' order, the one order of every table."""
    stats: pd.DataFrame | None = None
    sprt_text: str = ""
    by_worker: pd.DataFrame | None = None
    latency: tuple[pd.DataFrame, pd.DataFrame] | None = None
    """Delays per move, per bot and per referee process (:mod:`reports.latency_tables`)."""
    openings: pd.DataFrame | None = None
    known_order: str = ""
    """The order the results prove when no rating exists across groups, as text."""
    progression_note: str = ""
    """Why the rating progression chart is not drawn (empty: it is)."""


@dataclass
class Built:
    """What one build produced (the paths and the frames, for callers and tests)."""

    html: Path
    standings: pd.DataFrame
    games: pd.DataFrame
    charts: dict[str, Path]
    viewers: dict[str, str]
    notes: list[str] = field(default_factory=list)


def build_report(run_dir: Path, viewer_limit: int | None = DEFAULT_VIEWER_LIMIT,
                 rated: RatedJournal | None = None) -> Path:
    """Write (or refresh) the report of ``run_dir``; return the path of ``report.html``.
    ``rated``: the journal and its fit, already made by the caller (read and fitted here
    otherwise)."""
    return build(Path(run_dir), viewer_limit=viewer_limit, rated=rated).html


def build(run_dir: Path, viewer_limit: int | None = DEFAULT_VIEWER_LIMIT,
          rated: RatedJournal | None = None) -> Built:
    """Build everything and return what was built: the journal is read once (its summary,
    from the cache and the lines since) and its games fitted once, unless ``rated`` brings
    both."""
    files = RunDir(run_dir)
    out = files.report_dir
    out.mkdir(exist_ok=True)
    if rated is None:
        rated = RatedJournal.of(summarise_journal(run_dir, cache=files.summary_cache))
    journal = rated.journal
    games = tables.games_frame(journal)
    bots = journal.bots
    notes: list[str] = []

    ranking = rating_tables.rank(games, bots, rated.fit)
    rating, standings = ranking.rating, ranking.standings
    if rating is not None:
        notes.extend(rating.notes)
    # One order everywhere: the standings'.
    order = ranking.order
    wdl = ranking.wdl.reindex(order)
    points, count = tables.crosstable(games, order)
    faults = tables.terminations(games, bots).reindex(order)
    colours = tables.colours(games)
    openings = tables.openings(games)
    advantage = rating_tables.first_move_advantage(games, bots, rated.fit)
    moves = tables.moves_by_bot(journal)
    by_bot = {b: moves[b] for b in order if b in moves}
    move_table = tables.move_stats(by_bot)
    progress = rating_tables.progression(games, bots, whole=rated.fit)
    pairs = rating_tables.head_to_head(journal, order)
    context = read_context(run_dir)
    notes.extend(context.problems)
    stats = game_statistics(games)

    built_charts = {
        "elo": charts.elo_chart(standings, out / "elo.png"),
        "crosstable": charts.crosstable_heatmap(points, count, out / "crosstable.png"),
        "colours": charts.colour_chart(colours, out / "colours.png"),
        "endings": charts.endings_chart(wdl, faults, out / "endings.png"),
        "lengths": charts.length_histogram(games, out / "lengths.png"),
        "move_time": charts.move_time_chart(by_bot, out / "move_time.png"),
    }
    progression_note = rating_tables.progression_gap(progress)
    if progression_note is None:
        built_charts["progression"] = charts.progression_chart(
            progress, out / "progression.png", order)
    search = charts.search_chart(by_bot, out / "search.png")
    if search is not None:
        built_charts["search"] = search
    sprt_text = ""
    if context.sprt is not None and context.config is not None and len(context.config.bots) >= 2:
        tested, opponent = context.config.bots[0].name, context.config.bots[1].name
        llr, status = sprt_llr(context.sprt, tested, opponent, journal.games)
        sprt_text = f"SPRT {tested} vs {opponent}: {status.describe()}"
        built_charts["sprt"] = charts.sprt_chart(
            llr, status.lower, status.upper, f"SPRT {tested} vs {opponent}", out / "sprt.png")

    viewers = render_viewers(journal, out, viewer_limit)
    if len(viewers) < len(journal.games):
        notes.append(
            f"viewer files were made for {len(viewers)} of {len(journal.games)} games "
            f"(limit {viewer_limit}): every game that ended by a bot's fault first, then the "
            "most recent ones; `arena report --viewer-limit 0` renders all"
        )
    write_atomic(files.report_index, _index_js(journal, viewers))

    write_with(files.games_csv, lambda tmp: games.to_csv(tmp, index=False))
    write_with(files.standings_csv, lambda tmp: standings.to_csv(tmp, index=False))
    by_worker = worker_table(journal)
    if by_worker is not None:
        write_with(files.workers_csv, lambda tmp: by_worker.to_csv(tmp))

    page = ReportPage(
        name=run_dir.name, journal=journal, games=games, standings=standings, points=points,
        count=count, pairs=pairs, faults=faults, colours=colours, advantage=advantage,
        move_table=move_table, charts=built_charts, notes=notes, context=context,
        stats=stats, sprt_text=sprt_text, by_worker=by_worker, openings=openings,
        latency=latency_tables(journal),
        order=order, known_order=_known_order(rating), progression_note=progression_note or "",
    )
    target = files.report_page
    write_atomic(target, render(page))
    return Built(target, standings, games, built_charts, viewers, notes)


def _index_js(journal: JournalSummary, viewers: dict[str, str]) -> str:
    """The game list as compact rows: names are indices into ``bots`` and ``games``."""
    bots = {b: i for i, b in enumerate(journal.bots)}
    names = sorted({g.game for g in journal.games})
    game_index = {n: i for i, n in enumerate(names)}
    rows = [
        [g.key, g.id, game_index[g.game], bots[g.p1], bots[g.p2], g.result, g.termination,
         g.plies, g.reason, viewers.get(g.key, 0),
         f"transcripts/{g.transcript}" if g.transcript else 0]
        for g in journal.games
    ]
    data = {"bots": journal.bots, "games": names, "rows": rows}
    return "arenaIndex(" + json.dumps(data, separators=(",", ":"), ensure_ascii=False) + ");\n"


# ----- page ---------------------------------------------------------------------------------

def _img(path: Path, alt: str) -> str:
    return image(f"{REPORT_DIR}/{path.name}?v={int(path.stat().st_mtime)}", alt)


def _context_section(rows: list[tuple[str, str]]) -> str:
    return section("context", "Context", table(
        [], [[Cell(key, header=True), value] for key, value in rows], id="context-table",
        class_="context", scroll=False))


def _standings_display(standings: pd.DataFrame) -> pd.DataFrame:
    shown = pd.DataFrame(
        {
            "rank": standings["rank"],
            "bot": standings["bot"],
            "Elo": [rating_tables.rating_text(v, e, b, int(g), bool(o)) for v, e, b, g, o in zip(
                standings["elo"], standings["elo_error"], standings["bound"],
                standings["group"], standings["order_only"], strict=True)],
            "games": standings["games"],
            "W": standings["wins"],
            "D": standings["draws"],
            "L": standings["losses"],
            "score %": standings["score_pct"],
            "LOS vs next %": standings["los_next_pct"],
            "note": standings["note"],
        }
    )
    return shown


def _fault_section(faults: pd.DataFrame, games: pd.DataFrame) -> str:
    culprits = faults[faults["faults"] > 0]
    interrupted = int((games["result"] == "*").sum())
    if culprits.empty:
        extra = f" {interrupted} game(s) were interrupted." if interrupted else ""
        return (
            '<section id="faults" class="ok"><h2>Faults</h2><p>No time forfeits, crashes, '
            f"illegal moves, stalls or protocol errors.{extra}</p></section>"
        )
    faulty = games[games["termination"].isin(BOT_FAULTS)]
    loser = faulty["p1"].where(faulty["winner"] == 1, faulty["p2"])
    first_reason = faulty["reason"].groupby(loser.to_numpy()).first()
    items = []
    for bot, row in culprits.iterrows():
        parts = []
        for fault in BOT_FAULTS:
            n = int(row[fault])
            if n:
                parts.append(
                    f'{n} {escape(fault)} <button type="button" data-filter-bot="{escape(bot)}" '
                    f'data-filter-term="{escape(fault)}">show</button>'
                )
        example = first_reason.get(bot)
        why = f'<br><span class="hint">e.g. {escape(example)}</span>' if example else ""
        items.append(
            f"<li><b>{escape(bot)}</b> lost {int(row['faults'])} of {int(row['games'])} games by "
            f"faults: {', '.join(parts)}{why}</li>"
        )
    return (
        '<section id="faults" class="alert"><h2>Faults: games lost by a bot\'s own failure</h2>'
        f"<ul>{''.join(items)}</ul></section>"
    )


def _worker_section(by_worker: pd.DataFrame | None) -> str:
    """Results per cluster worker (``arena run --cluster``); nothing for a local run."""
    if by_worker is None:
        return ""
    return (
        '<section id="workers"><h2>By worker</h2><p class="hint">Games, mean time per bot '
        "move and each bot's score on every cluster worker: a slower machine shows as longer "
        "moves.</p>" + frame_table(by_worker, "workers-table", index=True) + "</section>"
    )


def _latency_section(latency: tuple[pd.DataFrame, pd.DataFrame] | None) -> str:
    """Delays per move, per bot and per referee process; nothing for an older journal."""
    if latency is None:
        return ""
    by_bot, by_referee = latency
    return (
        '<section id="latency"><h2>Latency</h2><p class="hint">Per move, in ms: the '
        "referee's own time from one bot's move to the next <code>go</code> (referee), from "
        "that <code>go</code> to the bot's first line (to first line), and the move's time "
        "that the bot's own <code>info time</code> did not count (unreported), and, where "
        "think slots let only so many bots think at once, the game's wait for a slot before "
        "that <code>go</code> (slot wait: a queue, on no clock), and, for moves on a "
        "clock, the part of the move the bot's threads waited for a CPU, not charged to its "
        "clock (CPU wait: a machine busier than its cores). Each game "
        "keeps a median, a 99th percentile and a maximum; here the median of the medians "
        "and the highest of the others.</p>"
        + frame_table(by_bot, "latency-bots", index=True)
        + frame_table(by_referee, "latency-referees", index=True) + "</section>"
    )


def render(page: ReportPage) -> Html:
    """The whole page: the header, the sections in NAV order, the viewer dialog."""
    rounds_html = _rounds_section(page.context, page.games)
    sections = [
        _context_section(context_rows(page.context, page.games)),
        _fault_section(page.faults, page.games),
        rounds_html,
        _standings_section(page.standings, page.known_order),
        _ratings_section(page.charts, page.sprt_text, page.progression_note),
        _crosstable_section(page.points, page.count, page.pairs, page.charts),
        _endings_section(page.faults, page.charts),
        _colours_section(page.colours, page.advantage, page.charts),
        _openings_section(page.openings),
        _moves_section(page.move_table, page.stats, page.charts,
                       _parties_html(page.journal, page.order)),
        _worker_section(page.by_worker),
        _latency_section(page.latency),
        GAMES_SECTION,
        _notes_section(page.notes),
    ]
    body = "\n" + "\n".join(sections) + "\n"
    return document(f"Arena report: {page.name}", Html(f"""
{_header(page.name, page.journal, page.games)}
<nav>{"".join(f'<a href="#{s}">{s}</a>' for s in _nav(rounds_html))}</nav>
<main>{body}</main>
{VIEWER}
<script>{asset("board.js")}
{asset("report.js")}</script>
<script src="{REPORT_DIR}/{REPORT_INDEX}?v={int(time.time())}"></script>
"""), head=Html(f"\n<style>{asset('report.css')}</style>"))


def _nav(rounds_html: str) -> tuple[str, ...]:
    """NAV, with the bracket or the Swiss standings before the standings when there is one."""
    if not rounds_html:
        return NAV
    section = "bracket" if 'id="bracket"' in rounds_html else "swiss"
    at = NAV.index("standings")
    return (*NAV[:at], section, *NAV[at:])


def _rounds_section(context: RunContext, games: pd.DataFrame) -> str:
    """A knockout's bracket or a Swiss tournament's standings and pairings; "" otherwise."""
    config = context.config
    if config is None or config.format not in ("knockout", "swiss"):
        return ""
    results = format_tables.first_mover_results(games)
    try:
        if config.format == "knockout":
            frame = format_tables.knockout_frame(config, results)
            winner = format_tables.champion(config, results)
            head = (f"<p><strong>{escape(winner)}</strong> wins the knockout.</p>" if winner
                    else "<p>The knockout is in progress.</p>")
            return ('<section id="bracket"><h2>Knockout bracket</h2>' + head
                    + '<p class="hint">Round by round: each match\'s score (the first-named '
                    "bot's points first, seeds in brackets), its games, and who went on. A tie "
                    f"adds colour pairs, up to {config.tiebreak_pairs}; a tie after them goes "
                    "to the better seed.</p>"
                    + frame_table(frame, "bracket-table") + "</section>")
        table, pairings = format_tables.swiss_frames(config, results)
    except (KeyError, ValueError) as exc:  # a journal that does not fit the config copy
        return (f'<section id="swiss"><h2>Rounds</h2><p>Cannot rebuild the rounds from '
                f"{CONFIG_COPY} and the journal: {escape(exc)}</p></section>")
    return ('<section id="swiss"><h2>Swiss standings</h2>'
            f'<p class="hint">{config.rounds} rounds. Score is game points (a bye counts '
            f"{config.bye_points:g} a game); ties broken by Buchholz (the opponents' scores), "
            "Sonneborn-Berger (each game's points times that opponent's score), the direct "
            "encounter among the tied bots, games won, then seed.</p>"
            + frame_table(table, "swiss-table") + "<h3>Pairings</h3>"
            + frame_table(pairings, "swiss-pairings") + "</section>")


def _header(name: str, journal: JournalSummary, games: pd.DataFrame) -> str:
    """Title and one line of facts: games, game names, bots, when, the CSV files."""
    n = len(games)
    done = len(tables.finished(games))
    names = ", ".join(sorted(games["game"].unique())) or "none yet"
    updated = when(time.time(), seconds=True)
    return f"""<header><h1>Arena report: {escape(name)}</h1>
<div class="meta">{n} games ({done} finished) · game: {escape(names)} · {len(journal.bots)} bots ·
updated {escape(updated)} · <a href="{GAMES_CSV}">{GAMES_CSV}</a> ·
<a href="{STANDINGS_CSV}">{STANDINGS_CSV}</a></div></header>"""


def _known_order(rating: RatingFit | None) -> str:
    """The order the results alone give, when they split the bots into groups (the
    maximum-likelihood fit's separation, or the Bayesian fit's known order)."""
    if rating is None:
        return ""
    known = rating.separation or rating.known_order
    return "" if known is None else known.describe(rating.players)


def _standings_section(standings: pd.DataFrame, known_order: str = "") -> str:
    bayes = "on_prior" in standings and not standings["group"].gt(0).any()
    if known_order and bayes:
        known = (
            '<p class="known-order" id="known-order"><b>Known order (from the results '
            f"alone):</b> {escape(known_order)}. No group ever won or drew a game against a "
            "group above it, so the distances between the groups rest on the prior, not on "
            "games: those ratings are marked (rests on the prior) and their intervals are wide."
            + (" ?: no results order the two neighbours." if " ? " in known_order else "")
            + "</p>")
    elif known_order:
        known = (
            '<p class="known-order" id="known-order"><b>Known order (no rating across '
            f"groups):</b> {escape(known_order)}. No group ever won or drew a game against a "
            "group above it, so no finite rating exists across groups: the Elo column gives "
            "each bot's group, and a rating only inside a group of several (not comparable "
            "across groups)."
            + (" ?: no results order the two neighbours." if " ? " in known_order else "")
            + "</p>")
    else:
        known = ""
    return f"""<section id="standings"><h2>Standings</h2>{known}
<p class="hint">Elo: Bayesian fit (Ordo scale, a Gaussian prior on every rating: a number for
every bot) with its 95% credible interval; a rating marked "rests on the prior" is placed by
the prior rather than by games (the results alone only order it: a bot that won or lost every
game, or groups of which one never scored against another) and its interval is wide. LOS:
likelihood that the bot is stronger than the one ranked below it. Fewer than
{rating_tables.SMALL_SAMPLE} games: flagged as a small sample (rough error bars).</p>
{frame_table(_standings_display(standings), "standings-table")}
</section>"""


def _ratings_section(built_charts: dict[str, Path], sprt_text: str,
                     progression_note: str = "") -> str:
    """The Elo and progression charts (the latter only when it has something to show), and
    the SPRT chart when the run had an SPRT."""
    sprt_html = (
        f'<h3>SPRT</h3><p class="hint">{escape(sprt_text)}</p><div class="charts">'
        f'{_img(built_charts["sprt"], "SPRT log-likelihood ratio against games")}</div>'
        if "sprt" in built_charts else ""
    )
    progression = (_img(built_charts["progression"], "rating progression as games accumulate")
                   if "progression" in built_charts else "")
    note = (f'<p class="hint" id="progression-note">No rating progression chart: '
            f"{escape(progression_note)}.</p>" if progression_note else "")
    return f"""<section id="ratings"><h2>Ratings</h2><div class="charts">
{_img(built_charts["elo"], "Elo with error bars per bot")}
{progression}
</div>{note}{sprt_html}</section>"""


def _crosstable_section(
    points: pd.DataFrame, count: pd.DataFrame, pairs: pd.DataFrame, built_charts: dict[str, Path]
) -> str:
    return f"""<section id="crosstable"><h2>Crosstable</h2>
<p class="hint">Points of the row bot against the column bot / games played.</p>
<div class="charts">
{frame_table(tables.crosstable_display(points, count), "crosstable-table", index=True)}
{_img(built_charts["crosstable"], "score matrix heatmap")}</div>
<h3>Head to head</h3>
<p class="hint">From the higher-ranked bot's side. Elo diff: what the score implies (95% error);
LOS from wins and losses; pairs: colour pairs (same opening, colours swapped) scoring 0, 1/2, 1,
3/2, 2 points. ∞ (or +∞/−∞): the games say nothing finite, because every game ended
the same way (all wins, all losses or all draws): play more games.</p>
{frame_table(pairs, "pairs-table")}
</section>"""


def _endings_section(faults: pd.DataFrame, built_charts: dict[str, Path]) -> str:
    fault_cols = ["games", *BOT_FAULTS, "faults", "normal", "adjudication", "interrupted"]
    return f"""<section id="endings"><h2>How games ended, per bot</h2>
<p class="hint">Fault columns count games the bot lost by that fault.</p>
{frame_table(faults[fault_cols], "endings-table", index=True)}
<div class="charts">{_img(built_charts["endings"], "game endings per bot")}</div>
</section>"""


def _colours_section(
    colours: pd.DataFrame, advantage: pd.DataFrame, built_charts: dict[str, Path]
) -> str:
    colour_table = colours.merge(advantage, on="game", how="left") if len(colours) else colours
    return f"""<section id="colours"><h2>Results by colour</h2>
<p class="hint">p1 moves first. First-move advantage is fitted with the ratings, per game.</p>
{frame_table(colour_table, "colours-table")}
<div class="charts">{_img(built_charts["colours"], "results by colour")}</div>
</section>"""


OPENINGS_SHOWN = 200
"""Rows of the openings table on the page: a book of thousands of openings would make the page
heavy, and the most unbalanced ones, those worth a look, come first."""


OPENING_HEAD = ("opening", "source", "games", "p1 wins", "draws", "p2 wins", "p1 score",
                "p2 score", "p1 score %", "95% interval", "imbalance %", "favours")


def _openings_section(openings: pd.DataFrame | None) -> str:
    """Results per opening, most unbalanced first: each named by its moves and its source
    line, with the first mover's score and its interval."""
    if openings is None:
        return ""
    more: Html | str = ""
    if len(openings) > OPENINGS_SHOWN:
        more = hint(f"The {OPENINGS_SHOWN} most unbalanced of {len(openings)} openings; the ",
                    element("code", "opening"), ", ", element("code", "start_position"),
                    " and ", element("code", "opening_source"), f" columns of {GAMES_CSV} "
                    "name every game's.")
        openings = openings.head(OPENINGS_SHOWN)
    return section(
        "openings", "Results by opening",
        hint("Each opening is played by pairs of games with colours swapped, so a sound one "
             "gives p1 (who moves first from the game's start) and p2 about half the points "
             "each, whichever bot sits where. An opening is named by its moves (or the "
             "position it starts from), its source by the book's file and line. The interval "
             "bounds p1's score % (95%, Wilson, draws as half points): a score in bold is "
             "lopsided beyond what its games explain, by this opening alone (",
             element("code", "arena openings prune"), " weighs the whole book). Imbalance: "
             "the difference between the two sides' score % (0: even, 100: one side won "
             "every game); the most unbalanced openings come first: look there for broken "
             "ones."),
        table(OPENING_HEAD, [_opening_row(row) for row in openings.to_dict("records")],
              id="openings-table"),
        more)


def _opening_row(row: dict[str, Any]) -> Row:
    """One opening's row; p1's score is bold when its interval leaves out 50%."""
    low, high, share = (float(row[k]) for k in ("p1 low %", "p1 high %", "p1 score %"))
    lopsided = low > 50.0 or high < 50.0
    score = number(share)
    return Row([
        Cell(element("code", row["opening"]), class_="opening"),
        row["source"], row["games"], row["p1 wins"], row["draws"], row["p2 wins"],
        number(row["p1 score"]), number(row["p2 score"]),
        Cell(element("strong", score) if lopsided else score,
             data={"value": data_value(share)}),
        f"{number(low)}–{number(high)}", number(row["imbalance %"]),
        row["favours"],
    ], class_="lopsided" if lopsided else None)


def _parties_html(journal: JournalSummary, order: list[str]) -> str:
    """Points by kind for each game of the run played as rounds of parties (Donkan)."""
    blocks = []
    for game in partie_games(journal):
        endings = partie_endings(journal, game)
        blocks.append(
            f'<div><h3>Parties: {escape(game)}</h3><p class="hint">Every partie of the finished '
            "games, by how it ended (a king captured: 1 point; the castle: 2 points; a "
            "repetition or the ply cap: none), then each bot's points by kind.</p>"
            f'{frame_table(endings, f"partie-endings-{game}")}'
            + frame_table(partie_points(journal, game, order), f"partie-points-{game}",
                          index=True) +
            "</div>")
    return "".join(blocks)


def _moves_section(
    move_table: pd.DataFrame, stats: pd.DataFrame | None, built_charts: dict[str, Path],
    parties_html: str = "",
) -> str:
    """Game statistics and lengths (and a game's parties), then time and search per bot."""
    stats_html = frame_table(stats, "game-stats-table") if stats is not None else ""
    search_img = (
        _img(built_charts["search"], "search depth and nodes per bot")
        if "search" in built_charts else '<p class="hint">No bot reported depth or nodes.</p>'
    )
    return f"""<section id="moves"><h2>Moves: length, time, search</h2>
<div class="charts"><div><h3>Games</h3>
<p class="hint">Finished games per game type: games played, wins (decisive games) and
draws, wins of the player who moves first (p1) and second (p2), and moves per game in plies
(mean, longest, shortest).</p>
{stats_html}</div>
{_img(built_charts["lengths"], "game length histogram")}</div>
{f'<div class="charts">{parties_html}</div>' if parties_html else ""}
{frame_table(move_table, "moves-table", index=True)}
<div class="charts">
{_img(built_charts["move_time"], "time per move per bot")}
{search_img}
</div></section>"""


GAMES_SECTION = """<section id="games"><h2>Games</h2>
<div class="filters">
<label>bot <select id="f-bot"></select></label>
<label>result <select id="f-result"><option value="">any result</option>
<option value="1-0">1-0</option><option value="0-1">0-1</option>
<option value="1/2-1/2">1/2-1/2</option><option value="*">*</option>
<option value="won">bot won</option><option value="drew">bot drew</option>
<option value="lost">bot lost</option></select></label>
<label>ending <select id="f-term"></select></label>
<label>game <select id="f-game"></select></label>
<label><input type="checkbox" id="f-viewer"> with viewer</label>
<label>search <input type="search" id="f-text" placeholder="id or reason"></label>
</div>
<div class="scroll"><table class="data" id="game-table"><thead><tr><th></th><th>id</th>
<th>game</th><th>p1</th><th>p2</th><th>result</th><th>ending</th><th>plies</th>
<th>reason</th></tr></thead><tbody></tbody></table></div>
<div class="pager"><button type="button" id="prev-page">previous</button>
<button type="button" id="next-page">next</button><span id="page-info"></span></div>
</section>"""
"""The game list's filters, table and pager; report.js fills them from report/index.js."""


def _notes_section(notes: list[str]) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{escape(t)}</li>" for t in notes)
    return f'<section id="notes"><h2>Notes</h2><ul>{items}</ul></section>'


VIEWER = """
<div id="viewer" role="dialog" aria-modal="true"><div class="panel">
<div class="top"><h2 id="v-title"></h2><button type="button" id="v-close">close (Esc)</button></div>
<div id="v-players" class="hint"></div>
<div class="hint"><a id="v-transcript" hidden>protocol transcript</a></div>
<div id="v-error" class="err"></div>
<div class="body"><div class="boardcol"><div id="board"></div>
<div class="caption" id="v-caption"></div>
<div class="controls"><button type="button" id="v-first" title="Home">|&lt;</button>
<button type="button" id="v-prev" title="left arrow">&lt;</button>
<button type="button" id="v-next" title="right arrow">&gt;</button>
<button type="button" id="v-last" title="End">&gt;|</button>
<button type="button" id="v-flip">flip</button>
<span id="v-ply"></span><span id="v-state" class="kbd"></span></div>
<div class="clocks"><span>p1 clock <b id="v-clock0">-</b></span>
<span>p2 clock <b id="v-clock1">-</b></span></div>
<div class="kbd">keys: left/right step, up/down 10 plies, Home/End, Esc closes</div></div>
<div class="movecol"><div id="v-moves"><table><thead><tr><th>ply</th><th>move</th><th>time</th>
<th>clock</th><th>eval</th><th>depth</th><th>nodes</th></tr></thead><tbody></tbody>
</table></div></div></div></div></div>
"""
"""The game viewer dialog (hidden until a game is opened); report.js drives it."""
