"""Dvonn and Donkan move-generation speed: perft nodes per second of our optimized counts, next
to a plain walk of the public ``moves()``/``push()``/``pop()`` for the same count.

Dvonn is measured from a fixed movement-phase position (a seeded random placement), since the
placement phase is a falling factorial that perft does not walk; Donkan from the start.
Counts are checked against each other, never against timings (the machine is shared).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from referee.games.base import Game
from referee.games.donkan import Donkan
from referee.games.dvonn import Dvonn


def _walk(game: Game[Any], depth: int) -> int:
    """The generic perft through the public interface (the reference the override must match).
    For Donkan a move that ends the partie is a leaf: push has already reset the board."""
    moves = game.moves()
    if depth == 1:
        return len(moves)
    total = 0

    def parties() -> int:
        return len(game.parties) if isinstance(game, Donkan) else 0

    before = parties()
    for move in moves:
        game.push(move)
        if parties() == before:
            total += _walk(game, depth - 1)
        game.pop()
    return total


def _timed(fn: Callable[[], int], runs: int = 2) -> tuple[int, float]:
    best: tuple[int, float] | None = None
    for _ in range(runs):  # best of a few: the machine is shared and noisy
        started = time.perf_counter()
        nodes = fn()
        elapsed = time.perf_counter() - started
        if best is None or elapsed < best[1]:
            best = (nodes, elapsed)
    assert best is not None
    return best


def _report(label: str, depth: int, nodes: int, elapsed: float, check: int | None) -> None:
    rate = nodes / elapsed if elapsed else float("inf")
    status = "" if check is None else ("ok" if check == nodes else f"MISMATCH (walk {check})")
    print(
        f"{label:<22} perft({depth}) = {nodes:>11,}  {elapsed:8.3f} s  {rate:>12,.0f} nodes/s  "
        f"{status}",
        flush=True,
    )


def dvonn_position() -> Dvonn:
    rng = random.Random(2024)
    game = Dvonn.start()
    while game.placed < 49:
        game.play(rng.choice(game.legal_moves()))
    for _ in range(6):  # a few movements, so stacks of several heights exist
        game.play(rng.choice(game.legal_moves()))
    return Dvonn.from_position(game.position())


def main() -> None:
    dvonn = dvonn_position()
    print(f"dvonn from {dvonn.position()!r}")
    for depth in (1, 2, 3, 4):
        nodes, elapsed = _timed(partial(dvonn.perft, depth), 2 if depth < 4 else 1)
        walk = _walk(dvonn, depth) if depth <= 3 else None
        _report("dvonn perft", depth, nodes, elapsed, walk)
    nodes, elapsed = _timed(lambda: _walk(dvonn, 3))
    _report("dvonn public walk", 3, nodes, elapsed, None)
    late = Dvonn.start()
    rng = random.Random(7)
    while late.placed < 46:
        late.play(rng.choice(late.legal_moves()))
    nodes, elapsed = _timed(lambda: late.perft(5))
    _report("dvonn last placements", 5, nodes, elapsed, _walk(late, 5))

    donkan = Donkan.start(draw_rules=False)
    print(f"donkan from {donkan.position()!r}")
    for depth in (1, 2, 3, 4, 5):
        nodes, elapsed = _timed(partial(donkan.perft, depth), 2 if depth < 5 else 1)
        _report("donkan perft", depth, nodes, elapsed, _walk(donkan, depth) if depth <= 4 else None)
    nodes, elapsed = _timed(lambda: _walk(donkan, 4))
    _report("donkan public walk", 4, nodes, elapsed, None)


if __name__ == "__main__":
    main()
