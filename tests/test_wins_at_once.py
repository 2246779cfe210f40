"""``Game.wins_at_once``: each game's fast answer equals trying every move (the base's)."""

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
