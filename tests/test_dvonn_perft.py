"""Dvonn perft: the optimized count against a slow brute force built only from position texts,
move strings and play(), so both the rules' fast path and their text round trips are checked."""

from __future__ import annotations

import random

import pytest

from referee.games.dvonn import Dvonn


def slow_perft(text: str, depth: int) -> int:
    """Leaves ``depth`` moves deep, rebuilding every node from its position text."""
    if depth == 0:
        return 1
    total = 0
    for move in Dvonn.from_position(text).legal_moves():
        child = Dvonn.from_position(text)
        child.play(move)
        total += slow_perft(child.position(), depth - 1)
    return total


def placed_game(seed: int, placements: int) -> Dvonn:
    rng = random.Random(seed)
    g = Dvonn.start()
    while g.placed < placements:
        g.play(rng.choice(g.legal_moves()))
    return g


def test_start_perft_counts_every_placement() -> None:
    g = Dvonn.start()
    assert [g.perft(d) for d in (1, 2, 3)] == [49, 49 * 48, 49 * 48 * 47]
    assert slow_perft(g.position(), 2) == 49 * 48


def test_perft_across_the_end_of_placement() -> None:
    # 3 placements left, then white moves twice: depth 4 reaches the second movement.
    g = placed_game(3, 46)
    text = g.position()
    for depth in (1, 2, 3, 4):
        assert g.perft(depth) == slow_perft(text, depth), depth
    assert g.position() == text  # perft leaves the game as it found it
    assert g.perft(3) == 6  # 3 * 2 * 1 placements


@pytest.mark.slow
def test_perft_in_the_movement_phase_with_passes() -> None:
    rng = random.Random(21)
    for seed in (1, 2, 3, 4, 5, 6):
        g = placed_game(seed, 49)
        # An early position (wide: depth 2) and a late one (narrow: as deep as stays cheap).
        for movements in (rng.randrange(5, 15), rng.randrange(25, 45)):
            while g.outcome() is None and len(g.history) < 49 + movements:
                g.play(rng.choice(g.legal_moves()))
            text = g.position()
            fresh = Dvonn.from_position(text)
            depth = 1
            while depth <= 5 and (depth <= 2 or fresh.perft(depth) < 3000):  # ~0.3 ms a node
                assert fresh.perft(depth) == slow_perft(text, depth), (text, depth)
                depth += 1
    # White's only stack (4 high on E3) cannot land (A3, I3 empty): white must pass.
    text = "7DD/4B5/3DBbbwB5/10/9 w 49"
    g = Dvonn.from_position(text)
    assert g.legal_moves() == ["pass"]
    for depth in (1, 2, 3, 4):
        assert g.perft(depth) == slow_perft(text, depth), depth


def test_divide_sums_to_perft() -> None:
    g = placed_game(9, 49)
    split = dict(g.divide(3))
    assert set(split) == set(g.legal_moves())
    assert sum(split.values()) == g.perft(3)
