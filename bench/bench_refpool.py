"""One referee process against N (``arena run --referees``), and how that scales with cores.

Runner-bound settings only (the bots answer at once, so the referee's work is most of what
there is): the C sample bot (``sample_bots/c/randbot``, built by ``make bots``) without a
sandbox, the same in the default sandbox, and Fairy-Stockfish at ``nodes=1`` when it is
installed; dobutsu, 16 games at once. Each setting runs 1 and N referee processes in turn (A B
A B ..., :data:`PAIRS` pairs: the machine's speed drifts, the pairs share it), N the default
for 16 games at once on this machine's cores, at least 2.

Per run: games/min, and the CPU seconds of each kind of process: the runner's own (from its
zombie's /proc stat), its referee processes' and its bots' (each bot process is in a cgroup
under ``arena-<pid>`` of the process that started it), sampled from /proc every
:data:`SAMPLE_S` while they run: the last tenth of a second of each is missed, and the sampling
itself takes a little of the machine. From
the medians it prints what the cores would give: per game, the runner's own CPU ``r`` (what
no referee process takes off it), the referee processes' ``f`` and the bots' ``b``; with N
referee processes on K idle cores a run plays at most ``min(1/r, N/f, K/(r+f+b))`` games per
second (the runner's one core, the referee processes' N cores, all the cores), and with one
process ``min(1/a, K/(a+b))``, ``a`` the runner's CPU when it referees too. N is K/2 (the
default from 4K games at once) or 2. A many-core
machine confirms it by running this bench: the measured ratio should follow the model.

``BENCH_QUICK=1``: fewer games and pairs (a smoke test). ``BENCH_REFPOOL_GAMES`` sets the C
bot's games (default 2000; Fairy-Stockfish plays a fifth of them).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.run.referees import referees_for

ROOT: Final = Path(__file__).resolve().parent.parent
QUICK: Final = os.environ.get("BENCH_QUICK") == "1"
PAIRS: Final = 1 if QUICK else 3
CONCURRENCY: Final = 16
RANDBOT: Final = ROOT / "sample_bots" / "c" / "randbot"
FAIRY: Final = Path("/usr/games/fairy-stockfish")
SAMPLE_S: Final = 0.1


@dataclass
class Setting:
    name: str
    games: int
    bots: str
    """The config's ``[[bots]]`` tables."""
    tc: str


@dataclass
class Sample:
    """One run: its wall time, games, and CPU seconds by kind of process."""

    wall: float
    games: int
    runner: float
    referees: float
    bots: float
    load: float

    @property
    def per_minute(self) -> float:
        return 60 * self.games / self.wall


def settings() -> list[Setting]:
    games = int(os.environ.get("BENCH_REFPOOL_GAMES") or (400 if QUICK else 2000))
    found: list[Setting] = []
    if RANDBOT.exists():
        for label, extra in (("C sample bot, no sandbox", 'sandbox = "none"\n'),
                             ("C sample bot, default sandbox", "")):
            bots = "".join(f'[[bots]]\nname = "c{i}"\ncmd = ["{RANDBOT}", "--seed", "{i}"]\n'
                           f"{extra}" for i in (1, 2))
            found.append(Setting(label, games, bots, "10+0.1"))
    else:
        print(f"   {RANDBOT} not built (make bots): the C sample bot is skipped")
    if FAIRY.exists():
        bots = "".join(f'[[bots]]\nname = "fsf{i}"\ncmd = ["{FAIRY}"]\nprotocol = "uci"\n'
                       for i in (1, 2))
        found.append(Setting("Fairy-Stockfish nodes=1", max(2, games // 5 // 2 * 2), bots,
                             "inf nodes=1"))
    return found


def _cpu(pid: int, tick: int) -> float | None:
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / tick


def _scan(runner: int, referees: dict[int, float], bots: dict[int, float], tick: int) -> None:
    """One look at /proc: the CPU now of the runner's referee processes (its children running
    ``arena.run.refproc``) and of every bot process (one in a cgroup under ``arena-<pid>`` of
    the runner or of a referee process: a bot is not always the referee's descendant)."""
    owners = {f"/arena-{pid}/" for pid in (runner, *referees)}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) == runner and b"arena.run.refproc" in (entry / "cmdline").read_bytes():
                referees[pid] = (int(stat[11]) + int(stat[12])) / tick
                continue
            cgroups = (entry / "cgroup").read_text()
        except (OSError, IndexError, ValueError):
            continue
        if any(owner in cgroups for owner in owners):
            bots[pid] = (int(stat[11]) + int(stat[12])) / tick


