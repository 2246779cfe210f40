"""Test bot for the runner: completes the handshake, then dies on its first ``go`` (exit 3).

Every game it plays must end as a crash loss for it, and the tournament must go on.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from protocol.bot import BotPosition, run_bot  # noqa: E402
from protocol.messages import Go  # noqa: E402


def choose(position: BotPosition, legal: list[str], go: Go) -> str:
    print("runner_crash_bot: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    sys.exit(run_bot(choose, name="runner-crash"))
