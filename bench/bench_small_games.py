"""Jungle and Dobutsu move-generation speed: perft nodes per second from the start positions.

Each game's perft (leaves counted from the move list at depth 1) is timed next to a
full walk that also plays the leaf moves (push/pop on every node), which is what a search pays.
Dobutsu counts are checked against the Fairy-Stockfish figures of docs/rules.md; jungle has
no published reference for our rule set, so its counts are only checked between the two walks.

When pyffish (Fairy-Stockfish's Python binding; ``make bench`` installs it, it is never a project
dependency) is importable, Dobutsu is also cross-checked against it: perft(5) walked with its
``legal_moves``, then random games comparing legal move lists, FEN and the end of each game.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from referee.games.base import Game
from referee.games.dobutsu import Dobutsu
from referee.games.jungle import Jungle

DOBUTSU_EXPECTED = {5: 8122, 6: 71677}


def _walk(game: Game, depth: int) -> int:  # type: ignore[type-arg]
    """Perft that pushes and pops every move, leaf moves included."""
    if depth == 0:
        return 1
    total = 0
    for move in game.moves():
        game.push(move)
        total += _walk(game, depth - 1)
        game.pop()
    return total


def _timed(fn: Callable[[], int]) -> tuple[int, float]:
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def _report(name: str, game: Game, depth: int, expected: int | None) -> None:  # type: ignore[type-arg]
    nodes, seconds = _timed(lambda: game.perft(depth))
    if expected is not None and nodes != expected:
        raise SystemExit(f"{name} perft({depth}) = {nodes}, expected {expected}")
    print(f"{name:8} perft({depth}) = {nodes:>10,}  {seconds:6.2f} s  "
          f"{nodes / seconds:>12,.0f} leaves/s (bulk count)", flush=True)
    walked, seconds = _timed(lambda: _walk(game, depth - 1))
    print(f"{name:8} walk({depth - 1})  = {walked:>10,}  {seconds:6.2f} s  "
          f"{walked / seconds:>12,.0f} leaves/s (every move pushed)", flush=True)


def _fsf_perft(sf: Any, fen: str, moves: list[str], depth: int) -> int:
    legal = sf.legal_moves("dobutsu", fen, moves)
    if depth == 1:
        return len(legal)
    return sum(_fsf_perft(sf, fen, [*moves, m], depth - 1) for m in legal)


def _fsf_cross_check(games: int = 200, seed: int = 1) -> None:
    try:
        import pyffish as sf  # type: ignore[import-not-found]
    except ImportError:
        print("pyffish not installed: Fairy-Stockfish cross-check skipped", flush=True)
        return
    fen = Dobutsu.START_POSITION
    nodes, seconds = _timed(lambda: _fsf_perft(sf, fen, [], 5))
    if nodes != Dobutsu.start().perft(5):
        raise SystemExit(f"Fairy-Stockfish perft(5) = {nodes}, ours {Dobutsu.start().perft(5)}")
    print(f"pyffish  perft(5) = {nodes:>10,}  {seconds:6.2f} s  (same as ours)", flush=True)
    rng = random.Random(seed)
    ends: dict[str, int] = {}
    for _ in range(games):
        game = Dobutsu.start()
        moves: list[str] = []
        while True:
            ours = sorted(game.legal_moves())
            theirs = sorted(sf.legal_moves("dobutsu", fen, moves))
            if ours != theirs or game.position() != sf.get_fen("dobutsu", fen, moves):
                raise SystemExit(f"dobutsu differs from Fairy-Stockfish after {moves}: "
                                 f"{game.position()} {ours} vs {theirs}")
            if not ours or len(moves) >= 200:
                break
            moves.append(rng.choice(ours))
            game.play(moves[-1])
        outcome = game.outcome()
        if outcome is not None:
            ends[outcome.reason] = ends.get(outcome.reason, 0) + 1
    print(f"pyffish  {games} random games agree move by move; ends: {ends}", flush=True)


def main() -> None:
    _report("jungle", Jungle.start(), 5, None)
    _report("dobutsu", Dobutsu.start(), 8, None)
    for depth, expected in DOBUTSU_EXPECTED.items():
        nodes = Dobutsu.start().perft(depth)
        assert nodes == expected, (depth, nodes, expected)
    print("dobutsu perft(5), perft(6) match docs/rules.md", flush=True)
    _fsf_cross_check()


if __name__ == "__main__":
    main()