def run(setting: Setting, work: Path, count: int) -> Sample:
    """One ``arena run`` of ``setting`` with ``count`` referee processes, sampled to its end."""
    config = work / "bench.toml"
    out = work / f"out-{count}"
    shutil.rmtree(out, ignore_errors=True)
    config.write_text(f'game = "dobutsu"\ntc = "{setting.tc}"\n'
                      f"games_per_pairing = {setting.games}\nconcurrency = {CONCURRENCY}\n"
                      f"[adjudication]\nmax_plies = 400\n{setting.bots}")
    tick = os.sysconf("SC_CLK_TCK")
    load = os.getloadavg()[0]
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "run", str(config), "-o", str(out), "--plain",
         "--no-report", "--referees", str(count)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    referees: dict[int, float] = {}
    bots: dict[int, float] = {}
    while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is None:
        _scan(proc.pid, referees, bots, tick)
        time.sleep(SAMPLE_S)
    wall = time.perf_counter() - started
    runner = _cpu(proc.pid, tick) or 0.0  # the zombie's own CPU, its children's apart
    proc.wait()
    journal = out / "games.jsonl"
    games = len(journal.read_bytes().splitlines()) if journal.exists() else 0
    return Sample(wall, games, runner, sum(referees.values()), sum(bots.values()), load)


def per_game(samples: list[Sample], what: str) -> float:
    """The median over ``samples`` of a kind's CPU seconds per game."""
    return statistics.median(getattr(s, what) / max(1, s.games) for s in samples)


def bound(n: int, k: int, alone: float, runner: float, referees: float, bots: float) -> float:
    """Games/min at most with ``n`` referee processes on ``k`` idle cores, from CPU seconds
    per game: one process (``alone``: the runner refereeing too) is held to one core; with
    more, the runner's own share to one core and the referees' to ``n``; all of it to ``k``."""
    if n == 1:
        return 60 * min(1 / alone, k / (alone + bots))
    return 60 * min(1 / runner, n / referees, k / (runner + referees + bots))


def main() -> None:
    cores = os.cpu_count() or 1
    count = max(2, referees_for(None, CONCURRENCY, cores).count)
    print(f"-- 1 against {count} referee processes, {CONCURRENCY} games at once, {cores} cores, "
          f"{PAIRS} pairs in turn (read with the load average)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for setting in settings():
            one: list[Sample] = []
            many: list[Sample] = []
            for _ in range(PAIRS):
                one.append(run(setting, work, 1))
                many.append(run(setting, work, count))
            print(f"   {setting.name}, {setting.games} games:", flush=True)
            for label, samples in (("1 referee", one), (f"{count} referees", many)):
                for s in samples:
                    print(f"     {label:11} {s.per_minute:7.0f} games/min  CPU s runner "
                          f"{s.runner:5.2f} referees {s.referees:5.2f} bots {s.bots:5.2f}  "
                          f"(load {s.load:.1f})", flush=True)
            ratios = [b.per_minute / a.per_minute for a, b in zip(one, many, strict=True)]
            print(f"     {count} referees / 1: median {statistics.median(ratios):.2f}x games/min "
                  f"(pairs {', '.join(f'{r:.2f}' for r in ratios)})", flush=True)
            alone, r = per_game(one, "runner"), per_game(many, "runner")
            f, b = per_game(many, "referees"), per_game(one, "bots")
            print(f"     CPU per game: the runner alone {1000 * alone:.2f} ms; with {count} "
                  f"referees the runner {1000 * r:.2f} ms, the referee processes "
                  f"{1000 * f:.2f} ms; the bots {1000 * b:.2f} ms. On K idle cores that "
                  "gives at most (games/min):", flush=True)
            for k in sorted({2, 8, 32, 64, cores}):
                n = max(2, referees_for(None, 4 * k, k).count)
                print(f"       K={k:3} cores: 1 referee {bound(1, k, alone, r, f, b):8.0f}, "
                      f"{n:2} referees {bound(n, k, alone, r, f, b):8.0f}", flush=True)
