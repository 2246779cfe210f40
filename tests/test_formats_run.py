"""Knockout and Swiss tournaments through ``arena run`` with the sample bots: each round
played once the one before is complete, the bracket and the Swiss standings in the report and
the closing text, and a resume after round 1 that pairs round 2 as the first run did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_runner import arena_run, bot, journal, write_config

from arena.formats.schedule import build_schedule, results_of
from arena.settings.config import load_config
from reports.format_tables import swiss_frames

pytestmark = pytest.mark.slow  # whole tournaments through `arena run`

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"
HEAD = """
game = "dobutsu"
tc = "2+0.02"
games_per_pairing = 2
seed = 7
{format}
[openings]
random_plies = 2
[adjudication]
max_plies = 60
"""


def field(count: int) -> list[str]:
    bots = [bot("greedy", SAMPLES / "greedy.py")]
    return bots + [bot(f"random{i}", SAMPLES / "random_bot.py", "--seed", str(i))
                   for i in range(1, count)]


def test_knockout_run_plays_round_by_round_and_reports_the_bracket(tmp_path: Path) -> None:
    config = write_config(tmp_path, HEAD.format(format='format = "knockout"\nconcurrency = 2'),
                          field(5))
    out = tmp_path / "out"
    done = arena_run(config, out, "--plain", report=True)
    assert done.returncode == 0, done.stderr
    assert "5 bots, 8 games" in done.stdout  # 4 matches of 2 games, tie-breaks not known yet
    records = journal(out)
    results = results_of(records)
    schedule = build_schedule(load_config(config), results)
    assert schedule.final
    assert sorted(r.id for r in records) == sorted(schedule.ids())  # each game once
    stored = json.loads((out / "schedule.json").read_text())
    assert [g["id"] for g in stored["games"]] == schedule.ids()
    # rounds in order: no game of a round starts before the round before it ended
    ended = {r: max(x.ended_at for x in records if x.round == r) for r in (1, 2)}
    for record in records:
        if record.round > 1:
            assert record.started_at >= ended[record.round - 1]
    assert {(r.p1, r.p2) for r in records if r.round == 1} == {("random3", "random4"),
                                                              ("random4", "random3")}
    assert "knockout: " in done.stdout and " wins" in done.stdout
    page = (out / "report.html").read_text()
    assert 'id="bracket"' in page and "wins the knockout" in page
    assert 'href="#bracket"' in page and "greedy (#1)" in page
    text = arena_cli("report", str(out), "--text")
    assert text.returncode == 0, text.stderr
    assert "knockout: " in text.stdout and "greedy (#1)" in text.stdout


def test_swiss_run_resumes_after_round_one_with_the_same_pairings(tmp_path: Path) -> None:
    config = write_config(tmp_path, HEAD.format(format='format = "swiss"\nrounds = 3'),
                          field(5))
    out = tmp_path / "out"
    first = arena_run(config, out, "--plain")
    assert first.returncode == 0, first.stderr
    assert "12 games (12 to play" in first.stdout
    assert "Buchholz" in first.stdout and "Sonneborn-Berger" in first.stdout
    records = journal(out)
    assert sorted(r.round for r in records) == [1] * 4 + [2] * 4 + [3] * 4
    round_two = sorted((r.id, r.p1, r.p2) for r in records if r.round == 2)
    # Keep round 1 only (as if killed once it was journaled) and resume.
    lines = (out / "games.jsonl").read_bytes().splitlines(keepends=True)
    kept = [line for line, r in zip(lines, records, strict=True) if r.round == 1]
    (out / "games.jsonl").write_bytes(b"".join(kept))
    again = arena_run(config, out, "--plain")
    assert again.returncode == 0, again.stderr
    assert "(8 to play" in again.stdout
    resumed = journal(out)
    assert sorted((r.id, r.p1, r.p2) for r in resumed if r.round == 2) == round_two
    assert len(resumed) == len({r.id for r in resumed}) == 12
    table, pairings = swiss_frames(load_config(config).config, results_of(resumed))
    assert sorted(table["byes"]) == [0, 0, 1, 1, 1]  # 3 rounds, 5 bots: 3 byes, none twice
    assert list(table["rank"]) == [1, 2, 3, 4, 5] and (pairings["board"] == "bye").sum() == 3
    text = arena_cli("report", str(out), "--text")
    assert text.returncode == 0, text.stderr
    assert "swiss, 3 rounds; ties broken by Buchholz" in text.stdout
    assert "Results by opening" in text.stdout  # random openings: one per colour pair


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
