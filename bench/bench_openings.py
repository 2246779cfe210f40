"""Balance of the shipped opening books against random openings of the same length, per game.

Why a benchmark: whether a book is balanced shows only in games, and games take minutes. The
same bot plays both sides (the sample alpha-beta at a fixed depth, its two copies differing
only in ``Seed``, the order it breaks ties in, so that the two games of a colour pair can
differ), every opening with both colours, once from the book's openings
(``examples/openings/<game>.*``) and once from as many random openings of the same number of
plies (``[openings] random_plies``, what a tournament without a book plays). Both are
ordinary ``arena run`` tournaments under ``runs/bench-openings/`` (resumable: run again to
finish). Printed per game and per kind of opening:

* the first mover's score (p1: who moves first from the game's start) over all the games,
  with a 95% interval from resampling the openings (the games of one opening are not
  independent): a balanced book gives 50%;
* the spread between openings around balance: the root mean square of each opening's
  first-mover score minus 50%, with its interval from the same resampling. Around 50%, not
  around the mean: a set of openings that the first mover all wins has no spread around its
  own mean and is as unfair as can be; this is how far from even a typical opening plays
  (two games of an opening are already 0.25 from even by chance when one is won and one
  drawn, so even a perfect book does not reach 0).

Target (issue 39): for every game, the book's first-mover score is closer to 50% than the
random openings' and its spread is smaller. Donkan is played with ``target = 1`` (one partie
decides the round): the opening shapes only the first partie of a longer round.

``python -m bench openings`` (all five games) or ``python -m bench.bench_openings GAME...``
(``python -m bench`` takes its arguments as benchmark names); ``BENCH_OPENINGS=N`` openings
of each kind per game (default 60, at most the book's), ``BENCH_QUICK=1`` 12 as a smoke
test; ``--summary`` only reads runs already played.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from arena.openings.book import read_book
from arena.openings.scoring import FirstMover, OpeningKeys, Tally
from arena.openings.shipped import BOOKS, FOLDER
from arena.rundir.journal import iter_records
from arena.rundir.layout import RunDir

ROOT: Final = Path(__file__).resolve().parent.parent
DEPTH: Final = {"draughts": 2, "jungle": 2, "dobutsu": 3, "dvonn": 2, "donkan": 2}
"""The bots' search depth: shallow, so that a game takes a second or two."""
GAME_OPTIONS: Final = {"donkan": {"target": "1"}}
MAX_PLIES: Final = 300
RESAMPLES: Final = 2000


@dataclass(frozen=True)
class Balance:
    """What one kind of opening gave in one game."""

    openings: int
    games: int
    score: float
    score_low: float
    score_high: float
    spread: float
    spread_low: float
    spread_high: float

    def text(self) -> str:
        return (f"first mover {100 * self.score:5.1f}% [{100 * self.score_low:.1f}-"
                f"{100 * self.score_high:.1f}]  spread {self.spread:.3f} [{self.spread_low:.3f}-"
                f"{self.spread_high:.3f}]  ({self.openings} openings, {self.games} games)")


def balance(results: list[FirstMover], seed: int = 1) -> Balance:
    """The first mover's score over all games and the spread of the openings around 50%,
    each with a 95% interval from resampling the openings."""
    games = np.array([r.games for r in results], dtype=float)
    points = np.array([r.points for r in results], dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(results), size=(RESAMPLES, len(results)))
    scores = points[picks].sum(axis=1) / games[picks].sum(axis=1)
    spreads = np.sqrt(((points[picks] / games[picks] - 0.5) ** 2).mean(axis=1))
    low, high = np.percentile(scores, [2.5, 97.5])
    spread_low, spread_high = np.percentile(spreads, [2.5, 97.5])
    return Balance(len(results), int(games.sum()), float(points.sum() / games.sum()),
                   float(low), float(high),
                   float(np.sqrt(((points / games - 0.5) ** 2).mean())), float(spread_low),
                   float(spread_high))


def book_path(game: str) -> Path:
    return FOLDER / BOOKS[game]


def run_dir(game: str, kind: str, count: int) -> Path:
    """One tournament's folder, by its number of openings: a run is resumed only with the
    config it began with, so another ``BENCH_OPENINGS`` is another run."""
    return ROOT / "runs" / "bench-openings" / f"{game}-{kind}-{count}"


def book_size(game: str) -> int:
    """How many openings the book holds: no more are played from it (nor at random)."""
    return len(read_book(book_path(game), game, GAME_OPTIONS.get(game, {})))


