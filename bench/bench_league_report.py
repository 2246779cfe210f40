"""League report build time for a league of 1,000,000 games over 200 nights and 100 versions
(target: well under 60 s).

The league is made on disk as a league's nights leave it, without journals: a closed night is
its ``tally.json`` (:class:`~arena.leaguedir.standings.NightSummary`), which is all the report may
read of it. Each night 5,000 games are played as 2,500 colour pairs between random pairs of
the versions active that night, their results drawn with numpy from hidden strengths (so the
fit has something to find); versions arrive over the season (a bot's new version retires its
previous one now and then), and each night's snapshot in ``history.jsonl`` is a real fit over
every night so far, as the league would have appended it. Only ``build_league_report`` is
timed: a first build and a second one (the refresh after a night).

``python -m bench league_report`` or ``python bench/bench_league_report.py [NIGHTS] [DIR]``.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

import numpy as np

from arena.leaguedir.directory import LEAGUE_FILE, NIGHT_FILE, LeagueDir
from arena.leaguedir.standings import (
    NightSummary,
    append_snapshot,
    fit_tally,
    snapshot,
    write_summary,
)
from arena.leaguedir.versions import Version, parse_label, write_version
from ratings.tally import Tally, merge
from reports.league_report import build_league_report

NIGHTS: Final = 200
VERSIONS: Final = 100
BOTS: Final = 30
GAMES_PER_NIGHT: Final = 5_000
TARGET_S: Final = 60.0
DRAW: Final = 0.2
"""Chance of a draw in any game (the rest split by the expected score)."""


def make_league(root: Path, nights: int = NIGHTS, seed: int = 1) -> LeagueDir:
    """Write a league of ``nights`` closed nights under ``root`` (no journals)."""
    rng = np.random.default_rng(seed)
    league = LeagueDir(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / LEAGUE_FILE).write_text('game = "dobutsu"\n')
    # Version k arrives before night arrival[k]; the first BOTS versions are there from the
    # start, the rest (new versions of random bots) spread over the season.
    bot_of = np.concatenate([np.arange(BOTS), rng.integers(0, BOTS, VERSIONS - BOTS)])
    arrival = np.concatenate([np.zeros(BOTS, int),
                              np.sort(rng.integers(1, max(nights, 2), VERSIONS - BOTS))])
    strength = rng.normal(0, 150, VERSIONS)
    number: dict[int, int] = {}
    labels = []
    for k in range(VERSIONS):
        number[bot_of[k]] = number.get(bot_of[k], 0) + 1
        labels.append(f"bot{bot_of[k]:02d}@{number[bot_of[k]]}")
    retired_at = np.full(VERSIONS, nights + 1)
    for k in range(BOTS, VERSIONS):  # a new version retires its predecessor half the time
        earlier = [j for j in range(k) if bot_of[j] == bot_of[k] and retired_at[j] > nights]
        if earlier and rng.random() < 0.5:
            retired_at[earlier[-1]] = arrival[k]
    for k, label in enumerate(labels):
        name, n = parse_label(label)
        write_version(league, Version(
            name, n or 0, ["./bot"], submitted_at=1.7e9 + float(arrival[k]) * 86400,
            state="retired" if retired_at[k] <= nights else "active"))

    merged = Tally()
    total = 0
    for night in range(nights):
        name = f"2026-{1 + night // 28:02d}-{1 + night % 28:02d}"
        active = np.flatnonzero((arrival <= night) & (retired_at > night))
        summary = _night(name, rng, active, labels, strength)
        folder = league.nights / name
        folder.mkdir(parents=True)
        (folder / NIGHT_FILE).write_text(json.dumps({"night": name}) + "\n")
        write_summary(league, summary)
        merged = merge([merged, summary.tally])
        total += summary.games
        append_snapshot(league, snapshot(name, fit_tally(merged), summary.games, total))
    return league


def _night(name: str, rng: np.random.Generator, active: np.ndarray, labels: list[str],
           strength: np.ndarray) -> NightSummary:
    """One night's tally: colour pairs between random pairs of ``active`` versions."""
    pairs = GAMES_PER_NIGHT // 2
    a = rng.choice(active, pairs)
    b = rng.choice(active, pairs)
    keep = a != b
    a, b = a[keep], b[keep]
    expected = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))

    def games() -> np.ndarray:  # a's score in one game: 1, 0.5 or 0
        roll = rng.random(len(a))
        return np.where(roll < DRAW, 0.5, np.where(roll < DRAW + (1 - DRAW) * expected, 1, 0))

    first, second = games(), games()  # a moves first in the first game, b in the second
    players = [labels[i] for i in active]
    index = {v: i for i, v in enumerate(active)}
    ia = np.array([index[v] for v in a])
    ib = np.array([index[v] for v in b])
    n = len(active)
    cells = np.zeros((n, n, 3), np.int64)  # (first mover, second mover, its W/D/L)
    outcome = {1.0: 0, 0.5: 1, 0.0: 2}
    np.add.at(cells, (ia, ib, np.vectorize(outcome.get)(first)), 1)
    np.add.at(cells, (ib, ia, np.vectorize(outcome.get)(1 - second)), 1)
    # Pentanomial per unordered pair, from the lower index's side: ll ld wl dd wd ww.
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    s1 = np.where(ia == lo, first, 1 - first)
    s2 = np.where(ia == lo, second, 1 - second)
    kind = np.select([s1 + s2 == 0, s1 + s2 == 0.5, (s1 + s2 == 1) & (s1 != 0.5),
                      (s1 + s2 == 1), s1 + s2 == 1.5], [0, 1, 2, 3, 4], 5)
    penta = np.zeros((n, n, 6), np.int64)
    np.add.at(penta, (lo, hi, kind), 1)
    f, s = np.nonzero(cells.sum(axis=2))
    p, q = np.nonzero(penta.sum(axis=2))
    tally = Tally(
        players,
        [(int(i), int(j), int(w), int(d), int(x))
         for i, j in zip(f, s, strict=True) for w, d, x in [cells[i, j]]],
        [(int(i), int(j), *(int(x) for x in penta[i, j]))  # type: ignore[misc]
         for i, j in zip(p, q, strict=True)],
    )
    played = 2 * len(a)
    crashes = int(rng.poisson(3))
    return NightSummary(name, tally, played, {"crash": crashes} if crashes else {},
                        {}, [], 0.0, 0.0)


