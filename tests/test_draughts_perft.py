"""Draughts perft against the public reference figures of docs/rules.md (duplicates removed), and
the fast bitboard perft against the plain moves()/push()/pop() walk of the Game interface."""

from __future__ import annotations

import random

import pytest

from referee.games.base import Game
from referee.games.draughts import Draughts

REFERENCE = {
    "W:W31-50:B1-20": [9, 81, 658, 4265, 27117, 167140],
    "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46":
        [14, 55, 1168, 5432, 87195, 629010],
    "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38":
        [6, 12, 30, 73, 215, 590, 1944, 6269, 22369],
    "W:W6,7,8,9,10:B41,42,43,44,45": [9, 81, 795, 7578, 86351, 936311],
}

CASES = [(fen, depth, n) for fen, counts in REFERENCE.items()
         for depth, n in enumerate(counts, start=1)]


@pytest.mark.parametrize(("fen", "depth", "expected"), CASES,
                         ids=[f"{fen[:12]}-d{d}" for fen, d, _ in CASES])
@pytest.mark.slow
def test_reference_perft(fen: str, depth: int, expected: int) -> None:
    assert Draughts.from_position(fen).perft(depth) == expected


@pytest.mark.parametrize("fen", list(REFERENCE))
def test_divide_sums_and_generic_walk_agree(fen: str) -> None:
    g = Draughts.from_position(fen)
    expected = REFERENCE[fen][2]
    assert sum(count for _, count in g.divide(3)) == expected
    assert Game.perft(g, 3) == expected
    assert g.position() == Draughts.from_position(fen).position()  # perft leaves no trace


def test_fast_perft_matches_generic_walk_on_random_positions() -> None:
    rng = random.Random(2026)
    checked = 0
    for _ in range(40):
        g = Draughts.start()
        for _ in range(rng.randrange(10, 90)):
            moves = g.moves()
            if not moves:
                break
            g.push(rng.choice(moves))
        for depth in (1, 2, 3):
            assert g.perft(depth) == Game.perft(g, depth), g.position()
        checked += 1
    assert checked == 40


def test_perft_zero_and_finished_positions() -> None:
    assert Draughts.start().perft(0) == 1
    lost = Draughts.from_position("W:W46:B37,41")
    assert lost.perft(1) == 0 and lost.perft(3) == 0
