"""Dobutsu: random play reaches both ends (lion captured, try) and the fast perft agrees with
the generic one; the round trips every game owes are in tests/test_game_conformance.py."""

from __future__ import annotations

import random

from referee.games.base import Game
from referee.games.dobutsu import Dobutsu


def test_random_play_reaches_both_ends() -> None:
    rng = random.Random(5)
    ends: dict[str, int] = {}
    for _ in range(40):
        game = Dobutsu.start()
        while not game.is_over() and game.ply < 150:
            game.play(rng.choice(game.legal_moves()))
        if (outcome := game.outcome()) is not None:
            ends[outcome.reason] = ends.get(outcome.reason, 0) + 1
    assert ends.get("lion-captured") and ends.get("try")


def test_fast_perft_agrees_with_the_generic_one() -> None:
    game = Dobutsu.from_position("1l1/1c1/1C1/1L1[GEge] w - - 0 1")
    for depth in (1, 2, 3):
        assert game.perft(depth) == Game.perft(game, depth)
        assert sum(n for _, n in game.divide(depth)) == game.perft(depth)
    assert game.position() == "1l1/1c1/1C1/1L1[GEge] w - - 0 1"