def main(argv: list[str] | None = None) -> None:
    """``argv``: [NIGHTS] [DIR] (``python -m bench`` passes none: 200 nights, a temp dir)."""
    argv = argv or []
    nights = int(argv[0]) if argv else NIGHTS
    keep = Path(argv[1]) if len(argv) > 1 else None
    root = keep or Path(tempfile.mkdtemp(prefix="bench-league-"))
    try:
        started = time.perf_counter()
        league = make_league(root, nights)
        print(f"league: {nights} nights, {VERSIONS} versions, "
              f"{nights * GAMES_PER_NIGHT:,} games (about), made in "
              f"{time.perf_counter() - started:.1f} s")
        for label in ("first build", "rebuild"):
            started = time.perf_counter()
            page = build_league_report(root)
            seconds = time.perf_counter() - started
            print(f"{label}: {seconds:.2f} s, {seconds / TARGET_S:.3f} of the {TARGET_S:.0f} s "
                  "target" + ("" if seconds < TARGET_S else "  ** OVER TARGET **"))
        chart = league.report_dir / "history.png"
        print(f"{page.name} {page.stat().st_size / 1e3:.0f} kB, {chart.name} "
              f"{chart.stat().st_size / 1e3:.0f} kB, export "
              f"{sum(p.stat().st_size for p in league.export.iterdir()) / 1e3:.0f} kB")
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
