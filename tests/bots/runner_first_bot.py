"""Test bot for the runner: always plays the first move of the ``legal`` line, after ``--delay``.

Deterministic and rules-free; the delay makes games last long enough to overlap (concurrency
test) or to be killed half-way (kill test).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from protocol.bot import BotPosition, run_bot  # noqa: E402
from protocol.messages import Go  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--last", action="store_true", help="play the last legal move instead")
    parser.add_argument("--tag", help="unused: a word by which a test tells this process "
                        "from the other tests' (in its command line)")
    args = parser.parse_args()

    def choose(position: BotPosition, legal: list[str], go: Go) -> str:
        if args.delay:
            time.sleep(args.delay)
        if not legal:
            return "(none)"
        return legal[-1] if args.last else legal[0]

    return run_bot(choose, name="runner-first")


if __name__ == "__main__":
    sys.exit(main())
