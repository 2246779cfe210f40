"""Tournament throughput of ``arena run``: games per minute with instant random bots, at
concurrency 1 and 2, through the real CLI (process start, handshake, journal fsync, PGN).

Dobutsu games between random bots last a few dozen plies, so this measures the runner's
per-game overhead (two process starts per game) more than any rules speed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.rundir.journal import iter_records
from arena.rundir.layout import RunDir

ROOT = Path(__file__).resolve().parent.parent
GAMES_PER_PAIRING = 20  # 3 bots -> 3 pairings -> 60 games


def _config(directory: Path, concurrency: int) -> Path:
    bot = ROOT / "sample_bots" / "random_bot.py"
    text = (
        f'game = "dobutsu"\ntc = "10+0.1"\nconcurrency = {concurrency}\n'
        f"games_per_pairing = {GAMES_PER_PAIRING}\n[adjudication]\nmax_plies = 200\n"
    )
    for i in range(3):
        text += f'[[bots]]\nname = "r{i}"\ncmd = ["{{python}}", "{bot}", "--seed", "{i}"]\n'
    path = directory / f"bench-{concurrency}.toml"
    path.write_text(text)
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for concurrency in (1, 2):
            config = _config(directory, concurrency)
            out = directory / f"out-{concurrency}"
            argv = [sys.executable, "-m", "arena.cli", "run", str(config), "-o", str(out)]
            started = time.perf_counter()
            done = subprocess.run(
                [*argv, "--plain", "--no-report"], capture_output=True, text=True, cwd=ROOT
            )
            elapsed = time.perf_counter() - started
            if done.returncode != 0:
                print(done.stdout[-2000:], done.stderr[-2000:])
                raise SystemExit(f"arena run failed with status {done.returncode}")
            games = sum(1 for _ in iter_records(RunDir(out).journal))
            print(
                f"concurrency {concurrency}: {games} games in {elapsed:.1f} s "
                f"({60 * games / elapsed:.0f} games/min, CLI start included)"
            )


if __name__ == "__main__":
    main()
