"""Strength of the sample bots, shown by games: alphabeta against random and greedy, per game.

Why a benchmark and not a test: 100 games per pairing and game take minutes on 2 cores, and
the result is a measurement, not a yes/no. Each game's tournament is an ordinary config,
``examples/strength-<game>.toml``, played with ``arena run`` (resumable: run again to finish);
this module runs them and prints alphabeta's score, W/D/L and how the games ended.

``python -m bench.bench_strength [GAME...] [--summary]``: ``--summary`` only reads runs already
played (``runs/strength-<game>/games.jsonl``). ``python -m bench strength`` runs all five.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
from pathlib import Path

from arena.rundir.journal import iter_records
from arena.rundir.layout import RunDir

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("draughts", "jungle", "dobutsu", "dvonn", "donkan")
HERO = "alphabeta"
BARS = {"random": 90.0, "greedy": 60.0}
"""The score alphabeta must reach against each opponent (percent)."""


def config_path(game: str) -> Path:
    return ROOT / "examples" / f"strength-{game}.toml"


def run_dir(game: str) -> Path:
    return ROOT / "runs" / f"strength-{game}"


def play(game: str) -> int:
    """Play (or finish) one game's strength tournament with ``arena run``."""
    cmd = [sys.executable, "-m", "arena.cli", "run", str(config_path(game)),
           "--output", str(run_dir(game))]
    return subprocess.run(cmd, cwd=ROOT, check=False).returncode


def summarise(game: str) -> list[str]:
    """One line per opponent: score %, W/D/L, and the terminations of alphabeta's losses."""
    journal = RunDir(run_dir(game)).journal
    if not journal.is_file():
        return [f"{game:9} no games in {journal}"]
    wdl: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    ends: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for record in iter_records(journal):
        if HERO not in (record.p1, record.p2) or record.result == "*":
            continue
        side = 0 if record.p1 == HERO else 1
        other = record.p2 if side == 0 else record.p1
        if record.winner is None:
            wdl[other][1] += 1
        elif record.winner == side:
            wdl[other][0] += 1
        else:
            wdl[other][2] += 1
            ends[other][str(record.termination)] += 1
    lines = []
    for other, (w, d, lost) in sorted(wdl.items()):
        n = w + d + lost
        pct = 100.0 * (w + d / 2) / n if n else 0.0
        bar = BARS.get(other)
        verdict = "" if bar is None else ("  ok" if pct >= bar else f"  BELOW {bar:.0f} %")
        losses = ", ".join(f"{k} {v}" for k, v in ends[other].most_common()) or "-"
        lines.append(f"{game:9} vs {other:8} {pct:5.1f} %  +{w} ={d} -{lost}  ({n} games; "
                     f"losses: {losses}){verdict}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help=f"some of {', '.join(GAMES)}")
    parser.add_argument("--summary", action="store_true", help="only summarise played runs")
    args = parser.parse_args([] if argv is None and __name__ != "__main__" else argv)
    games = args.games or list(GAMES)
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; known: {', '.join(GAMES)}")
    if not args.summary:
        for game in games:
            print(f"-- {game}: arena run {config_path(game).relative_to(ROOT)}", flush=True)
            play(game)
    print("alphabeta's score (win = 1, draw = 1/2):")
    for game in games:
        for line in summarise(game):
            print("  " + line)


if __name__ == "__main__":
    main(sys.argv[1:])
