"""How many referee processes play a local run's games (``--referees N``, issue 40).

One Python process refereeing every game is a ceiling on a many-core machine: its one core
runs every game's rules, lines and clocks, and when it is busy every bot's clock waits for
it. With N > 1 the games are spread, whole, over N referee processes, each with its own bots
(:mod:`arena.run.refpool`), fed in batches by the same code as a cluster run
(:mod:`arena.cluster.batching`), every game journaled by the one runner as before (resume,
SPRT, live files, progress), a game of a referee process that dies played again elsewhere. A
referee process plays its share of the games at once, in one trio loop.

The default is one referee process per :data:`GAMES_PER_REFEREE` games at once, at most one
per two cores (the bots need the others): 1 on a 2-core machine, 8 for 64 games at once on 64
cores. Measured on a loaded 2-core machine (``python -m bench refpool``, bench/README.md):
Fairy-Stockfish at ``nodes=1`` spends about 2.4 times the runner's CPU per game, so the
engines want the second core and a second referee process only adds its own cost (0.91x);
bots that cost next to nothing (the C sample bot) leave the runner as what the games wait
for, and there two processes play more games than one (1.3x to 1.8x).
"""

from __future__ import annotations

import math
import os
from typing import Final

import msgspec

from arena.errors import UserError

GAMES_PER_REFEREE: Final = 8
"""Games at once that make another referee process worth its start (by default)."""


class Referees(msgspec.Struct, frozen=True):
    """The referee processes of a run: how many, and how many games each plays at once."""

    count: int
    games_each: int


def referees_for(asked: int | None, concurrency: int, cores: int | None = None) -> Referees:
    """The referee processes for ``concurrency`` games at once: ``asked`` (``--referees``),
    else one per :data:`GAMES_PER_REFEREE` games, at most one per two cores; never more than
    the games. A number below 1 is a :class:`UserError`."""
    if asked is not None and asked < 1:
        raise UserError(f"--referees {asked}: expected a positive number of processes")
    cores = cores or os.cpu_count() or 1
    count = (asked if asked is not None
             else min(cores // 2, concurrency // GAMES_PER_REFEREE))
    count = max(1, min(count, concurrency))
    return Referees(count, math.ceil(concurrency / count))
