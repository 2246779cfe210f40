"""The report's content: real random tournaments of every game, numbers checked independently.

Journals come from :mod:`bench.synthetic` (seeded random legal moves played by the real
rules, with simulated faults and search info) and, in one test, from a real ``arena run``
with the sample random bot. Expectations are recomputed here straight from the decoded records,
never from the report's own frames.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from report_html import html_table, read_csv

from arena.rundir.results import read_results
from bench.synthetic import BotProfile, round_robin, write_journal
from ratings import aggregate, fit_ratings
from referee.games import get_game
from referee.record import (
    BOT_FAULTS,
    GameRecord,
    MoveRecord,
    Termination,
    decode_record,
    encode_record,
)
from reports.journal_summary import JournalError, summarise_journal
from reports.replay import apply_frames, replay, start_game

# reports.html (pandas, matplotlib) is imported by the tests that build, not with the module:
# every pytest-xdist worker collects this module.
# Reports built from random tournaments of every game. Under xdist one worker runs all the
# tests of one game (tests/conftest.py: SHARED_SETUP), so each report of ``run`` is built once.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
GAMES = {
    "draughts": ({}, 160),
    "jungle": ({}, 120),
    "dobutsu": ({}, 120),
    "dvonn": ({}, 200),
    "donkan": ({"target": "2"}, 400),
}
PNG = b"\x89PNG\r\n\x1a\n"


def records_of(run: Path) -> list[GameRecord]:
    return [
        decode_record(line)
        for line in (run / "games.jsonl").read_bytes().splitlines()
        if line.strip()
    ]


@pytest.fixture(scope="module", params=sorted(GAMES))
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reports.html import build_report

    game = request.param
    options, max_plies = GAMES[game]
    run_dir = tmp_path_factory.mktemp(f"run-{game}")
    write_journal(
        run_dir,
        round_robin(
            game, games_per_pairing=4, seed=7, options=options or None, max_plies=max_plies
        ),
    )
    build_report(run_dir)
    return run_dir


def expected_wdl(records: list[GameRecord]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for r in records:
        if r.result == "*":
            continue
        for side, bot in enumerate((r.p1, r.p2)):
            c = out.setdefault(bot, Counter())
            c["games"] += 1
            if r.result == "1/2-1/2":
                c["draws"] += 1
            elif (r.result == "1-0") == (side == 0):
                c["wins"] += 1
            else:
                c["losses"] += 1
    return out


def test_standings_count_every_result(run: Path) -> None:
    records = records_of(run)
    expected = expected_wdl(records)
    rows = read_csv(run / "standings.csv")
    assert {r["bot"] for r in rows} == set(expected)
    for row in rows:
        e = expected[row["bot"]]
        assert int(row["games"]) == e["games"]
        assert (int(row["wins"]), int(row["draws"]), int(row["losses"])) == (
            e["wins"],
            e["draws"],
            e["losses"],
        )
        score = 100.0 * (e["wins"] + 0.5 * e["draws"]) / e["games"]
        assert float(row["score_pct"]) == pytest.approx(score, abs=0.05)
    # The same numbers in the HTML standings table, in rank order.
    table = html_table(run, "standings-table")
    header, body = table[0], table[1:]
    assert header[:7] == ["rank", "bot", "Elo", "games", "W", "D", "L"]
    assert [r[1] for r in body] == [r["bot"] for r in rows]
    for cells in body:
        e = expected[cells[1]]
        assert [int(c) for c in cells[3:7]] == [e["games"], e["wins"], e["draws"], e["losses"]]


def test_standings_elo_and_los_come_from_the_rating_fit(run: Path) -> None:
    fit = fit_ratings(aggregate(read_results(run)))
    rows = read_csv(run / "standings.csv")
    assert [r["bot"] for r in rows] == [fit.players[i] for i in fit.order()]
    for here, below in zip(rows, rows[1:], strict=False):
        i, j = fit.index(here["bot"]), fit.index(below["bot"])
        assert float(here["elo"]) == pytest.approx(fit.ratings[i], abs=0.06)
        assert float(here["elo_error"]) == pytest.approx(fit.errors[i], abs=0.06)
        assert float(here["los_next_pct"]) == pytest.approx(100 * fit.los[i, j], abs=0.06)
    assert rows[-1]["los_next_pct"] == ""


def test_crosstable_holds_points_against_each_opponent(run: Path) -> None:
    records = records_of(run)
    points: dict[tuple[str, str], float] = defaultdict(float)
    games: Counter[tuple[str, str]] = Counter()
    for r in records:
        p1 = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[r.result]
        points[(r.p1, r.p2)] += p1
        points[(r.p2, r.p1)] += 1 - p1
        games[(r.p1, r.p2)] += 1
        games[(r.p2, r.p1)] += 1
    table = html_table(run, "crosstable-table")
    columns = table[0][1:]
    cells = {
        row[0]: dict(zip(columns, row[1:], strict=True))
        for row in table[1:]
        if row and row[0] in columns
    }
    assert set(cells) == {b for pair in games for b in pair}
    for (a, b), n in games.items():
        assert cells[a][b] == f"{points[(a, b)]:g}/{n}"
    for a in cells:
        assert cells[a][a] == ""


def test_head_to_head_counts_each_pair_from_the_higher_ranked_side(run: Path) -> None:
    records = records_of(run)
    rank = {r["bot"]: int(r["rank"]) for r in read_csv(run / "standings.csv")}
    tally: dict[tuple[str, str], Counter[str]] = {}
    for r in records:
        a, b = sorted((r.p1, r.p2), key=rank.__getitem__)
        c = tally.setdefault((a, b), Counter())
        if r.result == "1/2-1/2":
            c["D"] += 1
        elif (r.result == "1-0") == (r.p1 == a):
            c["W"] += 1
        else:
            c["L"] += 1
    table = html_table(run, "pairs-table")
    header = table[0]
    seen = set()
    for row in table[1:]:
        cells = dict(zip(header, row, strict=True))
        key = (cells["bot"], cells["opponent"])
        seen.add(key)
        assert [int(cells[k]) for k in "WDL"] == [tally[key][k] for k in "WDL"], key
        assert int(cells["games"]) == sum(tally[key].values())
    assert seen == set(tally)


def test_fault_table_blames_the_loser(run: Path) -> None:
    records = records_of(run)
    blame: Counter[tuple[str, str]] = Counter()
    for r in records:
        if r.termination in BOT_FAULTS:
            assert r.winner is not None
            blame[((r.p1, r.p2)[1 - r.winner], str(r.termination))] += 1
    table = html_table(run, "endings-table")
    header = table[0]
    for row in table[1:]:
        if not row or row[0] in ("bot", ""):
            continue
        for fault in map(str, BOT_FAULTS):  # the table's column names
            assert int(row[header.index(fault)]) == blame[(row[0], fault)], (row[0], fault)
    page = (run / "report.html").read_text(encoding="utf-8")
    if blame:
        assert 'id="faults" class="alert"' in page
        for bot, fault in blame:
            assert f'data-filter-bot="{bot}" data-filter-term="{fault}"' in page
    else:
        assert 'id="faults" class="ok"' in page


def test_move_table_has_time_and_search_per_bot(run: Path) -> None:
    records = records_of(run)
    times: dict[str, list[float]] = defaultdict(list)
    depths: dict[str, list[int]] = defaultdict(list)
    for r in records:
        for m in r.moves:
            if m.book:
                continue
            bot = (r.p1, r.p2)[m.side]
            times[bot].append(m.elapsed_ms)
            if m.info is not None and m.info.depth is not None:
                depths[bot].append(m.info.depth)
    table = html_table(run, "moves-table")
    header = table[0]
    for row in table[1:]:
        cells = dict(zip(header, row, strict=True))
        bot = cells[""]
        ms = sorted(times[bot])
        assert int(cells["moves"]) == len(ms)
        assert float(cells["mean ms"]) == pytest.approx(sum(ms) / len(ms), abs=0.06)
        assert float(cells["max ms"]) == pytest.approx(ms[-1], abs=0.06)
        assert float(cells["median ms"]) == pytest.approx(statistics.median(ms), abs=0.06)
        assert int(cells["depth reported"]) == len(depths[bot])
        if depths[bot]:
            assert int(cells["max depth"]) == max(depths[bot])
            assert float(cells["mean depth"]) == pytest.approx(
                sum(depths[bot]) / len(depths[bot]), abs=0.051)
        else:
            assert cells["mean depth"] == cells["max depth"] == ""


def test_games_csv_has_one_row_per_record(run: Path) -> None:
    records = records_of(run)
    rows = read_csv(run / "games.csv")
    assert [r["id"] for r in rows] == [r.id for r in records]
    assert [r["result"] for r in rows] == [r.result for r in records]
    assert [r["termination"] for r in rows] == [str(r.termination) for r in records]
    assert [int(r["plies"]) for r in rows] == [r.plies for r in records]


def test_every_chart_is_a_readable_png(run: Path) -> None:
    import matplotlib.image

    names = [
        "elo",
        "progression",
        "crosstable",
        "colours",
        "endings",
        "lengths",
        "move_time",
        "search",
    ]
    page = (run / "report.html").read_text(encoding="utf-8")
    for name in names:
        path = run / "report" / f"{name}.png"
        assert path.read_bytes()[:8] == PNG, name
        image = matplotlib.image.imread(path)
        assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
        assert image.std() > 0.01, f"{name}.png is blank"
        assert f'src="report/{name}.png?v=' in page


def load_viewer(run: Path, relative: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    text = (run / "report" / relative).read_text(encoding="utf-8").strip()
    assert text.startswith("arenaGame(") and text.endswith(");")
    key, _, body = text[len("arenaGame(") : -2].partition(",")
    return json.loads(key), json.loads(body)


def test_viewer_data_replays_to_each_final_position(run: Path) -> None:
    records = records_of(run)
    journal = summarise_journal(run)
    index = (run / "report" / "index.js").read_text(encoding="utf-8")
    data = json.loads(index[len("arenaIndex(") : -3])
    assert len(data["rows"]) == len(records)
    for rec, summary, row in zip(records, journal.games, data["rows"], strict=True):
        assert row[0] == summary.key and row[9], f"{rec.id} has no viewer file"
        key, doc = load_viewer(run, row[9])
        assert key == summary.key
        assert "error" not in doc
        assert len(doc["moves"]) == len(rec.moves)
        assert [m[0] for m in doc["moves"]] == [m.move for m in rec.moves]
        final = get_game(rec.game).from_position(rec.final_position, **rec.options).board_view()
        last = apply_frames(doc)[-1]
        assert [tuple(c) for c in last] == [
            (c.x, c.y, c.piece, -1 if c.side is None else c.side, c.terrain, c.extra)
            for c in final.cells
        ]


def test_search_chart_only_when_bots_report_search(tmp_path: Path) -> None:
    from reports.html import build

    quiet = (BotProfile("a"), BotProfile("b"))
    write_journal(tmp_path, round_robin("dobutsu", quiet, games_per_pairing=2, seed=3))
    built = build(tmp_path)
    assert "search" not in built.charts
    assert "No bot reported depth or nodes." in built.html.read_text(encoding="utf-8")


def test_refresh_renders_only_new_or_changed_games(tmp_path: Path) -> None:
    from reports.html import build

    records = round_robin("draughts", games_per_pairing=2, seed=5, max_plies=60)
    write_journal(tmp_path, records[:6])
    first = build(tmp_path)
    files = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "report" / "games").iterdir()}
    assert len(files) == 6 and len(first.viewers) == 6
    second = build(tmp_path)
    again = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "report" / "games").iterdir()}
    assert again == files and second.viewers == first.viewers
    # Two more games arrive; one earlier game is replaced by a different record (same id).
    changed = records[7]
    changed.id = records[0].id
    write_journal(tmp_path, [changed, *records[1:8]])
    third = build(tmp_path)
    now = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "report" / "games").iterdir()}
    kept = set(files) - {Path(first.viewers[records[0].id]).name}
    assert all(now[name] == files[name] for name in kept)
    assert len(now) == 8 and third.viewers[records[0].id] != first.viewers[records[0].id]


def test_viewer_limit_keeps_faulty_games_first(tmp_path: Path) -> None:
    from reports.html import build

    bots = (BotProfile("solid"), BotProfile("flaky", fault_rate=0.01), BotProfile("other"))
    records = round_robin("jungle", bots, games_per_pairing=4, seed=2, max_plies=60)
    write_journal(tmp_path, records)
    faulty = [r.id for r in records if r.termination in BOT_FAULTS]
    assert 0 < len(faulty) < len(records) - 4
    limit = len(faulty) + 2
    built = build(tmp_path, viewer_limit=limit)
    assert len(built.viewers) == limit
    assert set(faulty) <= set(built.viewers)
    recent = [r.id for r in records if r.id not in faulty][-2:]
    assert set(recent) <= set(built.viewers)
    assert any(
        f"viewer files were made for {limit} of {len(records)} games" in n for n in built.notes
    )
    files = list((tmp_path / "report" / "games").iterdir())
    assert len(files) == limit


def test_illegal_last_move_stops_the_replay_with_a_reason(tmp_path: Path) -> None:
    rec = round_robin("dobutsu", games_per_pairing=1, seed=4)[0]
    rec.moves.append(MoveRecord(move="a1a4", side=rec.moves[-1].side ^ 1, elapsed_ms=3.0))
    result = replay(rec)
    assert "ply" in result.error and "a1a4" in result.error
    assert len(result.doc["moves"]) == len(rec.moves) - 1
    assert (
        result.final_position
        == start_game(rec).new(rec.start_position, [m.move for m in rec.moves[:-1]]).position()
    )


def test_torn_last_line_is_skipped_and_a_bad_line_is_named(tmp_path: Path) -> None:
    records = round_robin("dobutsu", games_per_pairing=1, seed=4)
    write_journal(tmp_path, records)
    journal = tmp_path / "games.jsonl"
    with journal.open("ab") as fh:
        fh.write(encode_record(records[0])[:50])  # the runner is writing this line
    assert len(summarise_journal(tmp_path).games) == len(records)
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[2] = b'{"game": "dobutsu", "p1": 3}\n'
    journal.write_bytes(b"".join(lines))
    with pytest.raises(JournalError, match=r"games\.jsonl:3: not a game record"):
        summarise_journal(tmp_path)


def test_cli_builds_and_reports_errors(tmp_path: Path) -> None:
    from arena.cli import main

    write_journal(tmp_path / "run", round_robin("dvonn", games_per_pairing=1, seed=8))
    assert main(["report", str(tmp_path / "run")]) == 0
    assert (tmp_path / "run" / "report.html").is_file()
    assert (tmp_path / "run" / "games.csv").is_file()
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "report", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "missing: no such run directory" in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "report", str(tmp_path / "empty")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "no game journal here" in proc.stderr


def test_report_of_a_real_arena_run(tmp_path: Path) -> None:
    """``arena run`` with two sample random bots: the runner builds the report at the end."""
    bot = ROOT / "sample_bots" / "random_bot.py"
    config = tmp_path / "mini.toml"
    config.write_text(
        'game = "dobutsu"\nformat = "round-robin"\nrounds = 1\ngames_per_pairing = 4\n'
        'tc = "5+0.05"\nconcurrency = 2\nseed = 3\n\n[adjudication]\nmax_plies = 120\n\n'
        f'[[bots]]\nname = "r1"\ncmd = ["{{python}}", "{bot}", "--seed", "1"]\n\n'
        f'[[bots]]\nname = "r2"\ncmd = ["{{python}}", "{bot}", "--seed", "2"]\n'
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "report.html").is_file()
    records = records_of(out)
    assert len(records) == 4
    rows = read_csv(out / "standings.csv")
    expected = expected_wdl(records)
    for row in rows:
        e = expected[row["bot"]]
        assert (int(row["wins"]), int(row["draws"]), int(row["losses"])) == (
            e["wins"],
            e["draws"],
            e["losses"],
        )
    data = json.loads((out / "report" / "index.js").read_text()[len("arenaIndex(") : -3])
    for rec, row in zip(records, data["rows"], strict=True):
        _, doc = load_viewer(out, row[9])
        assert sum(1 for m in doc["moves"] if m[7]) == len(rec.opening)
        assert replay(rec).final_position == rec.final_position


def test_summary_cache_reads_only_appended_games_and_notices_rewrites(tmp_path: Path) -> None:
    records = round_robin("dvonn", games_per_pairing=2, seed=9)
    cache = tmp_path / "summary.pickle"
    write_journal(tmp_path, records[:5])
    assert len(summarise_journal(tmp_path, cache=cache).games) == 5
    with (tmp_path / "games.jsonl").open("ab") as fh:
        for rec in records[5:8]:
            fh.write(encode_record(rec) + b"\n")
    cached, fresh = summarise_journal(tmp_path, cache=cache), summarise_journal(tmp_path)
    assert [g.id for g in cached.games] == [r.id for r in records[:8]]
    assert cached.games == fresh.games and cached.bots == fresh.bots
    assert cached.moves.elapsed_ms == fresh.moves.elapsed_ms
    assert cached.moves.bot == fresh.moves.bot and cached.end == fresh.end
    # A different journal in the same place (a new run): the cache is not resumed.
    write_journal(tmp_path, records[6:])
    cached, fresh = summarise_journal(tmp_path, cache=cache), summarise_journal(tmp_path)
    assert [g.id for g in cached.games] == [r.id for r in records[6:]]
    assert cached.games == fresh.games and cached.moves.bot == fresh.moves.bot


def test_interrupted_games_are_listed_but_not_scored(tmp_path: Path) -> None:
    from reports.html import build

    records = round_robin("dobutsu", games_per_pairing=2, seed=12)
    cut = records[0]
    cut.result, cut.winner, cut.termination = "*", None, Termination.INTERRUPT
    cut.reason = "the runner was stopped"
    write_journal(tmp_path, records)
    built = build(tmp_path)
    expected = expected_wdl(records)
    for row in read_csv(tmp_path / "standings.csv"):
        assert int(row["games"]) == expected[row["bot"]]["games"]
    assert sum(int(r["games"]) for r in read_csv(tmp_path / "standings.csv")) == 2 * (
        len(records) - 1)
    table = html_table(tmp_path, "endings-table")
    header = table[0]
    interrupted = {row[0]: int(row[header.index("interrupted")]) for row in table[1:]}
    assert interrupted[cut.p1] == interrupted[cut.p2] == 1
    assert sum(interrupted.values()) == 2
    assert len(built.viewers) == len(records)


def test_empty_journal_gives_an_empty_report(tmp_path: Path) -> None:
    from reports.html import build

    (tmp_path / "games.jsonl").touch()
    built = build(tmp_path)
    assert built.html.is_file() and built.games.empty
    assert read_csv(tmp_path / "standings.csv") == []
    for chart in built.charts.values():
        assert chart.read_bytes()[:8] == PNG
