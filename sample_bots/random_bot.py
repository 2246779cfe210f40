"""A random bot for every game: it plays a uniformly random move from the referee's ``legal`` line.

It knows no rules at all, which makes it the reference for the protocol: if it can play a game,
any bot can. ``--seed N`` makes it repeatable; ``--delay S`` makes it think (sleep) S seconds.
Run as ``python sample_bots/random_bot.py [--seed N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from protocol.bot import BotPosition, run_bot
    from protocol.messages import Go
except ModuleNotFoundError as exc:  # e.g. a system Python without msgspec
    sys.exit(f"random_bot: cannot import {exc.name!r}; run me with the arena's Python "
             "(.venv/bin/python sample_bots/random_bot.py)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to 'think' per move")
    parser.add_argument("--name", default="random", help="name sent in 'id name'")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    def choose(position: BotPosition, legal: list[str], go: Go) -> str:
        if args.delay:
            time.sleep(args.delay)
        if not legal:
            print("random_bot: no legal line received; cannot move", file=sys.stderr)
            return "(none)"
        return rng.choice(legal)

    return run_bot(choose, name=args.name, author="arena sample bots")


if __name__ == "__main__":
    sys.exit(main())
