"""``arena run --cluster``: how many results a minute one tournament takes in, at what CPU cost,
and what the cluster adds to each real game.

1. **Simulation** (issue 27's target: >= 10,000 games/min into one journal, <= 2 ms of the
   submitting process's CPU per game). A real ``dask scheduler`` and two real ``dask worker``
   processes (:data:`THREADS` threads each) on 127.0.0.1, whose games end at once
   (``bench.cluster_sim``: a made-up 60-ply record per order, no bot started); the rest is
   ``arena run`` as a user runs it: a two-bot match with its SPRT on (bounds so narrow that it
   never decides), the progress printed game by game (``--plain``), every record fsync'd into
   the journal. Printed: finished games per minute (games over the span from the first game's
   start to the last one's end), the submitting process's CPU per game and the scheduler's,
   each as the marginal cost (a run of :data:`SMALL` games is subtracted, so that start-up and
   imports are not spread over the games), batched and with one Dask task per game
   (``ARENA_CLUSTER_BATCH=1``) for comparison.
2. **Real bots** (target: the cluster adds < 20 ms per game). :data:`REAL_GAMES` jungle games
   between two sample bots at ``2+0.05``, once locally with ``-j 2`` and once on a cluster of
   two one-thread workers, interleaved :data:`REAL_REPEATS` times. The cluster's added time
   per game is ``(cluster span - local span) * 2 / games``.

``BENCH_QUICK=1`` runs small sizes, ``BENCH_CLUSTER_PART=sim`` or ``real`` one part only.
This is a long benchmark (a few minutes): run it on a quiet
machine; the figures are printed with the load average at the start.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
QUICK = bool(os.environ.get("BENCH_QUICK"))
THREADS: Final = 4
SMALL: Final = 200
SIM_GAMES: Final = {"batched": 3000 if QUICK else 20000,
                     "one task per game": 600 if QUICK else 3000}
REAL_GAMES: Final = 20 if QUICK else 200
REAL_REPEATS: Final = 1 if QUICK else 3
TICKS: Final = os.sysconf("SC_CLK_TCK")


def _env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def _cpu_s(pid: int) -> float:
    """utime + stime of a live process, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


@contextmanager
def dask_cluster(directory: Path, threads: int, preload: str | None) -> Iterator[
        tuple[str, subprocess.Popen[bytes]]]:
    """A real scheduler and two workers on 127.0.0.1; (address, scheduler process)."""
    file = directory / f"scheduler-{time.monotonic_ns()}.json"
    procs = [subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", "0",
         "--no-dashboard", "--scheduler-file", str(file), "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())]
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                address = json.loads(file.read_text())["address"]
                break
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise SystemExit("the Dask scheduler did not start") from None
                time.sleep(0.1)
        for _ in range(2):
            argv = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads",
                    str(threads), "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"]
            procs.append(subprocess.Popen(argv + (["--preload", preload] if preload else []),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          env=_env()))
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=120)
        yield address, procs[0]
    finally:
        for proc in procs[::-1]:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _arena_run(config: Path, out: Path, *extra: str, env: dict[str, str] | None = None
               ) -> tuple[float, float]:
    """Run ``arena run``; (its own CPU seconds, wall seconds)."""
    argv = [sys.executable, "-m", "arena.cli", "run", str(config), "-o", str(out), "--plain",
            "--no-report", *extra]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                            env=env or _env())
    assert proc.stderr is not None
    errors = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"arena run failed ({proc.returncode}): {errors[-2000:].decode()}")
    return usage.ru_utime + usage.ru_stime, wall


def _span(out: Path) -> tuple[int, float]:
    from arena.rundir.journal import iter_records

    records = list(iter_records(out / "games.jsonl"))
    return len(records), max(r.ended_at for r in records) - min(r.started_at for r in records)


