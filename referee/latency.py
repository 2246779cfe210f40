"""Latency per move as the referee sees it, summed up per game (issue 40).

Three delays that a bot's clock or a game's pace suffer and that neither the bot nor the
move times show (fastchess's ``-show-latency`` is the model):

- ``turnaround``: the referee's own time from reading one bot's move to the end of writing
  the next ``go`` to the other (rules, the move list, the position line, the write). A busy
  referee process shows here first;
- ``first_line``: from the end of that write to the first line the bot sends back, as read
  by the referee (the pipe, the scheduler and the bot's own start of search);
- ``unreported``: the move's elapsed time (on the bot's clock) less the ``info time`` the bot
  reported last, for bots that report one: what the bot's own count does not see;
- ``slot_wait``: the time the game waited for a thinking slot before that ``go``
  (:mod:`referee.thinkslots`; only where the slots gate the move). Neither the referee's work
  nor the bot's, and on no clock: kept apart, and left out of ``turnaround``, so that a long
  queue shows as a queue;
- ``cpu_wait``: the part of a clocked move's time the bot's threads waited for a CPU,
  credited back to its clock (:mod:`referee.process.schedstat`; only where it was measured:
  each move's own figure is the journal's ``waited_ms``).

A game keeps, per side, the median, the 99th percentile and the maximum of each (not every
move's figure: a journal line stays small), in :attr:`referee.record.GameRecord.latency`.
Old journals have none; every field is optional.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec


class Spread(msgspec.Struct, omit_defaults=True):
    """One delay over a game's moves, in milliseconds."""

    n: int
    """Moves measured."""
    p50_ms: float
    p99_ms: float
    """The 99th percentile (nearest rank: with fewer than 100 moves, the largest but one or
    the largest)."""
    max_ms: float


class SideLatency(msgspec.Struct, omit_defaults=True):
    """One side's delays in one game (each None when no move measured it)."""

    turnaround: Spread | None = None
    first_line: Spread | None = None
    unreported: Spread | None = None
    slot_wait: Spread | None = None
    cpu_wait: Spread | None = None


class GameLatency(msgspec.Struct, omit_defaults=True):
    """A game's delays: one :class:`SideLatency` per side (p1, p2). The referee process that
    played it is the record's ``worker`` (None: the runner's own process)."""

    sides: list[SideLatency] = []


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted ``ordered`` (not empty)."""
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def spread(values: Sequence[float]) -> Spread | None:
    """The median, 99th percentile and maximum of ``values`` (ms), rounded to microseconds;
    None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return Spread(n=len(ordered), p50_ms=round(percentile(ordered, 0.5), 3),
                  p99_ms=round(percentile(ordered, 0.99), 3), max_ms=round(ordered[-1], 3))


class LatencyLog:
    """The delays of one game's moves as they happen; :meth:`summary` at its end."""

    def __init__(self) -> None:
        self._turnaround: tuple[list[float], list[float]] = ([], [])
        self._first_line: tuple[list[float], list[float]] = ([], [])
        self._unreported: tuple[list[float], list[float]] = ([], [])
        self._slot_wait: tuple[list[float], list[float]] = ([], [])
        self._cpu_wait: tuple[list[float], list[float]] = ([], [])

    def move(self, side: int, *, turnaround_s: float | None, first_line_s: float | None,
             elapsed_ms: float, reported_ms: int | None, slot_wait_s: float | None = None,
             cpu_wait_ms: float | None = None) -> None:
        """One move of ``side``: the referee's time before its ``go`` (None for a game's first
        searched move; the slot wait not in it), the time to its first line, its elapsed time,
        the ``info time`` it reported (None without one), the time it waited for a
        thinking slot (None when no slot gated it) and the time its threads waited for a CPU,
        credited (None when not measured)."""
        if slot_wait_s is not None:
            self._slot_wait[side].append(slot_wait_s * 1000)
        if cpu_wait_ms is not None:
            self._cpu_wait[side].append(cpu_wait_ms)
        if turnaround_s is not None:
            self._turnaround[side].append(turnaround_s * 1000)
        if first_line_s is not None:
            self._first_line[side].append(first_line_s * 1000)
        if reported_ms is not None:
            self._unreported[side].append(elapsed_ms - reported_ms)

    def summary(self) -> GameLatency | None:
        """Per side, the spreads; None when no move was measured (a game of book moves)."""
        sides = [SideLatency(turnaround=spread(self._turnaround[side]),
                             first_line=spread(self._first_line[side]),
                             unreported=spread(self._unreported[side]),
                             slot_wait=spread(self._slot_wait[side]),
                             cpu_wait=spread(self._cpu_wait[side])) for side in (0, 1)]
        if all(side == SideLatency() for side in sides):
            return None
        return GameLatency(sides=sides)
