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

The run's thinking slots (:mod:`referee.thinkslots`: at most K bots think on a clock at once)
are split here too: K is ``--think-slots`` / ``think_slots``, else the cores this process may
run on (:func:`cores`), and each of N referee processes gets ``K // N`` of them, at least 1
(rounded down, so that N processes never let more than K bots think, unless N > K). A process
whose games at once cannot fill its share needs no gate (a game has one bot thinking at a time).
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
    thinking: int = 0
    """Bots each process lets think on a clock at once (its share of the run's think slots);
    0: no gate (none asked, or no more games each than the share)."""


def referees_for(asked: int | None, concurrency: int, cores: int | None = None,
                 think_slots: int = 0) -> Referees:
    """The referee processes for ``concurrency`` games at once: ``asked`` (``--referees``),
    else one per :data:`GAMES_PER_REFEREE` games, at most one per two cores; never more than
    the games. A number below 1 is a :class:`UserError`. ``think_slots`` (K, from
    :func:`think_slots_for`; 0: no limit) is shared out: ``K // count`` each, at least 1."""
    if asked is not None and asked < 1:
        raise UserError(f"--referees {asked}: expected a positive number of processes")
    cores = cores or os.cpu_count() or 1
    count = (asked if asked is not None
             else min(cores // 2, concurrency // GAMES_PER_REFEREE))
    count = max(1, min(count, concurrency))
    each = math.ceil(concurrency / count)
    share = max(1, think_slots // count) if think_slots > 0 else 0
    return Referees(count, each, share if share < each else 0)


def cores() -> int:
    """The cores this process may run on: its affinity (a container's or ``taskset``'s
    limit), not the machine's count."""
    return len(os.sched_getaffinity(0))


def think_slots_for(asked: int | None, timed: bool = True) -> int:
    """The run's thinking slots K: ``asked`` (``--think-slots``, else the config's
    ``think_slots``; 0: no limit), else :func:`cores`; 0 when no bot plays on a clock
    (``timed`` False: nothing to gate). A negative number is a :class:`UserError`."""
    if asked is not None and asked < 0:
        raise UserError(f"think slots {asked}: expected 0 (no limit) or a positive number of "
                        "bots thinking at once")
    if not timed:
        return 0
    return cores() if asked is None else asked


def thinking_text(concurrency: int, referees: Referees) -> str:
    """The line said before the games when the slots gate them (``referees.thinking`` > 0)."""
    total = referees.thinking * referees.count
    bots = "1 bot" if total == 1 else f"{total} bots"
    each = (f", {referees.thinking} per referee process" if referees.count > 1 else "")
    return (f"arena: {concurrency} games at once, at most {bots} thinking at a time{each} "
            "(think slots: a game waits for one with its clocks stopped; --think-slots N, "
            "0 for no limit)")
