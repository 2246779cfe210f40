"""The tune's page in a real browser (headless Chromium, as the run report's browser test):
a tune log and a journal written here (real files, known numbers), the page built from them,
and what the page shows read back: every option's start, tuned value and spread, the proof's
verdict as the verdict module decides it, both charts drawn, no error logged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report_browser import browser, needs_chromium

from arena.rundir.journal import write_records
from arena.rundir.tunelog import Began, Planned, Tuned, Updated, append_tune_records
from ratings.pairwise import Pentanomial
from ratings.verdict import VerdictSettings, parent_verdict
from referee.record import GameRecord, Termination

pytestmark = pytest.mark.slow


def game(game_id: str, p1: str, p2: str, result: str) -> GameRecord:
    return GameRecord(game="dobutsu", p1=p1, p2=p2, result=result,
                      termination=Termination.NORMAL, reason="test", id=game_id)


@needs_chromium
def test_tune_page_shows_values_trajectories_and_proof(tmp_path: Path) -> None:
    from reports.tune_html import build_tune_page

    run = tmp_path / "run"
    run.mkdir()
    log = run / "tune.jsonl"
    records: list[object] = [Began(bot="tb", options=["Aim", "Temper"], start=[10.0, 0.5],
                                   c=[20.0, 0.1], iterations=10, seed=3, at=0.0,
                                   proof=[0.0, 50.0, 0.05, 0.05])]
    theta = [10.0, 0.5]
    for k in range(1, 11):
        theta = [theta[0] + 3.0, theta[1] - 0.02]
        records += [Planned(k=k, flips=[1, -1], plus=[0, 0.0], minus=[0, 0.0],
                            games=[f"t{k:05d}-g1", f"t{k:05d}-g2"]),
                    Updated(k=k, result=2.0, theta=list(theta), games=2 * k)]
    records.append(Tuned(theta=theta, values=[round(theta[0]), theta[1]], iterations=10))
    append_tune_records(log, records)  # type: ignore[arg-type]
    # The proof: the tuned side wins both games of 6 pairs, then draws 2 pairs.
    proof: list[GameRecord] = []
    results = [("1-0", "0-1")] * 6 + [("1/2-1/2", "1/2-1/2")] * 2
    for n, (g1, g2) in enumerate(results, start=1):
        proof += [game(f"p{n:05d}-g1", "tb.tuned", "tb.start", g1),
                  game(f"p{n:05d}-g2", "tb.start", "tb.tuned", g2)]
    write_records(run / "games.jsonl", proof)
    expected = parent_verdict([Pentanomial().add(1.0, 1.0)] * 6
                              + [Pentanomial().add(0.5, 0.5)] * 2,
                              VerdictSettings(0.0, 50.0, 0.05, 0.05))
    # Looked at once over every pair, as the page does (each pair at a time could close sooner).
    page_file = build_tune_page(run)
    with browser() as page:
        page.open(page_file.as_uri())
        rows = page.js("[...document.querySelectorAll('#values tr')].slice(1)"
                       ".map(tr => [...tr.children].map(td => td.textContent))")
        assert [r[0] for r in rows] == ["Aim", "Temper"]
        assert [r[1] for r in rows] == ["10", "0.5"]
        assert rows[0][3] == "40" and float(rows[1][3]) == pytest.approx(0.3)
        # Spread over the last fifth (2 iterations): 3 apart and 0.02 apart.
        assert float(rows[0][5]) == pytest.approx(2.1, abs=0.05)
        assert page.js("document.getElementById('verdict').textContent") == expected.describe()
        for section in ("trajectory", "proof"):
            size = page.js(
                f"(() => {{ const img = document.querySelector({json.dumps('#' + section)}"
                " + ' img'); return img && img.complete ? [img.naturalWidth,"
                " img.naturalHeight] : null; })()")
            assert size is not None and size[0] > 0 and size[1] > 0, section
        assert page.js("document.querySelector('a[href=\"../report.html\"]') !== null")
        assert page.errors == []
