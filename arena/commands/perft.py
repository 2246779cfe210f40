"""``arena perft``: count the leaves of a game's move tree, the standard check of move
generators against published figures (docs/rules.md gives the references)."""

from __future__ import annotations

import argparse
import time

from arena.commands._position import add_position_arguments, build_game
from arena.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "perft",
        help="count move-tree leaves DEPTH moves deep (last line: 'perft DEPTH: N')",
    )
    add_position_arguments(parser)
    parser.add_argument("depth", metavar="DEPTH", type=int, help="depth in moves (>= 0)")
    parser.add_argument("--divide", action="store_true", help="list the count per first move")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise UserError(f"perft depth must be 0 or more, got {args.depth}")
    game = build_game(args)
    started = time.perf_counter()
    if args.divide and args.depth > 0:
        nodes = 0
        for move, count in game.divide(args.depth):
            print(f"{move}: {count}", flush=True)
            nodes += count
    else:
        nodes = game.perft(args.depth)
    elapsed = time.perf_counter() - started
    rate = nodes / elapsed if elapsed > 0 else float("inf")
    print(f"time {elapsed:.3f} s, {rate:,.0f} nodes/s")
    print(f"perft {args.depth}: {nodes}")
    return 0
