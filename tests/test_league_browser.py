"""The league report in a real browser (headless Chromium over CDP, as the run report's browser
test): the leaderboard, the history chart and the version view are on the page with the
journals' numbers, nothing logs an error, and a night's link opens that night's own report
with its games."""

from __future__ import annotations

import json

import pytest
from league_fixture import NIGHTS, League, make_league
from test_report_browser import browser, needs_chromium

# One Chromium for the module; under xdist one worker runs it (tests/conftest.py: SHARED_SETUP).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> League:
    from reports.league_report import build_league_report

    made = make_league(tmp_path_factory.mktemp("league") / "spring")
    build_league_report(made.root)
    return made


@needs_chromium
def test_league_page_shows_the_journals_numbers(league: League) -> None:
    with browser() as page:
        page.open((league.root / "report.html").as_uri())
        for section in ("leaderboard", "history", "versions", "crosstable", "pentanomial",
                        "nights"):
            assert page.js(f"!!document.getElementById({json.dumps(section)})"), section
        games = page.js(
            "Object.fromEntries([...document.querySelectorAll('#leaderboard tr[data-version]')]"
            ".map(tr => [tr.dataset.version, +tr.querySelector('td.games').textContent]))")
        assert games == {v: league.games_of(v) for v in ("alpha@1", "alpha@2", "beta@1")}
        ratings = page.js("[...document.querySelectorAll('#leaderboard td.rating')]"
                          ".map(td => td.textContent)")
        assert all(r.startswith(("+", "-")) for r in ratings), ratings

        chart = page.js(
            "(() => { const img = document.querySelector('#history img');"
            " return img && img.complete ? [img.naturalWidth, img.naturalHeight] : null; })()")
        assert chart is not None and chart[0] > 0 and chart[1] > 0
        nights = page.js("[...document.querySelectorAll('#history-table tr[data-night]')]"
                         ".map(tr => tr.dataset.night)")
        assert nights == list(NIGHTS)

        step = page.js(
            "(() => { const tr = document.querySelector("
            "'#versions [data-bot=\"alpha\"] tr[data-step=\"alpha@2 vs alpha@1\"]');"
            " return tr && ['wins', 'draws', 'losses'].map("
            "c => +tr.querySelector('td.' + c).textContent); })()")
        assert tuple(step) == league.wdl("alpha@2", "alpha@1")
        page.screenshot(league.root / "league.png", full=True)
        assert page.errors == []

        first = next(iter(NIGHTS))
        href = page.js(f"document.querySelector('#nights tr[data-night=\"{first}\"] "
                       "a.night-report').href")
        page.open(href)  # the night's own report (its game list and viewer)
        page.wait_for("ARENA.index !== null")
        assert page.js("ARENA.index.rows.length") == len(league.records[first])
        assert page.errors == []

