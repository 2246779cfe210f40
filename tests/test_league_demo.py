"""``make demo-league`` as a new user runs it (``examples/league/demo.sh``: real submissions,
a C bot built in the sandbox, two real nights), its league report read in headless Chromium.

Issue 35's acceptance: every version on the leaderboard has a finite rating and interval, the
history has a point for each night each version had played by (and its chart draws both
nights), the verdict on alphabeta@2 against alphabeta@1 is on the page, and ``arena league
bots`` shows the same numbers, sorted by rank.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_report_browser import browser, needs_chromium

from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.standings import read_history
from reports.charts import chart_labels

pytestmark = [pytest.mark.slow, pytest.mark.needs("gcc")]  # a minute of real nights

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ("alphabeta@1", "alphabeta@2", "greedy@1", "randbot-c@1", "random@1")
NIGHT_ONE = ("alphabeta@1", "greedy@1", "random@1")


@needs_chromium
def test_demo_league_report_has_ratings_history_and_verdict(tmp_path: Path) -> None:
    root = tmp_path / "demo-league"
    env = {**os.environ, "PYTHON": sys.executable,
           "ARENA": str(Path(sys.executable).parent / "arena")}
    demo = subprocess.run([str(ROOT / "examples" / "league" / "demo.sh"), str(root)],
                          capture_output=True, text=True, timeout=900, env=env, cwd=ROOT)
    assert demo.returncode == 0, f"{demo.stdout[-3000:]}\n{demo.stderr[-3000:]}"
    league = LeagueDir(root)
    history = read_history(league)
    assert [s.night for s in history] == ["night-1", "night-2"]

    with browser() as page:
        page.open((root / "report.html").as_uri())
        board = page.js(
            "[...document.querySelectorAll('#leaderboard tr[data-version]')].map(tr => ["
            " tr.dataset.version, +tr.querySelector('td.rank').textContent,"
            " tr.querySelector('td.rating').dataset.value,"
            " tr.querySelector('td.error').dataset.value,"
            " tr.querySelector('td.verdict').dataset.outcome || null,"
            " tr.querySelector('td.verdict').dataset.llr || null,"
            " tr.querySelector('td.verdict').dataset.parent || null])")
        assert sorted(row[0] for row in board) == sorted(VERSIONS)
        assert [row[1] for row in board] == list(range(1, len(VERSIONS) + 1))
        for version, _, rating, error, *_ in board:
            assert math.isfinite(float(rating)) and 0 < float(error) < 1000, version
        verdict = {row[0]: row[4:] for row in board}["alphabeta@2"]
        assert verdict[0] in ("better", "not better", "worse", "undecided"), verdict
        assert math.isfinite(float(verdict[1])) and verdict[2] == "alphabeta@1"
        text = page.js("document.querySelector('#leaderboard tr[data-version=\"alphabeta@2\"]"
                       " td.verdict').textContent")
        assert text.startswith("vs alphabeta@1: ") and "LLR" in text

        # The history: a rating ± interval for each night each version had played by.
        cells = page.js(
            "(() => { const heads = [...document.querySelectorAll('#history-table tr')][0];"
            " const names = [...heads.children].map(c => c.textContent);"
            " return [...document.querySelectorAll('#history-table tr[data-night]')].map("
            " tr => [tr.dataset.night, Object.fromEntries([...tr.children].slice(1).map("
            " (td, k) => [names[k + 1], td.textContent]))]); })()")
        shown = dict(cells)
        assert list(shown) == ["night-1", "night-2"]
        for night, versions in (("night-1", NIGHT_ONE), ("night-2", VERSIONS)):
            for version in versions:
                assert "±" in shown[night][version], (night, version, shown[night])
        chart = page.js(
            "(() => { const img = document.querySelector('#history img');"
            " return img && img.complete ? [img.naturalWidth, img.naturalHeight] : null; })()")
        assert chart is not None and chart[0] > 0 and chart[1] > 0
        assert page.errors == []
    labels = chart_labels(root / "report" / "history.png")
    assert {"night-1", "night-2", *VERSIONS} <= set(labels)
    assert "no closed night yet" not in labels

    # `arena league bots` (the demo's last command): the same numbers, sorted by rank.
    listing = demo.stdout[demo.stdout.rindex("#  bot"):].splitlines()
    assert listing[0].split()[:3] == ["#", "bot", "version"], listing[0]
    rows = [line.split() for line in listing[1:] if line[:1].isdigit()]
    assert [f"{r[1]}@{r[2]}" for r in rows] == [row[0] for row in board]
    for r, (_, rank, rating, error, *_) in zip(rows, board, strict=True):
        assert int(r[0]) == rank
        assert r[5] == f"{float(rating):+.0f}" and r[6] == "±" and r[7] == f"{float(error):.0f}"
    line = next(line for line in listing if line.split()[1:3] == ["alphabeta", "2"])
    assert f"LLR {float(verdict[1]):.2f}" in line
    snapshot = json.loads((root / "history.jsonl").read_text().splitlines()[-1])
    assert {p[0] for p in snapshot["players"]} == set(VERSIONS)
