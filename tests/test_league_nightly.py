"""Nights on a schedule (``arena league run --nightly``) and a night's close.

The scheduler runs as a real process with real bots on a clock that moves an hour with every
journaled game and jumps when it sleeps (``tests/nightly_clock.py``): two nights of
``22:00-07:00`` cost seconds, and it is SIGKILLed in the middle of the first. The window's
arithmetic is checked on its own, across midnight; ``league.toml``'s ``schedule`` and
``--nightly``'s mistakes are located errors; a ``league run`` that finds a night closing
says so and waits for it.
"""

from __future__ import annotations

import datetime
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest

from arena.league.night import NightsLock, read_state, write_state
from arena.league.plan import Budget, NightState, planned_games
from arena.leaguedir.directory import LEAGUE_FILE, LeagueDir
from arena.leaguedir.nightwindow import NightWindow, parse_window
from arena.leaguedir.standings import read_history, read_summary
from arena.leaguedir.versions import Version, write_version
from referee.record import decode_record

ROOT = Path(__file__).resolve().parent.parent
RANDOM = ROOT / "sample_bots" / "random_bot.py"
CLOCK = ROOT / "tests" / "nightly_clock.py"
HOUR = 3600.0


def make_league(root: Path, schedule: str | None = None, delay: float = 0.01) -> LeagueDir:
    """A league of three active random bots, each thinking ``delay`` seconds a move (versions
    written as a submission leaves them)."""
    root.mkdir(parents=True)
    policy = f'\n[league]\nplacement_opponents = 2\nschedule = "{schedule}"\n' if schedule else ""
    (root / LEAGUE_FILE).write_text(
        'game = "dobutsu"\ntc = "60+1"\nconcurrency = 2\n\n[adjudication]\nmax_plies = 40\n'
        + policy)
    league = LeagueDir(root)
    for seed, name in enumerate(("alpha", "beta", "gamma"), start=1):
        write_version(league, Version(name, 1, [sys.executable, str(RANDOM), "--seed",
                                                str(seed), "--delay", str(delay)],
                                      submitted_at=time.time(), state="active"))
    return league


def journal_ids(league: LeagueDir, night: str) -> list[str]:
    path = league.night(night).journal
    return [decode_record(line).id for line in path.read_bytes().splitlines() if line.strip()]


def at(day: datetime.date, hour: int) -> float:
    return datetime.datetime.combine(day, datetime.time(hour)).timestamp()


def test_window_arithmetic_across_midnight() -> None:
    window = parse_window("22:00-07:00")
    assert window == NightWindow(datetime.time(22), datetime.time(7))
    day = datetime.date(2026, 12, 3)
    span = window.span_on(day)
    assert (span.start, span.end) == (at(day, 22), at(day + datetime.timedelta(days=1), 7))
    assert window.current(at(day, 21)) is None
    assert window.current(at(day, 23)) == span
    assert window.current(at(day + datetime.timedelta(days=1), 3)) == span  # after midnight
    assert window.current(at(day + datetime.timedelta(days=1), 7)) is None  # the end is out
    assert window.next_after(at(day, 21)) == span
    assert window.next_after(at(day, 22)).start == at(day + datetime.timedelta(days=1), 22)
    same_day = parse_window("13:00:30-13:05")
    assert str(same_day) == "13:00:30-13:05"
    assert same_day.current(at(day, 13) + 31) is not None
    for bad, why in (("22:00", "START-END"), ("22:00-22:00", "same time"),
                     ("24:00-07:00", "not a time of day"), ("9:00-17:00", "not a time of day")):
        with pytest.raises(ValueError, match=why):
            parse_window(bad)


def arena(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *argv], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


def test_schedule_mistakes_are_located(tmp_path: Path) -> None:
    league = make_league(tmp_path / "league", schedule="22:00-31:00")
    proc = arena("league", "run", str(league.root), "--nightly")
    assert proc.returncode == 2
    assert f"{league.config}:" in proc.stderr and ":10: league.schedule: '31:00'" in proc.stderr
    assert "not a time of day" in proc.stderr and 'schedule = "22:00-07:00"' in proc.stderr

    plain = make_league(tmp_path / "plain")
    proc = arena("league", "run", str(plain.root), "--nightly")
    assert proc.returncode == 2 and "[league] schedule" in proc.stderr, proc.stderr
    proc = arena("league", "run", str(plain.root), "--nightly", "22-7")
    assert proc.returncode == 2 and "--nightly 22-7:" in proc.stderr, proc.stderr
    proc = arena("league", "run", str(plain.root), "--nightly", "22:00-07:00", "--until",
                 "07:00")
    assert proc.returncode == 2 and "drop --until" in proc.stderr, proc.stderr


def start_scheduler(league: LeagueDir, start: float, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, str(CLOCK), str(league.root), "22:00-07:00", str(start),
             str(HOUR), "2"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)


