"""Plays the first legal move, and tells its stderr the options it was given (once, at its
first move) and, with ``--noisy N``, N more lines of sanity warnings: the bot of the tests of
engine options and of ``check-bot``'s stderr on PASS. Needs the project on ``sys.path``."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from protocol.bot import BotPosition, run_bot  # noqa: E402
from protocol.messages import Go  # noqa: E402

NOISY = int(sys.argv[sys.argv.index("--noisy") + 1]) if "--noisy" in sys.argv else 0
told = False


def choose(position: BotPosition, legal: list[str], go: Go) -> str:
    global told
    if not told:
        told = True
        given = " ".join(f"{k}={v}" for k, v in sorted(position.options.items()))
        print(f"options: {given}", file=sys.stderr, flush=True)
        for i in range(NOISY):
            print(f"sanity warning {i}: evaluation table not tuned", file=sys.stderr, flush=True)
    return legal[0]


sys.exit(run_bot(choose, name="options_bot",
                 options=["option name Depth type spin default 6 min 1 max 99"]))