def _sim_config(directory: Path, games: int) -> Path:
    bot = ROOT / "sample_bots" / "random_bot.py"
    text = (f'game = "dobutsu"\ntc = "10+0.1"\ngames_per_pairing = {games}\n'
            "[sprt]\nelo0 = -0.5\nelo1 = 0.5\nalpha = 0.001\nbeta = 0.001\n")
    for i in range(2):
        text += f'[[bots]]\nname = "r{i}"\ncmd = ["{{python}}", "{bot}", "--seed", "{i}"]\n'
    path = directory / f"sim-{games}.toml"
    path.write_text(text)
    return path


def simulation(directory: Path) -> None:
    print(f"simulation: instant games through a real Dask scheduler and 2 workers x {THREADS} "
          "threads, SPRT and progress on, journal fsync'd; marginal costs "
          f"(a {SMALL}-game run subtracted)")
    with dask_cluster(directory, THREADS, "bench.cluster_sim") as (address, scheduler):
        for kind, games in SIM_GAMES.items():
            env = _env(ARENA_CLUSTER_BATCH="1") if kind == "one task per game" else _env()
            costs = []
            for size in (SMALL, games):
                out = directory / f"sim-{kind.replace(' ', '-')}-{size}"
                before = _cpu_s(scheduler.pid)
                cpu, wall = _arena_run(_sim_config(directory, size), out, "--cluster",
                                       address, env=env)
                costs.append((size, cpu, _cpu_s(scheduler.pid) - before, wall, _span(out)))
            (n0, cpu0, sched0, _, _), (n1, cpu1, sched1, wall1, (done, span)) = costs
            assert done == n1, f"{done} of {n1} games journaled"
            per_game = 1000 * (cpu1 - cpu0) / (n1 - n0)
            sched = 1000 * (sched1 - sched0) / (n1 - n0)
            print(f"  {kind:<18} {n1} games: {60 * n1 / span:,.0f} games/min playing "
                  f"({60 * n1 / wall1:,.0f} whole command), submitter CPU {per_game:.2f} ms/game "
                  f"(target <= 2), scheduler CPU {sched:.2f} ms/game")


def _real_config(directory: Path, kind: str) -> Path:
    text = (f'game = "jungle"\ntc = "2+0.05"\ngames_per_pairing = {REAL_GAMES}\nconcurrency = 2\n'
            "seed = 11\n[openings]\nrandom_plies = 4\n[adjudication]\nmax_plies = 300\n"
            f'[[bots]]\nname = "greedy"\ncmd = ["{{python}}", "{ROOT}/sample_bots/greedy.py"]\n'
            f'[[bots]]\nname = "randbot"\ncmd = ["{ROOT}/sample_bots/c/randbot"]\n')
    path = directory / f"real-{kind}.toml"
    path.write_text(text)
    return path


def real_bots(directory: Path) -> None:
    spans: dict[str, list[float]] = {"local": [], "cluster": []}
    games = 0
    with dask_cluster(directory, 1, None) as (address, _):
        for n in range(REAL_REPEATS):
            for kind in ("local", "cluster"):
                out = directory / f"real-{kind}-{n}"
                extra = ("--cluster", address) if kind == "cluster" else ()
                _arena_run(_real_config(directory, kind), out, *extra)
                games, span = _span(out)
                spans[kind].append(span)
    added = [(c - p) * 2 / games * 1000
             for c, p in zip(spans["cluster"], spans["local"], strict=True)]
    print(f"real bots: {games} jungle games greedy.py vs c/randbot at 2+0.05, 2 at once, "
          f"{REAL_REPEATS} interleaved run(s) each")
    for kind, values in spans.items():
        print(f"  {kind:<8} {statistics.median(values):.1f} s playing "
              f"({60 * games / statistics.median(values):.0f} games/min)")
    print(f"  the cluster's added time per game: {statistics.median(added):.1f} ms "
          f"[{min(added):.1f}-{max(added):.1f}] (target < 20)")


def main() -> None:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
          f"on {os.cpu_count()} cores")
    part = os.environ.get("BENCH_CLUSTER_PART", "")
    with tempfile.TemporaryDirectory() as tmp:
        if part in ("", "sim"):
            simulation(Path(tmp))
        if part in ("", "real"):
            real_bots(Path(tmp))


if __name__ == "__main__":
    main()
