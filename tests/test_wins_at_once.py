"""Fast answers of the game objects equal the slow ones: ``wins_at_once`` against trying every
move (the base's), ``outcome_given`` against ``outcome``."""

from __future__ import annotations

import random

import pytest

from referee.games import GAME_NAMES, get_game
from referee.games.base import Game


@pytest.mark.parametrize("name", GAME_NAMES)
def test_fast_answer_equals_trying_every_move(name: str) -> None:
    rng = random.Random(7)
    rules = get_game(name)
    checked = wins = 0
    for _ in range(60 if name == "dobutsu" else 4):
        board = rules.start()
        for _ply in range(80):
            if board.outcome() is not None:
                break
            fast = board.wins_at_once()
            assert fast == Game.wins_at_once(board), board.position()
            checked += 1
            wins += fast
            board.push(rng.choice(board.moves()))
    assert checked > 0
    if name == "dobutsu":
        assert wins > 20  # random games often leave the lion en prise: the test sees both


@pytest.mark.parametrize("name", GAME_NAMES)
def test_outcome_given_the_moves_equals_outcome(name: str) -> None:
    rng = random.Random(3)
    rules = get_game(name)
    ends = 0
    for _ in range(30 if name in ("dobutsu", "jungle") else 3):
        board = rules.start()
        while True:
            moves = board.moves()
            assert board.outcome_given(moves) == board.outcome(), board.position()
            if board.outcome() is not None or board.ply >= 300:
                ends += board.outcome() is not None
                break
            board.push(rng.choice(moves))
    assert ends > 0 or name == "donkan"  # a Donkan round of random moves outlasts the cap
