"""Results split by the cluster worker that played each game (``arena run --cluster``).

Time controls are only fair if every worker gives the bots the same speed: a slow or busy
machine shows here as a longer mean move time and, for bots that use their clock, weaker
scores. A local run's records name no worker, and then there is no table. The table is made
from the report's own summary of the journal (:mod:`reports.journal_summary`): no second reading.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

import pandas as pd

from reports.journal_summary import JournalSummary

LOCAL: Final = "(this machine)"
"""The row of games without a worker (a run resumed locally after a cluster run)."""


def worker_table(journal: JournalSummary) -> pd.DataFrame | None:
    """Per worker: games, mean time per bot move (ms), and each bot's score there as
    ``points/games``; None when no game of the journal names a worker."""
    if all(game.worker is None for game in journal.games):
        return None  # a local run
    games: dict[str, int] = defaultdict(int)
    move_ms: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    scores: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    bots: dict[str, None] = {}
    for game in journal.games:
        if game.result not in ("1-0", "0-1", "1/2-1/2"):
            continue
        where = game.worker or LOCAL
        games[where] += 1
        move_ms[where][0] += game.move_ms
        move_ms[where][1] += game.bot_moves
        for side, bot in enumerate((game.p1, game.p2)):
            bots.setdefault(bot)
            points = 0.5 if game.winner is None else float(game.winner == side)
            scores[(where, bot)][0] += points
            scores[(where, bot)][1] += 1
    rows = []
    for where in sorted(games):
        total, count = move_ms[where]
        row: dict[str, object] = {
            "worker": where,
            "games": games[where],
            "mean move ms": round(total / count, 2) if count else None,
        }
        for bot in bots:
            points, played = scores.get((where, bot), (0.0, 0.0))
            row[bot] = f"{points:g}/{played:g}" if played else ""
        rows.append(row)
    return pd.DataFrame(rows).set_index("worker")
