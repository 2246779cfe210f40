"""Bounded records: ``arena run`` of 10 games against the pv-flood bot, then a resume with
nothing left to play; the referee's peak RSS and the journal's size per game.

The flood bot (``tests/hostile/pv_flood.py``) sends ``info depth 1 pv <about 200,000 moves>``
(just under the 1 MiB line cap) before every move. Kept whole, that was a 392 MB journal and a
4.85 GB referee peak for 10 games, and 4.96 GB to resume with nothing to play. Targets: the
referee's peak RSS under 100 MB (the process running ``arena run``, measured by its own
``getrusage`` at exit, so bots are not counted) and under 1 MB of journal per game.

``PV_FLOOD_GAMES`` sets the number of games (default 10).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from tempfile import TemporaryDirectory

from arena.rundir.layout import RunDir
from referee.process import proctree

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
GAMES = int(os.environ.get("PV_FLOOD_GAMES", "10"))
MAX_PLIES = 80
PEAK_TARGET_MB = 100
JOURNAL_TARGET_BYTES_PER_GAME = 1 << 20

# `arena run` in this interpreter, then its own peak RSS (KiB on Linux) on the last line.
RUNNER = (
    "import resource, sys\n"
    "from arena.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "print('peak-rss-kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)\n"
    "sys.exit(status)\n"
)


def write_config(where: Path, tag: str) -> Path:
    # games_per_pairing counts both colours; GAMES games of one pairing.
    bots = [("flood", HOSTILE / "pv_flood.py", [tag, "0"]),
            ("innocent", ROOT / "sample_bots" / "random_bot.py", ["--seed", "1", "--name", tag])]
    lines = ['game = "jungle"', 'tc = "60+1"', "concurrency = 1",
             f"games_per_pairing = {GAMES}", "[adjudication]", f"max_plies = {MAX_PLIES}", ""]
    for name, script, args in bots:
        argv = ", ".join(f'"{a}"' for a in ["{python}", str(script), *args])
        lines += ["[[bots]]", f'name = "{name}"', f"cmd = [{argv}]", ""]
    path = where / "pv_flood.toml"
    path.write_text("\n".join(lines))
    return path


def run_arena(config: Path, out: Path) -> tuple[int, float, float]:
    """(exit status, peak RSS in MB, wall seconds) of one ``arena run``."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "run", str(config), "--output", str(out), "--no-report",
         "--plain"], capture_output=True, text=True, cwd=ROOT, timeout=1800)
    seconds = time.perf_counter() - started
    peak = next((int(line.split()[1]) / 1024 for line in done.stdout.splitlines()
                 if line.startswith("peak-rss-kib")), float("nan"))
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
    return done.returncode, peak, seconds


def main() -> None:
    tag = f"bench-pv-flood-{uuid.uuid4().hex[:8]}"
    with TemporaryDirectory(prefix="bench-pv-flood-") as tmp:
        where = Path(tmp)
        config = write_config(where, tag)
        out = where / "out"
        status, peak, seconds = run_arena(config, out)
        journal = RunDir(out).journal
        lines = journal.read_bytes().splitlines() if journal.exists() else []
        size = journal.stat().st_size if journal.exists() else 0
        plies = sum(line.count(b'"move":') for line in lines)
        print(f"{len(lines)} games (exit status {status}), {plies} moves, "
              f"{seconds:.1f} s; pv sent: about {plies // 2} lines of 1 MB")
        per_game = size / max(1, len(lines))
        print(f"referee peak RSS: {peak:.1f} MB (target < {PEAK_TARGET_MB} MB; "
              f"ratio to target {peak / PEAK_TARGET_MB:.2f}; before the caps: 4850 MB)")
        print(f"journal: {size / 1e6:.3f} MB, {per_game / 1e3:.1f} kB per game (target < "
              f"{JOURNAL_TARGET_BYTES_PER_GAME / 1e6:.0f} MB per game; ratio "
              f"{per_game / JOURNAL_TARGET_BYTES_PER_GAME:.3f}; before the caps: 39 MB per game)")
        status, resume_peak, seconds = run_arena(config, out)
        print(f"resume with nothing to play: exit status {status}, peak RSS {resume_peak:.1f} MB "
              f"in {seconds:.1f} s (before the caps: 4960 MB)")
        left = proctree.tagged(tag)
        print(f"bot processes left: {len(left)}")
        ok = (peak < PEAK_TARGET_MB and resume_peak < PEAK_TARGET_MB and len(lines) == GAMES
              and per_game < JOURNAL_TARGET_BYTES_PER_GAME and not left)
        print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
