"""Draughts move-generation speed: our perft from the start to depth 7, and perft(5) against
pydraughts (installed by ``make bench`` only, never a project dependency).

pydraughts has no perft of its own, so its perft is timed the same way ours counts: a
recursive walk of ``legal_moves()``/``push()``/``pop()`` with the count of legal moves at
depth 1. The acceptance bars (docs/rules.md figures, the brief): perft(7) = 1,049,442 in under 20 s,
and perft(5) at least 100 times faster than pydraughts.
"""

from __future__ import annotations

import time
from typing import Any

from referee.games.draughts import Draughts

EXPECTED = [9, 81, 658, 4265, 27117, 167140, 1049442]
PERFT7_BUDGET_S = 20.0
MIN_RATIO = 100.0


def _timed(fn: Any, *args: Any) -> tuple[int, float]:
    started = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - started


def _pydraughts_perft(board: Any, depth: int) -> int:
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += _pydraughts_perft(board, depth - 1)
        board.pop()
    return total


def main() -> None:
    game = Draughts.start()
    ours5 = 0.0
    for depth, expected in enumerate(EXPECTED, start=1):
        # Best of three for the quick depths: the machine is shared and noisy.
        runs = [_timed(game.perft, depth) for _ in range(3 if depth <= 6 else 1)]
        nodes, elapsed = min(runs, key=lambda run: run[1])
        status = "ok" if nodes == expected else f"WRONG (expected {expected})"
        rate = nodes / elapsed if elapsed else float("inf")
        print(f"ours  perft({depth}) = {nodes:>9,}  {elapsed:8.3f} s  {rate:>12,.0f} nodes/s  "
              f"{status}", flush=True)
        if depth == 5:
            ours5 = elapsed
        if depth == 7:
            verdict = "within" if elapsed < PERFT7_BUDGET_S else "OVER"
            print(f"perft(7) {verdict} the {PERFT7_BUDGET_S:.0f} s budget")
    try:
        from draughts import Board  # pydraughts
    except ImportError:
        print("pydraughts is not installed (pip install pydraughts): no comparison")
        return
    nodes, theirs5 = _timed(_pydraughts_perft, Board("standard"), 5)
    print(f"pydraughts perft(5) = {nodes:,}  {theirs5:.3f} s  "
          f"({nodes / theirs5:,.0f} nodes/s; legal_moves/push/pop walk, it has no perft)")
    ratio = theirs5 / ours5 if ours5 else float("inf")
    verdict = "meets" if ratio >= MIN_RATIO else "MISSES"
    print(f"perft(5): ours {ours5:.4f} s vs pydraughts {theirs5:.3f} s = {ratio:,.0f}x faster "
          f"({verdict} the {MIN_RATIO:.0f}x bar)")


if __name__ == "__main__":
    main()
