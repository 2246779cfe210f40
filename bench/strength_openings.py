"""Balanced openings for the strength runs: random plies, kept only when a search finds no win.

Why: in Dobutsu a few random plies often hang a lion, so a "random opening" decides the game
before the bots play (the first strength run lost 35 games that way, all on move one). This
writes an openings file (``moves m1 m2 ...`` lines, read by ``[openings] file = ...``) whose
positions the alpha-beta search scores within ``--margin`` centipawns at ``--depth``.

``python -m bench.strength_openings dobutsu --plies 4 --count 100 > examples/openings/...``

Kept to reproduce ``examples/openings/dobutsu-balanced.txt``, which the strength configs and
the cutechess benchmark use (their measured figures were made with it). New books are made by
``arena openings make`` (:mod:`arena.openings.maker`), which does this for every game and
any engine, through the protocol.
"""

from __future__ import annotations

import argparse
import random
import sys

from referee.games import get_game
from sample_bots.evaluation import get_evaluator
from sample_bots.search import Limits, Searcher, TranspositionTable


def balanced(game: str, plies: int, count: int, depth: int, margin: int, seed: int) -> list[str]:
    rules = get_game(game)
    evaluator = get_evaluator(game)
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    tries = 0
    while len(out) < count and tries < count * 200:
        tries += 1
        board = rules.start()
        moves: list[str] = []
        for _ in range(plies):
            legal = board.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            board.play(move)
            moves.append(move)
        if len(moves) < plies or board.is_over() or " ".join(moves) in seen:
            continue
        searcher = Searcher(board, evaluator, TranspositionTable(4))
        _, report = searcher.iterate(Limits(depth=depth))
        if report is None or abs(report.score) > margin:
            continue
        seen.add(" ".join(moves))
        out.append(f"moves {' '.join(moves)}  # depth {depth} score {report.score}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--plies", type=int, default=4)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--margin", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    lines = balanced(args.game, args.plies, args.count, args.depth, args.margin, args.seed)
    print(f"# {len(lines)} balanced {args.game} openings: {args.plies} random plies, "
          f"|score| <= {args.margin} at depth {args.depth} (bench/strength_openings.py)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
