"""What every registered game owes the referee, checked along seeded random games.

One test per game in the registry (``referee.games.GAME_NAMES``), so a new game is checked the
moment it is registered: move texts round-trip (``parse_move``/``format_move``, in the order of
``moves()``), position texts round-trip (the same position, repetition key, outcome and legal
moves after ``from_position``), a copy shares nothing with its original, and ``pop`` walks the
game back through every position to the start.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.games import GAME_NAMES, Game, get_game

GAMES_PER_RULES = 6
MAX_PLIES = 160
"""Random play reaches real ends in Dobutsu and Dvonn within this, deep middlegames in the
others; small enough to keep the test in seconds."""


def check_move_texts(game: Game[Any]) -> list[str]:
    texts = game.legal_moves()
    moves = game.moves()
    assert len(texts) == len(moves) == len(set(texts)), game.position()
    for text, move in zip(texts, moves, strict=True):
        assert game.format_move(move) == text
        assert game.parse_move(text) == move
        assert game.format_move(game.parse_move(text)) == text
    return texts


def check_position_text(rules: type[Game[Any]], game: Game[Any]) -> None:
    text = game.position()
    again = rules.from_position(text)
    assert again.position() == text
    assert again.repetition_key() == game.repetition_key(), text
    assert again.outcome() == game.outcome(), text
    assert sorted(again.legal_moves()) == sorted(game.legal_moves()), text


def check_copy_is_independent(game: Game[Any]) -> None:
    before = game.position()
    plies = game.ply
    twin = game.copy()
    assert twin.position() == before
    if twin.outcome() is None and twin.moves():
        twin.push(twin.moves()[0])
        assert game.position() == before and game.ply == plies
    while twin.history:
        twin.pop()
    assert game.position() == before and game.ply == plies


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_games_round_trip(name: str) -> None:
    rules = get_game(name)
    rng = random.Random(name)
    for _ in range(GAMES_PER_RULES):
        game = rules.start()
        start = game.position()
        seen = [(game.position(), game.repetition_key())]
        while game.outcome() is None and game.ply < MAX_PLIES:
            texts = check_move_texts(game)
            assert texts, f"no legal move but no outcome: {game.position()}"
            game.play(rng.choice(texts))
            check_position_text(rules, game)
            seen.append((game.position(), game.repetition_key()))
        check_copy_is_independent(game)
        while game.history:
            game.pop()
            seen.pop()
            assert (game.position(), game.repetition_key()) == seen[-1]
        assert game.position() == start == rules.START_POSITION
        assert game.ply == 0
