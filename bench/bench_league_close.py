"""Closing a league night of 300 games (target: under 10 s), then its own report after.

The league is made on disk as a season leaves it: six active versions, 30 closed nights (their
``tally.json`` and rating snapshots) and a 31st night whose 300 games (random legal dobutsu
moves played by the rules, :mod:`bench.synthetic`) are all in its journal and its plan, its
budget spent. ``arena league run`` is then called on it (:func:`arena.league.night.run_night`,
in this process): there is nothing left to play, so what it does is the close: the night's
games folded into its tally, the fit over every night stored as its snapshot, the league's
report, the lock given back, and only then the night's own report. Printed: the time until
the close is recorded and the lock free (the target), and the whole call with the night's
report (what the close took before the report moved after it). Each figure is the median of
3 runs on fresh copies (the first pays the imports, which a night pays when it begins);
``python -m bench league_close``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Final

import msgspec

from arena.formats.schedule import ScheduledGame
from arena.league.night import NightSettings, run_night
from arena.league.plan import Budget, NightState, append_plan
from arena.leaguedir.directory import LEAGUE_FILE, LeagueDir
from arena.leaguedir.standings import (
    append_snapshot,
    fit_tally,
    league_tally,
    snapshot,
    summarise,
    write_summary,
)
from arena.leaguedir.versions import Version, write_version
from arena.openings import Opening
from bench.synthetic import BotProfile, round_robin, write_journal

GAMES: Final = 300
VERSIONS: Final = 6
"""Six versions meet in 15 pairs of 20 games: 300 games."""
EARLIER_NIGHTS: Final = 30
TARGET_S: Final = 10.0
RUNS: Final = 3
NIGHT: Final = "2026-12-31"


def make_league(root: Path) -> LeagueDir:
    """A league whose newest night has played its 300 games and waits to be closed."""
    league = LeagueDir(root)
    root.mkdir(parents=True)
    (root / LEAGUE_FILE).write_text(
        'game = "dobutsu"\ntc = "10+0.1"\nconcurrency = 2\n\n[adjudication]\nmax_plies = 200\n')
    labels = [f"bot{k}@1" for k in range(VERSIONS)]
    for k, label in enumerate(labels):
        write_version(league, Version(label.split("@")[0], 1, [sys.executable, "-c", "pass"],
                                      submitted_at=1.7e9 + k, state="active"))
    bots = tuple(BotProfile(label, mean_ms=20.0, reports_search=k % 2 == 0,
                            fault_rate=0.002 if k == 1 else 0.0)
                 for k, label in enumerate(labels))
    per_pairing = GAMES // (VERSIONS * (VERSIONS - 1) // 2)
    records = round_robin("dobutsu", bots, games_per_pairing=per_pairing, seed=7)
    assert len(records) == GAMES
    # Earlier nights: the same games' tally under 30 names, each with its snapshot.
    summaries = []
    for n in range(EARLIER_NIGHTS):
        name = f"2026-12-{n + 1:02d}"
        league.night(name).root.mkdir(parents=True)
        state = NightState(name=name, started_at=1.7e9 + n * 86400, versions=labels,
                           newcomers=[], budget=Budget(games=GAMES),
                           closed_at=1.7e9 + n * 86400 + 3600)
        league.night_file(name).write_bytes(msgspec.json.encode(state))
        summary = summarise(name, records, labels)
        write_summary(league, summary)
        summaries.append(summary)
        append_snapshot(league, snapshot(name, fit_tally(league_tally(summaries)),
                                         summary.games, GAMES * len(summaries)))
    run = league.night(NIGHT)
    write_journal(run.root, records)
    state = NightState(name=NIGHT, started_at=1.7e9 + EARLIER_NIGHTS * 86400, versions=labels,
                       newcomers=[], budget=Budget(games=GAMES))
    league.night_file(NIGHT).write_bytes(msgspec.json.encode(state))
    append_plan(league.plan(NIGHT), [
        ScheduledGame(id=r.id, round=2, pairing=k // 2 + 1, game_no=k % 2 + 1, p1=r.p1,
                      p2=r.p2, opening=Opening(), pair=(r.tags or {}).get("pair", ""))
        for k, r in enumerate(records)])
    return league


def close_once(template: Path, where: Path) -> tuple[float, float]:
    """(seconds until the close is recorded and the nights' lock free, seconds of the whole
    call). The lock is watched from a thread, as another ``league run`` would try it."""
    shutil.copytree(template, where)
    league = LeagueDir(where)
    said: list[str] = []
    free: list[float] = []
    stop = threading.Event()

    def watch() -> None:
        held.wait()  # never in the way of the night taking it
        while not stop.is_set():
            fd = os.open(league.nights_lock, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            finally:
                os.close(fd)
            free.append(time.perf_counter())  # taken by the night, and now given back
            return

    held = threading.Event()

    def say(text: str) -> None:
        said.append(text)
        held.set()  # the night's first line: it holds the lock by then

    watcher = threading.Thread(target=watch, daemon=True)
    started = time.perf_counter()
    watcher.start()
    try:
        outcome = run_night(NightSettings(league=where, plain=True, say=say, warn=said.append,
                                          error=said.append))
    finally:
        stop.set()
        held.set()
        watcher.join()
    whole = time.perf_counter() - started
    assert outcome.closed, said
    assert json.loads(league.night_file(NIGHT).read_bytes()).get("closed_at"), said
    assert league.night(NIGHT).report_page.is_file(), said
    assert free, f"the nights' lock was never seen free: {said}"
    return free[0] - started, whole


def main(argv: list[str] | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="arena-bench-close-") as tmp:
        template = Path(tmp) / "template"
        made = time.perf_counter()
        make_league(template)
        print(f"league: {VERSIONS} versions, {EARLIER_NIGHTS} closed nights, a night of "
              f"{GAMES} games to close (made in {time.perf_counter() - made:.1f} s)")
        closes, wholes = [], []
        for k in range(RUNS):
            closed, whole = close_once(template, Path(tmp) / f"run{k}")
            closes.append(closed)
            wholes.append(whole)
        close = statistics.median(closes)
        print(f"close recorded, league report built, lock free: median {close:.2f} s "
              f"[{min(closes):.2f}-{max(closes):.2f}] (target < {TARGET_S:g} s: "
              f"{'met' if close < TARGET_S else 'MISSED'})")
        print(f"whole call, the night's own report after: median "
              f"{statistics.median(wholes):.2f} s [{min(wholes):.2f}-{max(wholes):.2f}]")


if __name__ == "__main__":
    main(sys.argv[1:])
