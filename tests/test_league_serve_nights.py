"""One ``arena serve LEAGUE --submissions`` across two nights, in a real browser (headless
Chromium over CDP, as the other browser tests).

The server starts before the first night. Night one is played and closed by ``arena league
run``; the live page, opened once, shows it; night two then begins, and the same page moves on
to it by itself (no reload: a marker set on ``window`` survives) while its games are played;
once it has closed, the league report the server sends lists both nights.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_league_nightly import make_league
from test_live_browser import served_url, started, wait_until
from test_report_browser import browser, needs_chromium

from arena.leaguedir.standings import read_summary

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]


@needs_chromium
@pytest.mark.slow
def test_one_server_follows_two_nights(tmp_path: Path) -> None:
    league = make_league(tmp_path / "league", delay=0.1)
    with started([*ARENA, "serve", str(league.root), "--submissions", "--port", "0"],
                 tmp_path / "serve.log") as server:
        url = served_url(tmp_path / "serve.log", server)
        first = subprocess.run([*ARENA, "league", "run", str(league.root), "--games", "4",
                                "--night", "n1", "--plain"], cwd=ROOT, capture_output=True,
                               text=True, timeout=300)
        assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
        with browser() as page:
            page.open(url + "live")
            wait_until(page, "document.getElementById('run-name').textContent === 'n1'")
            page.js("window.__noReload = 42")
            with started([*ARENA, "league", "run", str(league.root), "--games", "12", "--night",
                          "n2", "--plain"], tmp_path / "n2.log", grace=120) as second:
                # Night two while it is played: its name, and one of its games on a board.
                wait_until(page, "document.getElementById('run-name').textContent === 'n2'"
                                 " && document.querySelector('.board-card[data-plies]') !== null"
                                 " && window.__noReload === 42", timeout=120)
                assert second.poll() is None, "night two ended before the page showed it"
                page.screenshot(tmp_path / "live-n2.png")
                assert second.wait(timeout=300) == 0, (tmp_path / "n2.log").read_text()[-3000:]
            assert read_summary(league, "n2") is not None
            # The page goes on with the closed night's numbers, still without a reload.
            wait_until(page, "document.getElementById('progress').textContent"
                             ".startsWith('12 games finished') && window.__noReload === 42",
                       timeout=60)
            page.open(url)  # the league's report
            nights = page.js("[...new Set([...document.querySelectorAll('[data-night]')]"
                             ".map(e => e.dataset.night))]")
            assert {"n1", "n2"} <= set(nights), nights
            page.screenshot(tmp_path / "league.png", full=True)
            assert page.errors == []
        assert server.poll() is None, "the server stayed up"
