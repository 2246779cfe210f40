"""Test bot for the runner: completes the handshake, then never answers ``go`` (hangs).

Its games must end as time forfeits for it, without holding up the rest of the tournament.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from protocol.bot import BotPosition, run_bot  # noqa: E402
from protocol.messages import Go  # noqa: E402


def choose(position: BotPosition, legal: list[str], go: Go) -> str:
    time.sleep(3600)
    return legal[0]


if __name__ == "__main__":
    sys.exit(run_bot(choose, name="runner-hang"))
