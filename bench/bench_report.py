"""Report build time over a 100,000-game journal (target: under 60 s).

The journal is made fast but from real games: a few hundred random draughts games are played
with the rules (:mod:`bench.synthetic`), then re-used under many pairings of 16 bots and
fresh ids. Each pairing picks a base game whose result fits the two bots' hidden strengths, so
the ratings have something to find. Only ``build_report`` is timed.

The journal's summary is timed on its own too, read from the journal and from the report's
summary cache (``report/journal-summary.msgpack``), which is what keeps a refresh short.

Viewer files: a run this size gets viewers for ``DEFAULT_VIEWER_LIMIT`` games (faulty games
first, then the most recent), so the first build pays for those replays and every refresh
after it only for new games; the second, cached build is timed too, as a run's refresh would be.

``python -m bench report`` or ``python bench/bench_report.py [GAMES] [RUN_DIR]``.
"""

from __future__ import annotations

import math
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec

from arena.rundir.journal import write_records
from arena.rundir.layout import RunDir
from bench.synthetic import DEFAULT_BOTS, BotProfile, play_game
from referee.record import GameRecord
from reports.html import build
from reports.journal_summary import summarise_journal
from reports.viewer_files import GAMES_DIR

GAMES = 100_000
BASE_GAMES = 300
BOTS = 16
TARGET_S = 60.0


def make_journal(run_dir: Path, games: int = GAMES, seed: int = 1) -> Path:
    """Write the journal of ``run_dir`` with ``games`` records built from real random games."""
    rng = random.Random(seed)
    profiles = [
        BotProfile(f"bot{i:02d}", mean_ms=5.0 + 10 * (i % 5), reports_search=i % 2 == 0,
                   fault_rate=0.003 if i % 7 == 3 else 0.0)
        for i in range(BOTS)
    ]
    base: list[GameRecord] = []
    for n in range(BASE_GAMES):
        a, b = DEFAULT_BOTS[n % 2], DEFAULT_BOTS[2 + n % 2]
        base.append(play_game("draughts", a, b, rng, max_plies=150))
    by_result: dict[str, list[GameRecord]] = {}
    for rec in base:
        by_result.setdefault(rec.result, []).append(rec)
    strength = [rng.gauss(0, 150) for _ in profiles]
    run_dir.mkdir(parents=True, exist_ok=True)
    path = RunDir(run_dir).journal

    def records() -> Iterator[GameRecord]:
        clock = 1_700_000_000.0
        for number in range(games):
            i, j = rng.sample(range(BOTS), 2)
            expected = 1 / (1 + 10 ** ((strength[j] - strength[i]) / 400))
            roll = rng.random()
            result = "1/2-1/2" if roll < 0.15 else ("1-0" if roll < 0.15 + 0.85 * expected
                                                     else "0-1")
            pool = by_result.get(result) or base
            rec = msgspec.structs.replace(
                rng.choice(pool),
                p1=profiles[i].name,
                p2=profiles[j].name,
                id=f"r{number // 240 + 1}-p{i:02d}{j:02d}-g{number}",
                started_at=clock,
                ended_at=clock + 30.0,
                tags={"pairing": f"{i}-{j}"},
            )
            clock += 0.5
            yield rec

    write_records(path, records())
    return path


def main(argv: list[str] | None = None) -> None:
    """``argv``: [GAMES] [RUN_DIR] (``python -m bench`` passes none: 100,000 games, temp dir)."""
    argv = argv or []
    games = int(argv[0]) if argv else GAMES
    keep = Path(argv[1]) if len(argv) > 1 else None
    run_dir = keep or Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        started = time.perf_counter()
        path = make_journal(run_dir, games)
        size = path.stat().st_size / 1e6
        print(f"journal: {games} games, {size:.0f} MB, made in "
              f"{time.perf_counter() - started:.1f} s")
        for label in ("first build", "refresh (viewers cached)"):
            started = time.perf_counter()
            built = build(run_dir)
            seconds = time.perf_counter() - started
            print(
                f"{label}: {seconds:.1f} s for {len(built.games)} games "
                f"({len(built.viewers)} viewer files), {seconds / TARGET_S:.2f} of the "
                f"{TARGET_S:.0f} s target" + ("" if seconds < TARGET_S else "  ** OVER TARGET **")
            )
        files = RunDir(run_dir)
        timed = []
        for cache in (None, files.summary_cache):
            started = time.perf_counter()
            summarise_journal(run_dir, cache=cache)
            timed.append(time.perf_counter() - started)
        print(f"journal summary: {timed[0]:.1f} s from the journal, {timed[1]:.1f} s from its "
              f"cache ({files.summary_cache.stat().st_size / 1e6:.0f} MB)")
        html, index, viewers = files.report_page, files.report_index, files.report_dir / GAMES_DIR
        print(f"{html.name} {html.stat().st_size / 1e3:.0f} kB, {index.name} "
              f"{index.stat().st_size / 1e6:.1f} MB, viewer files "
              f"{sum(p.stat().st_size for p in viewers.iterdir()) / 1e6:.1f} MB")
        top = built.standings.head(3)
        print("top: " + ", ".join(f"{b} {e:+.0f}" for b, e in zip(top["bot"], top["elo"],
                                                                   strict=True)
                                  if not math.isnan(e)))
    finally:
        if keep is None:
            shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
