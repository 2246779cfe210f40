"""``arena run --cluster local:2`` against the local runner: games/min of the same instant-bot
tournament, and what Dask adds to each game.

Three runs of one config (3 random bots, dobutsu, 60 games), interleaved, ``REPEATS`` times:

* ``local``: ``arena run -j 2`` as a user runs it (bot processes kept between games);
* ``local fresh``: the same with ``restart = "always"`` (two bot starts per game), for scale;
* ``cluster``: ``arena run --cluster local:2`` (a LocalCluster of 2 worker processes, one
  thread each, on this machine; the workers keep their bots between games too).

Each run gives its playing rate (games over the span from the first game's start to the last
game's end, as journaled) and its whole wall time (cluster start and shutdown included). Dask's
added cost per game is ``(cluster span - local span) * slots / games``: the extra time a slot
spends on each game (task submission, the hand-over to the worker's game loop, the result's
transfer and the files' bytes).
A last figure is the bare round trip of one task carrying a game record, for scale.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
QUICK = bool(os.environ.get("BENCH_QUICK"))
GAMES_PER_PAIRING: Final = 4 if QUICK else 20  # 3 pairings
REPEATS: Final = 1 if QUICK else 3
SLOTS: Final = 2
KINDS: Final = ("local", "local fresh", "cluster")


def _config(directory: Path, kind: str) -> Path:
    bot = ROOT / "sample_bots" / "random_bot.py"
    text = (
        f'game = "dobutsu"\ntc = "10+0.1"\nconcurrency = {SLOTS}\n'
        f"games_per_pairing = {GAMES_PER_PAIRING}\n[adjudication]\nmax_plies = 200\n"
    )
    for i in range(3):
        text += f'[[bots]]\nname = "r{i}"\ncmd = ["{{python}}", "{bot}", "--seed", "{i}"]\n'
        if kind == "local fresh":
            text += 'restart = "always"\n'
    path = directory / f"{kind.replace(' ', '-')}.toml"
    path.write_text(text)
    return path


def _run(directory: Path, kind: str, n: int) -> tuple[int, float, float]:
    """(games, playing span s, wall s) of one run."""
    from arena.rundir.journal import iter_records
    from arena.rundir.layout import RunDir

    out = directory / f"out-{kind.replace(' ', '-')}-{n}"
    argv = [sys.executable, "-m", "arena.cli", "run", str(_config(directory, kind)), "-o",
            str(out), "--plain", "--no-report"]
    if kind == "cluster":
        argv += ["--cluster", f"local:{SLOTS}"]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=1800)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-2000:])
        raise SystemExit(f"arena run ({kind}) failed with status {done.returncode}")
    records = list(iter_records(RunDir(out).journal))
    span = max(r.ended_at for r in records) - min(r.started_at for r in records)
    return len(records), span, wall


def _task_round_trip(samples: int) -> list[float]:
    """Milliseconds from submitting a task that returns a game record to holding it."""
    from distributed import Client, LocalCluster

    from arena.cluster.worker import WorkerResult
    from referee.record import GameRecord, MoveRecord, Termination

    record = GameRecord(game="dobutsu", p1="a", p2="b", result="1-0",
                        termination=Termination.NORMAL, reason="bench",
                        moves=[MoveRecord(move="b1a2", side=i % 2, elapsed_ms=1.0)
                               for i in range(60)])
    times = []
    with LocalCluster(n_workers=SLOTS, threads_per_worker=1, dashboard_address=":0",
                      memory_limit=0) as cluster, Client(cluster) as client:
        for i in range(samples + 5):
            begun = time.perf_counter()
            client.submit(WorkerResult, record, key=f"bench-{i}", pure=False).result()
            if i >= 5:  # the first tasks pay imports on the workers
                times.append(1000 * (time.perf_counter() - begun))
    return times


def _median_range(values: list[float], fmt: str = "{:.1f}") -> str:
    return (f"{fmt.format(statistics.median(values))} "
            f"[{fmt.format(min(values))}-{fmt.format(max(values))}]")


def main() -> None:
    spans: dict[str, list[float]] = {kind: [] for kind in KINDS}
    walls: dict[str, list[float]] = {kind: [] for kind in KINDS}
    games = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(REPEATS):
            for kind in KINDS:
                games, span, wall = _run(Path(tmp), kind, n)
                spans[kind].append(span)
                walls[kind].append(wall)
    print(f"{games} dobutsu games between instant random bots, {SLOTS} at once, {REPEATS} "
          "interleaved runs each; median [min-max]")
    for kind in KINDS:
        rates = [60 * games / s for s in spans[kind]]
        whole = [60 * games / s for s in walls[kind]]
        print(f"  {kind:<12} {_median_range(rates, '{:.0f}')} games/min playing, "
              f"{_median_range(whole, '{:.0f}')} games/min whole command")
    fresh, cluster = statistics.median(spans["local fresh"]), statistics.median(spans["cluster"])
    pooled = statistics.median(spans["local"])
    print(f"  cluster / local: {pooled / cluster:.2f}x the rate; "
          f"cluster / local fresh: {fresh / cluster:.2f}x")
    added = [(c - p) * SLOTS / games * 1000
             for c, p in zip(spans["cluster"], spans["local"], strict=True)]
    print(f"  Dask's added cost per game: {_median_range(added)} ms of slot time "
          "(cluster span - local span, times slots, per game)")
    startup = [w - s for w, s in zip(walls["cluster"], spans["cluster"], strict=True)]
    local_startup = [w - s for w, s in zip(walls["local"], spans["local"], strict=True)]
    print(f"  command time outside the games: cluster {_median_range(startup)} s, "
          f"local {_median_range(local_startup)} s (LocalCluster start and shutdown)")
    trips = _task_round_trip(20 if QUICK else 100)
    print(f"  one task round trip with a 60-move record: {_median_range(trips)} ms")


if __name__ == "__main__":
    main()
