"""The league report's content: a small league written by hand (tests/league_fixture.py), its
page and exports read back and checked against the journals' own records and an independent
fit of their games, never against the report's own frames."""

from __future__ import annotations

import csv
import json
import math
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from league_fixture import EVIL_REASON, NIGHTS, OPEN_NIGHT, League, make_league

from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.standings import read_history
from arena.rundir.results import read_results
from ratings import RatingFit, aggregate, fit_ratings

FIRST, SECOND = NIGHTS


class Rows(HTMLParser):
    """The rows of the table with a given id: each row's attributes and its cells'
    (attributes, text)."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.depth = 0
        self.rows: list[tuple[dict[str, str], list[tuple[dict[str, str], str]]]] = []
        self.cell: tuple[dict[str, str], list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "table" and (self.depth or found.get("id") == self.table_id):
            self.depth += 1
        elif self.depth and tag == "tr":
            self.rows.append((found, []))
        elif self.depth and tag in ("td", "th"):
            self.cell = (found, [])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1][1].append((self.cell[0], "".join(self.cell[1]).strip()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[1].append(data)


Cells = list[tuple[dict[str, str], str]]


def table(page: str, table_id: str) -> list[tuple[dict[str, str], Cells]]:
    parser = Rows(table_id)
    parser.feed(page)
    assert parser.rows, f"no table {table_id} on the page"
    return parser.rows


def by_class(cells: list[tuple[dict[str, str], str]]) -> dict[str, tuple[dict[str, str], str]]:
    return {a.get("class", "").split()[0]: (a, t) for a, t in cells if a.get("class")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[League, str]:
    from reports.league_report import build_league_report

    league = make_league(tmp_path_factory.mktemp("league") / "spring")
    page = build_league_report(league.root)
    assert page == league.root / "report.html"
    return league, page.read_text(encoding="utf-8")


def independent_fit(league: League) -> RatingFit:
    results = [r for night in NIGHTS for r in read_results(league.root / "nights" / night)]
    return fit_ratings(aggregate(results))


def leaderboard(page: str) -> dict[str, dict[str, tuple[dict[str, str], str]]]:
    return {attrs["data-version"]: by_class(cells)
            for attrs, cells in table(page, "leaderboard") if "data-version" in attrs}


def test_leaderboard_has_the_active_versions_with_the_journals_games(
        built: tuple[League, str]) -> None:
    league, page = built
    rows = leaderboard(page)
    assert set(rows) == {"alpha@1", "alpha@2", "beta@1"}  # gamma@1 retired, delta@1 rejected
    for version, cells in rows.items():
        assert int(cells["games"][1]) == league.games_of(version), version
    ranks = [int(cells["rank"][1]) for cells in rows.values()]
    assert sorted(ranks) == [1, 2, 3]


def test_ratings_are_a_fit_of_the_journals_and_match_the_last_snapshot(
        built: tuple[League, str]) -> None:
    league, page = built
    fit = independent_fit(league)
    last = {r.player: r for r in read_history(LeagueDir(league.root))[-1].players}
    rows = leaderboard(page)
    for version, cells in rows.items():
        attrs, text = cells["rating"]
        shown = float(attrs["data-value"])
        assert shown == pytest.approx(fit.rating(version), abs=0.05), version
        assert text.lstrip("≥≤ ") == f"{shown:+.1f}"
        assert shown == pytest.approx(last[version].rating, abs=0.02)
        error = float(cells["error"][0]["data-value"])
        assert error == pytest.approx(float(fit.errors[fit.index(version)]), abs=0.05)
        assert error == pytest.approx(last[version].error, abs=0.02)
    order = sorted(rows, key=lambda v: int(rows[v]["rank"][1]))
    active_by_fit = [fit.players[i] for i in fit.order() if fit.players[i] in rows]
    assert order == active_by_fit
    # LOS against the next one down: the fit's matrix
    top, second = order[0], order[1]
    los = float(rows[top]["los"][1])
    assert los == pytest.approx(100 * fit.los[fit.index(top), fit.index(second)], abs=0.06)


def test_new_marks_and_changes_compare_with_the_night_before(built: tuple[League, str]) -> None:
    league, page = built
    first = {r.player: r for r in read_history(LeagueDir(league.root))[0].players}
    rows = leaderboard(page)
    assert "new" in rows["alpha@2"]["note"][1]  # first played on the second night
    for version in ("alpha@1", "beta@1"):
        assert "new" not in rows[version]["note"][1]
        attrs, text = rows[version]["change"]
        change = float(attrs["data-value"])
        rating = float(rows[version]["rating"][0]["data-value"])
        before = first[version].rating
        assert before is not None
        assert change == pytest.approx(rating - before, abs=0.02)
        assert text[0] == ("↑" if change > 0 else "↓")
    assert rows["alpha@2"]["change"][1] == ""


def test_version_view_has_the_head_to_head_of_the_journals(built: tuple[League, str]) -> None:
    league, page = built
    assert 'data-bot="alpha"' in page and 'data-bot="beta"' not in page  # one version only
    steps = table(page, "steps-alpha")
    (attrs, cells), = [row for row in steps if row[0].get("data-step")]
    assert attrs["data-step"] == "alpha@2 vs alpha@1"
    got = by_class(cells)
    w, d, lo = league.wdl("alpha@2", "alpha@1")
    assert (int(got["wins"][1]), int(got["draws"][1]), int(got["losses"][1])) == (w, d, lo)
    assert int(got["games"][1]) == w + d + lo == NIGHTS[SECOND][1]  # games per pairing
    assert float(got["score"][1]) == pytest.approx(100 * (w + d / 2) / (w + d + lo), abs=0.06)
    fit = independent_fit(league)
    fit_los = 100 * fit.los[fit.index("alpha@2"), fit.index("alpha@1")]
    assert float(got["fit-los"][1]) == pytest.approx(fit_los, abs=0.06)
    versions = {a["data-version"]: by_class(c) for a, c in table(page, "versions-alpha")
                if "data-version" in a}
    assert set(versions) == {"alpha@1", "alpha@2"}
    assert int(versions["alpha@1"]["games"][1]) == league.games_of("alpha@1")


def test_history_table_and_chart_have_both_nights(built: tuple[League, str]) -> None:
    from reports.charts import chart_labels

    league, page = built
    rows = table(page, "history-table")
    header = [t for _, t in rows[0][1]]
    assert header[0] == "night"
    assert set(header[1:]) == {"alpha@1", "alpha@2", "beta@1", "gamma@1"}
    nights = {attrs["data-night"]: [t for _, t in cells] for attrs, cells in rows[1:]}
    assert list(nights) == [FIRST, SECOND]
    history = read_history(LeagueDir(league.root))
    for snap in history:
        line = dict(zip(header, nights[snap.night], strict=True))
        for rated in snap.players:
            assert line[rated.player] == f"{rated.rating:+.1f} ± {rated.error:.1f}"
    assert dict(zip(header, nights[FIRST], strict=True))["alpha@2"] == ""
    chart = league.root / "report" / "history.png"
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 'src="report/history.png?v=' in page
    labels = chart_labels(chart)
    assert {"alpha@1", "alpha@2", "beta@1", "gamma@1", FIRST, SECOND} <= set(labels)


def test_nights_table_counts_games_and_links_the_night_reports(
        built: tuple[League, str]) -> None:
    league, page = built
    rows = {a["data-night"]: c for a, c in table(page, "nights-table") if "data-night" in a}
    assert list(rows) == [OPEN_NIGHT, SECOND, FIRST]  # newest first
    assert [t for _, t in rows[OPEN_NIGHT]][1] == "open"
    for night in (FIRST, SECOND):
        cells = by_class(rows[night])
        assert int(cells["games"][1]) == len(league.records[night])
    assert by_class(rows[SECOND])["new-versions"][1] == "alpha@2"
    assert by_class(rows[FIRST])["new-versions"][1] == "alpha@1, beta@1, gamma@1"
    movers = by_class(rows[SECOND])["movers"][1]
    assert movers.split()[0] in {"alpha@1", "beta@1", "gamma@1"}
    links = [part.split('"')[0] for part in page.split('href="')[1:]]
    for night in (FIRST, SECOND):
        target = f"nights/{night}/report.html"
        assert target in links and (league.root / target).is_file()
        assert f"{target}#games" in links
    assert f"nights/{OPEN_NIGHT}/report.html" not in links  # not built yet: no dead link


def test_retired_and_rejected_versions_are_listed_and_user_text_escaped(
        built: tuple[League, str]) -> None:
    _, page = built
    retired = [a.get("data-version") for a, _ in table(page, "retired-table")]
    assert "gamma@1" in retired
    rejected = {a["data-version"]: [t for _, t in c] for a, c in table(page, "rejected-table")
                if "data-version" in a}
    assert rejected["delta@1"][3:] == ["build", EVIL_REASON]
    assert "delta's <author>" in rejected["delta@1"]
    assert "<script>alert" not in page and "<author>" not in page


def test_crosstable_and_pentanomial_match_the_journals(built: tuple[League, str]) -> None:
    league, page = built
    rows = table(page, "crosstable-table")
    header = [t for _, t in rows[0][1]][1:]
    for attrs, cells in rows[1:]:
        a = attrs["data-version"]
        for b, (_, text) in zip(header, cells[1:], strict=True):
            w, d, lo = league.wdl(a, b)
            assert text == ("" if a == b or w + d + lo == 0 else f"{w + d / 2:g}/{w + d + lo}")
    pairs = table(page, "pentanomial-table")
    seen = 0
    for _, cells in pairs[1:]:
        texts = [t for _, t in cells]
        a, b, games, w, d, lo, n = texts[0], texts[1], *map(int, texts[2:7])
        assert (w, d, lo) == league.wdl(a, b)
        assert games == w + d + lo and n == games // 2  # every game in a colour pair
        penta = [texts[7], texts[8], *texts[9].split("/"), texts[10], texts[11]]
        assert sum(map(int, penta)) == n
        seen += 1
    assert seen == 3  # the three active versions all met


def test_exports_hold_the_page_numbers(built: tuple[League, str]) -> None:
    league, page = built
    export = league.root / "export"
    for name in ("leaderboard.csv", "leaderboard.json", "history.csv", "history.json",
                 "pairs.csv"):
        assert f'href="export/{name}"' in page
    with (export / "leaderboard.csv").open(newline="") as fh:
        board = list(csv.DictReader(fh))
    rows = leaderboard(page)
    assert [r["version"] for r in board] == sorted(rows, key=lambda v: int(rows[v]["rank"][1]))
    for r in board:
        assert int(r["games"]) == league.games_of(r["version"])
        assert float(r["rating"]) == pytest.approx(
            float(rows[r["version"]]["rating"][0]["data-value"]), abs=0.006)
    assert json.loads((export / "leaderboard.json").read_text()) == [
        {**r, "rank": int(r["rank"]), "number": int(r["number"]), "games": int(r["games"]),
         "rating": float(r["rating"]), "error": float(r["error"]),
         "points": float(r["points"]), "score": float(r["score"]),
         "los_next": float(r["los_next"]) if r["los_next"] else None,
         "change": float(r["change"]) if r["change"] else None, "new": r["new"] == "True",
         "group": int(r["group"]) if r["group"] else None}
        for r in board]
    history = json.loads((export / "history.json").read_text())
    snaps = read_history(LeagueDir(league.root))
    assert [(h["night"], h["version"]) for h in history] == [
        (s.night, r.player) for s in snaps for r in s.players]
    assert {h["night"] for h in history} == {FIRST, SECOND}
    with (export / "history.csv").open(newline="") as fh:
        assert len(list(csv.DictReader(fh))) == len(history)


def test_closed_nights_journals_are_never_read(built: tuple[League, str],
                                               tmp_path: Path) -> None:
    """The report reads a closed night's tally, not its games: garbage in the journals (and
    no journals at all) changes nothing."""
    from reports.league_report import build_league_report

    league, page = built
    copy = tmp_path / "copy"
    shutil.copytree(league.root, copy)
    (copy / "nights" / FIRST / "games.jsonl").write_bytes(b"not json\n" * 10)
    (copy / "nights" / SECOND / "games.jsonl").unlink()
    again = build_league_report(copy).read_text(encoding="utf-8")
    assert table(again, "leaderboard") == table(page, "leaderboard")
    assert table(again, "steps-alpha") == table(page, "steps-alpha")


def test_crosstable_cap_says_so(built: tuple[League, str], tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    import reports.league_data
    from reports.league_report import build_league_report

    league, _ = built
    copy = tmp_path / "copy"
    shutil.copytree(league.root, copy)
    monkeypatch.setattr(reports.league_data, "CROSSTABLE_CAP", 2)
    page = build_league_report(copy).read_text(encoding="utf-8")
    assert len(table(page, "crosstable-table")[0][1]) == 3  # the corner and two versions
    assert len(table(page, "pentanomial-table")) == 2  # the header and the one pair
    assert "The best 2 of 3 active versions" in page
    with (copy / "export" / "pairs.csv").open(newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 5  # every pair that ever met: not capped


def test_a_league_without_a_closed_night_builds(tmp_path: Path) -> None:
    from arena.leaguedir.versions import Version, write_version
    from reports.league_report import build_league_report

    league = LeagueDir(tmp_path / "new")
    league.root.mkdir()
    (league.root / "league.toml").write_text('game = "dobutsu"\n')
    write_version(league, Version("solo", 1, ["./bot"], submitted_at=1.0, state="active"))
    page = build_league_report(league.root).read_text(encoding="utf-8")
    rows = leaderboard(page)
    assert list(rows) == ["solo@1"]
    assert rows["solo@1"]["games"][1] == "0"
    assert math.isnan(float(rows["solo@1"]["rating"][0]["data-value"] or "nan"))
    assert (league.root / "report" / "history.png").is_file()
    assert (league.root / "export" / "leaderboard.csv").is_file()