def book_plies(game: str) -> int:
    """The plies of the book's openings, from the command in its header (an EPD book keeps
    positions, not moves); checked against its first opening's moves where it has them."""
    path = book_path(game)
    with path.open(encoding="utf-8") as fh:
        head = "".join(fh.readline() for _ in range(4))
    found = re.search(r"--plies (\d+)", head)
    if found is None:
        raise SystemExit(f"{path}: no 'arena openings make ... --plies N' in its header")
    plies = int(found[1])
    first = read_book(path, game, GAME_OPTIONS.get(game, {}))[0]
    if first.moves and len(first.moves) != plies:
        raise SystemExit(f"{path}: its header says --plies {plies}, its first opening has "
                         f"{len(first.moves)}")
    return plies


def config_text(game: str, kind: str, count: int) -> str:
    """An ``arena run`` config: alphabeta Seed 1 against Seed 2, ``count`` openings each with
    both colours, from the book (``kind`` ``book``) or random plies (``random``)."""
    if kind == "book":
        openings = f'file = "{book_path(game)}"\n'
    else:
        openings = f"random_plies = {book_plies(game)}\n"
    options = "".join(f'{k} = "{v}"\n' for k, v in GAME_OPTIONS.get(game, {}).items())
    bots = "".join(
        f'[[bots]]\nname = "alphabeta-s{seed}"\n'
        f'cmd = ["{{python}}", "{ROOT / "sample_bots" / "alphabeta.py"}"]\n'
        f"options = {{ Seed = {seed} }}\n\n" for seed in (1, 2))
    return (f'game = "{game}"\nevent = "openings balance: {game} {kind}"\n'
            f'format = "round-robin"\ngames_per_pairing = {2 * count}\n'
            f'tc = "depth={DEPTH[game]}"\nconcurrency = 2\nseed = 11\n\n'
            f"[openings]\n{openings}\n[adjudication]\nmax_plies = {MAX_PLIES}\n"
            f"draw_rules = true\n\n" + (f"[game_options]\n{options}\n" if options else "")
            + bots)


def play(game: str, kind: str, count: int) -> int:
    """Play (or finish) one tournament with ``arena run``."""
    out = run_dir(game, kind, count)
    out.mkdir(parents=True, exist_ok=True)
    config = out.parent / f"{game}-{kind}-{count}.toml"
    config.write_text(config_text(game, kind, count), encoding="utf-8")
    cmd = [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out),
           "--plain", "--no-report"]
    return subprocess.run(cmd, cwd=ROOT, check=False, stdout=subprocess.DEVNULL).returncode


def measured(game: str, kind: str, count: int) -> Balance | None:
    journal = RunDir(run_dir(game, kind, count)).journal
    if not journal.is_file():
        return None
    keys = OpeningKeys(game, GAME_OPTIONS.get(game, {}))
    tally = Tally()
    for record in iter_records(journal):
        tally.add(record, game, keys)
    results = [r for r in tally.by_key.values() if r.games]
    return balance(results) if results else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help=f"some of {', '.join(BOOKS)}")
    parser.add_argument("--summary", action="store_true", help="only summarise played runs")
    args = parser.parse_args([] if argv is None and __name__ != "__main__" else argv)
    games = args.games or list(BOOKS)
    unknown = [g for g in games if g not in BOOKS]
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; known: {', '.join(BOOKS)}")
    wanted = 12 if os.environ.get("BENCH_QUICK") else int(os.environ.get("BENCH_OPENINGS", "60"))
    counts = {game: min(wanted, book_size(game)) for game in games}
    for game in games:
        for kind in ("book", "random"):
            if not args.summary:
                print(f"-- {game} {kind}: {counts[game]} openings x 2 colours", flush=True)
                if (status := play(game, kind, counts[game])) != 0:
                    raise SystemExit(f"arena run of {game} {kind} failed (exit {status}); see "
                                     f"{run_dir(game, kind, counts[game])}")
    print("first mover's score (p1) and the openings' spread around 50% (RMS), 95% intervals:")
    for game in games:
        book, rand = (measured(game, kind, counts[game]) for kind in ("book", "random"))
        print(f"  {game:9} book   {book.text() if book else 'not played'}")
        print(f"  {'':9} random {rand.text() if rand else 'not played'}")
        if book and rand:
            closer = abs(book.score - 0.5) < abs(rand.score - 0.5)
            smaller = book.spread < rand.spread
            print(f"  {'':9} book closer to 50%: {'yes' if closer else 'NO'}; spread smaller: "
                  f"{'yes' if smaller else 'NO'}")

if __name__ == "__main__":
    main(sys.argv[1:])