def wait_for(what: str, done: object, proc: subprocess.Popen[bytes], log: Path,
             limit: float = 180) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if done():  # type: ignore[operator]
            return
        assert proc.poll() is None, f"ended early ({proc.returncode}): {log.read_text()}"
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {limit} s\n{log.read_text()}")


@pytest.mark.slow
def test_two_scheduled_nights_and_a_restart_in_the_first(tmp_path: Path) -> None:
    """From 21:00, ``22:00-07:00``: the first night opens at 22:00, is SIGKILLed three games
    in, resumed by the restarted scheduler and closed at its deadline; the second opens at
    22:00 the next day and closes. Every game is played once, and the games journaled form the
    head of each night's plan (none skipped)."""
    league = make_league(tmp_path / "league")
    day = datetime.date.today()
    start = at(day, 21)
    log = tmp_path / "nightly.log"
    first_night = day.isoformat()
    second_night = (day + datetime.timedelta(days=1)).isoformat()
    proc = start_scheduler(league, start, log)
    try:
        journal = league.night(first_night).journal
        wait_for("3 games of the first night", lambda: journal.exists()
                 and journal.read_bytes().count(b"\n") >= 3, proc, log)
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    kept = journal_ids(league, first_night)
    assert len(kept) >= 3 and read_summary(league, first_night) is None, "still open"

    proc = start_scheduler(league, start, log)
    try:
        status = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    said = log.read_text()
    assert status == 0, said

    assert league.night_names() == [first_night, second_night], said
    for name, opens in ((first_night, at(day, 22)),
                        (second_night, at(day + datetime.timedelta(days=1), 22))):
        state = read_state(league, name)
        assert state.started_at == opens, (name, "opened on time")
        assert state.budget.deadline == opens + 9 * HOUR
        assert state.closed_at is not None and state.closed_at >= state.budget.deadline
        ids = journal_ids(league, name)
        assert len(ids) == len(set(ids)), f"{name}: a game played twice"
        plan = [g.id for g in planned_games(league.plan(name))]
        assert ids and sorted(ids) == sorted(plan[:len(ids)]), f"{name}: a game skipped"
        # An hour a game, nine hours a night: games start while fewer than nine are
        # journaled, and a worker may ask for its next game while its last one waits to be
        # journaled (the clock moves when it is written): at most 8 + 2 per worker.
        assert 9 <= len(ids) <= 9 - 1 + 2 * 2, (name, len(ids))
        summary = read_summary(league, name)
        assert summary is not None and summary.games == len(ids)
    assert journal_ids(league, first_night)[:len(kept)] == kept, "the first night resumed"
    assert [s.night for s in read_history(league)] == [first_night, second_night]
    lines = (league.nights / "nightly.log").read_text().splitlines()
    assert [line.split(" night ")[1].split(" ")[0] for line in lines] == [first_night,
                                                                          second_night], lines
    assert all("closed at" in line for line in lines), lines
    assert f"next night at {second_night} 22:00:00" in said


@pytest.mark.slow
def test_a_run_during_a_close_says_the_night_is_closing(tmp_path: Path) -> None:
    """The nights' lock held by a night whose games have ended (``closing_at``): a new
    ``league run`` says the night is closing, waits, and plays once the close is recorded."""
    league = make_league(tmp_path / "league")
    versions = ["alpha@1", "beta@1"]
    state = NightState(name="n1", started_at=time.time(), versions=versions, newcomers=[],
                       budget=Budget(games=2), closing_at=time.time())
    league.night("n1").root.mkdir(parents=True)
    write_state(league, state)
    lock = NightsLock(league, lambda text: None)
    argv = [sys.executable, "-m", "arena.cli", "league", "run", str(league.root), "--games", "2",
            "--night", "n2", "--plain", "--no-report"]
    log = tmp_path / "run.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for("the closing message", lambda: "night n1 is closing" in log.read_text(),
                 proc, log, limit=60)
        assert "being played" not in log.read_text()
        state.closed_at = time.time()
        write_state(league, state)
        lock.release()
        assert proc.wait(timeout=120) == 0, log.read_text()
    finally:
        lock.release()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert len(journal_ids(league, "n2")) == 2
    # A night being played (no closing_at) still gets the other message, at once.
    state = NightState(name="n3", started_at=time.time(), versions=versions, newcomers=[],
                       budget=Budget(games=2))
    league.night("n3").root.mkdir(parents=True)
    write_state(league, state)
    lock = NightsLock(league, lambda text: None)
    try:
        proc2 = arena("league", "run", str(league.root), "--plain")
    finally:
        lock.release()
    assert proc2.returncode == 2 and "being played" in proc2.stderr, proc2.stderr
    assert msgspec.json.decode(league.night_file("n3").read_bytes())["name"] == "n3"
