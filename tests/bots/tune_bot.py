"""A bot with options to tune: plays a random legal move (seeded by its options, so that the
sides differ), and tells its stderr the options it was given at its first move. Declares a
spin option (``Aim``), a string option holding a number (``Temper``), a string option that
does not (``Motto``) and a check option (``Fast``): what ``arena tune`` may and may not move.
Needs the project on ``sys.path``."""

from __future__ import annotations

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from protocol.bot import BotPosition, run_bot  # noqa: E402
from protocol.messages import Go  # noqa: E402

told = False
rng: random.Random | None = None


def choose(position: BotPosition, legal: list[str], go: Go) -> str:
    global told, rng
    if not told:
        told = True
        given = " ".join(f"{k}={v}" for k, v in sorted(position.options.items()))
        print(f"options: {given}", file=sys.stderr, flush=True)
        rng = random.Random(given)
    assert rng is not None
    return rng.choice(legal)


sys.exit(run_bot(choose, name="tune_bot", options=[
    "option name Aim type spin default 0 min -100 max 100",
    "option name Temper type string default 0.5",
    "option name Motto type string default carpe",
    "option name Fast type check default true",
]))
