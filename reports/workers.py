"""Results split by the cluster worker that played each game (``arena run --cluster``).

Time controls are only fair if every worker gives the bots the same speed: a slow or busy
machine shows here as a longer mean move time and, for bots that use their clock, weaker
scores. A local run's records name no worker, and then there is no table.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Final

import msgspec
import pandas as pd

WORKER_KEY: Final = b'"worker":'
LOCAL: Final = "(this machine)"
"""The row of games without a worker (a run resumed locally after a cluster run)."""


class _Move(msgspec.Struct):
    elapsed_ms: float = 0.0
    book: bool = False


class _Game(msgspec.Struct):
    p1: str
    p2: str
    result: str
    winner: int | None = None
    moves: list[_Move] = []
    worker: str | None = None


_decoder = msgspec.json.Decoder(_Game)


def worker_table(journal: Path) -> pd.DataFrame | None:
    """Per worker: games, mean time per bot move (ms), and each bot's score there as
    ``points/games``; None when no game of the journal names a worker."""
    if not journal.exists():
        return None
    games: dict[str, int] = defaultdict(int)
    move_ms: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    scores: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    bots: dict[str, None] = {}
    with journal.open("rb") as handle:
        if not any(WORKER_KEY in line for line in handle):
            return None  # a local run: no line to decode
        handle.seek(0)
        for line in handle:
            if not line.strip():
                continue
            try:
                game = _decoder.decode(line)
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue  # a torn last line: the report's own reader names bad lines
            if game.result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            where = game.worker or LOCAL
            games[where] += 1
            own = [m.elapsed_ms for m in game.moves if not m.book]
            move_ms[where][0] += sum(own)
            move_ms[where][1] += len(own)
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
