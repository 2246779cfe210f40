"""Dobutsu: the checks every game owes along random games (text and move round-trips,
push/pop, copy, perft consistency)."""

from __future__ import annotations

import random

from referee.games.base import Game
from referee.games.dobutsu import Dobutsu


def test_round_trips_push_pop_and_copy_along_random_games() -> None:
    rng = random.Random(5)
    ends: dict[str, int] = {}
    for _ in range(40):
        game = Dobutsu.start()
        seen = [(game.position(), game.repetition_key())]
        while not game.is_over() and game.ply < 150:
            moves = game.legal_moves()
            for text in moves:
                assert game.format_move(game.parse_move(text)) == text
            game.play(rng.choice(moves))
            again = Dobutsu.from_position(game.position())
            assert again.position() == game.position()
            assert again.repetition_key() == game.repetition_key()
            assert again.outcome() == game.outcome()
            assert sorted(again.legal_moves()) == sorted(game.legal_moves())
            seen.append((game.position(), game.repetition_key()))
        if (outcome := game.outcome()) is not None:
            ends[outcome.reason] = ends.get(outcome.reason, 0) + 1
        twin = game.copy()
        while twin.history:
            twin.pop()
        assert twin.position() == Dobutsu.START_POSITION
        assert game.position() == seen[-1][0]  # the copy shares nothing
        while game.history:
            seen.pop()
            game.pop()
            assert (game.position(), game.repetition_key()) == seen[-1]
    assert ends.get("lion-captured") and ends.get("try")  # random play reaches both ends


def test_fast_perft_agrees_with_the_generic_one() -> None:
    game = Dobutsu.from_position("1l1/1c1/1C1/1L1[GEge] w - - 0 1")
    for depth in (1, 2, 3):
        assert game.perft(depth) == Game.perft(game, depth)
        assert sum(n for _, n in game.divide(depth)) == game.perft(depth)
    assert game.position() == "1l1/1c1/1C1/1L1[GEge] w - - 0 1"
