"""The first games' bots, launched before the runner imports trio.

``arena run`` needs a fifth of a second to import trio and the referee here, and an engine
as long again to load its tables (Fairy-Stockfish: 0.15 s before it reads a line). Launched
first, a bot loads while the runner does, and the first ``go`` goes out that much sooner. The
processes are launched exactly as the pool would launch them (:func:`referee.process.spawn.launch`:
same containment and limits) and handed to the :class:`arena.bots.pool.BotPool`, which ends the
ones no game took. This module imports nothing that imports trio.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.formats.schedule import ScheduledGame
from referee.botspec import BotSpec
from referee.process.spawn import Launched, launch


def first_bots(pending: Sequence[ScheduledGame], concurrency: int,
               bots: Mapping[str, BotSpec]) -> list[BotSpec]:
    """The bots the first ``concurrency`` games start with, one entry per process needed."""
    return [bots[name] for game in pending[:max(1, concurrency)] for name in (game.p1, game.p2)]


def prestart(specs: Sequence[BotSpec], *, capture_stderr: bool
             ) -> list[tuple[BotSpec, Launched]]:
    """Launch one process per spec now; best effort: a bot that cannot be launched is left
    out, and the pool's own start reports why when its game comes (with the retries and the
    scoring that a start always has)."""
    started = []
    for spec in specs:
        try:
            started.append((spec, launch(spec, capture_stderr=capture_stderr)))
        except Exception:  # reported by the game's own start, see above
            continue
    return started


def discard(prestarted: list[tuple[BotSpec, Launched]]) -> None:
    """End the launched processes still in ``prestarted`` (the pool removes those it takes)."""
    while prestarted:
        prestarted.pop()[1].discard()
