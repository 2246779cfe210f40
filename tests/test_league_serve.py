"""``arena serve LEAGUE_DIR`` and ``arena ratings`` over a league and several sources, on the
hand-made league of :mod:`league_fixture` (two closed nights, one open)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from league_fixture import make_league
from test_bounded_input import request
from test_live_browser import served_url, started

from arena.leaguedir.directory import LeagueDir

ROOT = Path(__file__).resolve().parent.parent


def test_serve_shows_the_league_report_and_the_newest_night_live(tmp_path: Path) -> None:
    root = make_league(tmp_path / "league", night_reports=False).root
    league = LeagueDir(root)
    newest = league.night(league.night_names()[-1]).root
    for private in ("logs", "transcripts", "live"):  # the bots' own: each author's
        (newest / private).mkdir(exist_ok=True)
        (newest / private / "x").write_text("a bot's stderr\n")
    argv = [sys.executable, "-m", "arena.cli", "serve", str(root), "--no-report", "--port", "0"]
    with started(argv, tmp_path / "serve.log") as server:
        url = served_url(tmp_path / "serve.log", server)
        status, _ = request(url, "GET", "/")
        assert status == 307
        status, body = request(url, "GET", "/league/report.html")
        assert status == 200 and b'id="leaderboard"' in body
        status, body = request(url, "GET", "/league/export/leaderboard.json")
        assert status == 200 and json.loads(body)
        # The newest night (the open one) live, as `arena serve RUN_DIR` shows a run.
        assert request(url, "GET", "/live")[0] == 200
        state = json.loads(request(url, "GET", "/state")[1])
        assert state["run"] == league.night_names()[-1]
        # Never the stored bots, their logs, the config or the bots' own logs.
        for path in ("/league/bots/alpha/1/version.json", "/league/league.toml",
                     "/league/store/x", "/league/nights/2026-03-01/logs/x",
                     "/league/../league.toml", "/run/logs/x", "/run/transcripts/x",
                     "/run/live/x"):
            assert request(url, "GET", path)[0] == 404, path
        assert request(url, "GET", "/run/night.json")[0] == 200  # its other files are served


def ratings(*paths: Path) -> dict[str, dict[str, object]]:
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "ratings", *map(str, paths),
                           "--json"], capture_output=True, text=True, cwd=ROOT, check=True)
    return {p["player"]: p for p in json.loads(proc.stdout)["players"]}


def test_ratings_of_a_league_equal_those_of_its_nights_together(tmp_path: Path) -> None:
    league = LeagueDir(make_league(tmp_path / "league", night_reports=False).root)
    nights = [league.night(name).root for name in league.night_names()
              if league.night(name).journal.is_file()]
    whole = ratings(league.root)
    apart = ratings(*nights)
    assert whole.keys() == apart.keys()
    for player, line in whole.items():
        assert line["played"] == apart[player]["played"]
        assert abs(float(line["rating"]) - float(apart[player]["rating"])) < 1e-6  # type: ignore[arg-type]
    # One source twice counts its games twice: sources are added, not merged by game id.
    doubled = ratings(nights[0], nights[0])
    single = ratings(nights[0])
    assert all(doubled[p]["played"] == 2 * single[p]["played"] for p in single)  # type: ignore[operator]
