"""A league's nights with real bot processes: two nights with newcomers and a second version,
Ctrl-C and SIGKILL in a night resumed exactly, ``--until`` kept on a clock that moves with the
games, rejected submissions left out of a night.

The bots are the sample random bot (instant, or thinking a set time per move with
``--delay``), started by the real runner in its default sandbox; the league is driven through
the ``arena`` command as its users drive it.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.league.night import NightSettings, run_night
from arena.league.plan import planned_games
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.standings import read_history, read_summary
from referee.record import decode_record

pytestmark = pytest.mark.slow  # real nights of real games

ROOT = Path(__file__).resolve().parent.parent
RANDOM = ROOT / "sample_bots" / "random_bot.py"


def arena(*argv: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "arena.cli", *argv], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)
    if check:
        assert proc.returncode == 0, f"arena {' '.join(argv)}: {proc.returncode}\n" \
                                     f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def journal(league: LeagueDir, night: str) -> list:  # type: ignore[type-arg]
    path = league.night(night).journal
    return [decode_record(line) for line in path.read_bytes().splitlines() if line.strip()]


def make_league(tmp_path: Path, *, tc: str = "5+0.05", concurrency: int = 2) -> LeagueDir:
    root = tmp_path / "league"
    arena("league", "init", str(root), "--game", "dobutsu", "--tc", tc, "--max-plies", "60",
          "--concurrency", str(concurrency), "--placement-opponents", "2")
    return LeagueDir(root)


def submit_random(league: LeagueDir, name: str, seed: int, *extra: str, delay: float = 0) -> None:
    cmd = [sys.executable, str(RANDOM), "--seed", str(seed)]
    if delay:
        cmd += ["--delay", str(delay)]
    arena("league", "submit", str(league.root), name, *extra, "--", *cmd)


def test_two_nights_newcomers_placement_and_versions(tmp_path: Path) -> None:
    league = make_league(tmp_path)
    for seed, name in enumerate(("alpha", "beta", "gamma"), start=1):
        submit_random(league, name, seed)
    arena("league", "run", str(league.root), "--games", "12", "--night", "n1", "--plain")
    first = journal(league, "n1")
    assert len(first) == 12
    assert {p for r in first for p in (r.p1, r.p2)} == {"alpha@1", "beta@1", "gamma@1"}
    before = league.night("n1").journal.read_bytes()

    submit_random(league, "delta", 4)
    submit_random(league, "alpha", 5)  # alpha@2: a second version of the first bot
    listing = arena("league", "bots", str(league.root)).stdout
    assert "alpha" in listing and "delta" in listing

    arena("league", "run", str(league.root), "--games", "16", "--night", "n2", "--plain")
    # Nothing of night 1 is replayed or touched.
    assert league.night("n1").journal.read_bytes() == before
    second = journal(league, "n2")
    assert len(second) == 16
    plan = planned_games(league.plan("n2"))
    newcomers = {"delta@1", "alpha@2"}
    placement = [g for g in plan if g.round == 1]
    assert placement, "no placement games planned for the newcomers"
    assert plan[: len(placement)] == placement, "placement games come first"
    assert all(newcomers & {g.p1, g.p2} for g in placement)
    # Each newcomer meets 2 opponents (placement_opponents) in colour pairs.
    met = Counter(frozenset((g.p1, g.p2)) for g in placement)
    for newcomer in newcomers:
        opponents = {o for pair in met for o in pair if newcomer in pair and o != newcomer}
        assert len(opponents) == 2, (newcomer, met)
    assert all(count % 2 == 0 for count in met.values()), "colour pairs, both colours"
    assert {r.id for r in second} == {g.id for g in plan}

    # History: both nights, each snapshot with the games so far.
    history = read_history(league)
    assert [s.night for s in history] == ["n1", "n2"]
    assert [s.total_games for s in history] == [12, 28]
    assert {r.player for r in history[1].players} >= newcomers | {"alpha@1"}
    night2 = read_summary(league, "n2")
    assert night2 is not None and night2.games == 16
    # The ratings over all nights count every game once.
    rated = json.loads(arena("ratings", str(league.root), "--json").stdout)
    assert sum(p["played"] for p in rated["players"]) == 2 * 28
    # The league report: the version view compares alpha@1 and alpha@2.
    page = league.report_page.read_text(encoding="utf-8")
    assert 'id="versions"' in page and "alpha@1" in page and "alpha@2" in page
    assert (league.root / "nights" / "n2" / "report.html").is_file()


def wait_games(path: Path, count: int, proc: subprocess.Popen[bytes], limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        assert proc.poll() is None, f"the night ended early ({proc.returncode})"
        time.sleep(0.05)
    raise AssertionError(f"{count} games not journaled in {limit} s")


@pytest.mark.parametrize("stop", ["sigkill", "ctrl-c"])
def test_a_stopped_night_resumes_exactly(tmp_path: Path, stop: str) -> None:
    league = make_league(tmp_path)
    for seed, name in enumerate(("alpha", "beta", "gamma"), start=1):
        submit_random(league, name, seed, delay=0.01)
    argv = [sys.executable, "-m", "arena.cli", "league", "run", str(league.root), "--games",
            "24", "--night", "n1", "--plain", "--no-report"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    journal_path = league.night("n1").journal
    try:
        wait_games(journal_path, 6, proc)
        os.kill(proc.pid, signal.SIGKILL if stop == "sigkill" else signal.SIGINT)
        status = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert status == (-signal.SIGKILL if stop == "sigkill" else 130)
    kept = journal(league, "n1")
    assert 6 <= len(kept) < 24
    assert read_summary(league, "n1") is None, "a stopped night stays open"
    arena("league", "run", str(league.root), "--plain", "--no-report")
    games = journal(league, "n1")
    ids = [r.id for r in games]
    assert len(ids) == len(set(ids)), "a game played twice"
    assert [r.id for r in games[: len(kept)]] == [r.id for r in kept]
    plan = planned_games(league.plan("n1"))
    assert set(ids) == {g.id for g in plan}, "every planned game played, nothing else"
    assert 24 <= len(ids) <= 25  # the budget, rounded up to a whole colour pair
    assert read_summary(league, "n1") is not None
    assert [s.night for s in read_history(league)] == ["n1"]


class JournalClock:
    """A clock that moves :attr:`step` seconds with every game the night journals: a deadline
    comes after a known number of games, and no real minute is waited for it."""

    def __init__(self, journal: Path, start: float, step: float) -> None:
        self.journal, self.start, self.step = journal, start, step

    def games(self) -> int:
        return self.journal.read_bytes().count(b"\n") if self.journal.exists() else 0

    def __call__(self) -> float:
        return self.start + self.step * self.games()


def test_until_keeps_the_deadline(tmp_path: Path) -> None:
    """Told to end 60 s from now, on a clock that moves 10 s with every journaled game, a night
    starts no game once the deadline has come (six games in), journals every game it started
    and closes."""
    concurrency = 2
    league = make_league(tmp_path, concurrency=concurrency)
    for seed, name in enumerate(("alpha", "beta", "gamma"), start=1):
        submit_random(league, name, seed)
    clock = JournalClock(league.night("n1").journal, time.time(), 10.0)
    end = datetime.datetime.fromtimestamp(clock.start + 60).replace(microsecond=0)
    started = time.monotonic()
    said: list[str] = []
    outcome = run_night(NightSettings(league=league.root, until=end.time(), night="n1",
                                      plain=True, report=False, say=said.append,
                                      warn=said.append, error=said.append, clock=clock))
    games = journal(league, "n1")
    assert outcome.status == 0 and outcome.closed, said
    # Games start while the clock is short of the deadline: at least six (0, 10, ... 50 s).
    # A worker asks for its next game while its last one may still wait for the journal (the
    # clock moves when it is written), so at 50 s each worker may have one game finished but
    # not yet journaled and start one more: at most 5 + 2 per worker; none starts after.
    assert 60 // 10 <= len(games) <= 60 // 10 - 1 + 2 * concurrency, len(games)
    plan = planned_games(league.plan("n1"))
    started_ids = {r.id for r in games}
    assert started_ids <= {g.id for g in plan}
    assert any("deadline" in line for line in said), said
    assert read_summary(league, "n1") is not None
    assert time.monotonic() - started < 120


def test_rejected_submissions_stay_out_of_the_night(tmp_path: Path) -> None:
    league = make_league(tmp_path)
    submit_random(league, "alpha", 1)
    submit_random(league, "beta", 2)
    hang = ROOT / "tests" / "hostile" / "never_ugiok.py"
    proc = arena("league", "submit", str(league.root), "hanger", "--", sys.executable,
                 str(hang), check=False)
    assert proc.returncode != 0
    listing = arena("league", "bots", str(league.root)).stdout
    line = next(row for row in listing.splitlines() if "hanger" in row)
    assert "rejected" in line
    arena("league", "run", str(league.root), "--games", "4", "--night", "n1", "--plain",
          "--no-report")
    players = {p for r in journal(league, "n1") for p in (r.p1, r.p2)}
    assert players == {"alpha@1", "beta@1"}
