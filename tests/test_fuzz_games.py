"""Fuzzing each game's text parsers: a position text or a move string, however mangled, gives
a game or a move, or a :class:`GameError` subclass naming what is wrong; never IndexError,
KeyError, ValueError from int(), or a game object that breaks later.

Positions are drawn three ways: any text; real positions (the start and positions reached by
a few random moves) with characters replaced, inserted and deleted; and texts made from the
characters real positions use. A position that parses must also survive the basic calls
(moves, position text round trip, outcome), since a referee would make them next.
"""

from __future__ import annotations

import contextlib
import random
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import GAME_NAMES, Game, GameError, get_game

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples per game

FUZZ = settings(max_examples=300, deadline=None, derandomize=True)  # same examples in CI


@cache
def sample_positions(game: str) -> tuple[list[str], list[Game[Any]]]:
    """Position texts and boards: the start and after 1..40 random plies (seeded)."""
    rng = random.Random(game)
    texts: list[str] = []
    boards: list[Game[Any]] = []
    for plies in (0, 1, 3, 8, 20, 40):
        board = get_game(game).start()
        for _ in range(plies):
            moves = board.legal_moves()
            if not moves or board.outcome() is not None:
                break
            board.play(rng.choice(moves))
        texts.append(board.position())
        boards.append(board)
    return texts, boards


def mutated(game: str) -> st.SearchStrategy[str]:
    texts, _ = sample_positions(game)
    alphabet = sorted({c for t in texts for c in t} | set("0123456789-:/ []x@+,.wbsnWBSN"))
    edit = st.tuples(st.sampled_from(["replace", "insert", "delete"]),
                     st.integers(min_value=0, max_value=200), st.sampled_from(alphabet))

    def apply(text: str, edits: list[tuple[str, int, str]]) -> str:
        chars = list(text)
        for kind, at, char in edits:
            at = at % (len(chars) + 1)
            if kind == "insert":
                chars.insert(at, char)
            elif chars and at < len(chars):
                if kind == "replace":
                    chars[at] = char
                else:
                    del chars[at]
        return "".join(chars)

    def swap_field(text: str, at: int, token: str) -> str:
        fields = text.split(" ")
        fields[at % len(fields)] = token
        return " ".join(fields)

    near = st.builds(apply, st.sampled_from(texts), st.lists(edit, min_size=1, max_size=3))
    tokens = (st.integers(min_value=-10**20, max_value=10**20).map(str)
              | st.sampled_from(["", "-", "0-0", "w", "b", "s", "n", "[]", "1e9", "nan"])
              | st.text(alphabet=alphabet, max_size=8))
    field = st.builds(swap_field, st.sampled_from(texts), st.integers(min_value=0), tokens)
    shaped = st.text(alphabet=alphabet, max_size=60)
    return st.one_of(near, near, field, field, shaped, st.text(max_size=40))


def exercise(board: Game[Any]) -> None:
    """What the referee does with a position it accepted."""
    text = board.position()
    again = type(board).from_position(text)
    assert again.position() == text
    board.outcome()
    for move in board.moves()[:50]:
        board.format_move(move)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_position_texts_raise_only_game_errors(game: str) -> None:
    rules = get_game(game)

    @FUZZ
    @given(mutated(game))
    def check(text: str) -> None:
        try:
            board = rules.from_position(text)
        except GameError:
            return
        exercise(board)

    check()


def move_texts(game: str) -> st.SearchStrategy[str]:
    texts, boards = sample_positions(game)
    real = sorted({m for b in boards for m in b.legal_moves()} | {"(none)", "pass"})
    alphabet = sorted(set("".join(real)) | set("abcdefghijklmnopqrstuvwxyz0123456789-x@+*#="))
    return st.sampled_from(real) | st.text(alphabet=alphabet, max_size=12) | st.text(max_size=12)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_move_strings_raise_only_game_errors(game: str) -> None:
    _, boards = sample_positions(game)

    @FUZZ
    @given(st.integers(min_value=0, max_value=len(boards) - 1), move_texts(game))
    def check(index: int, text: str) -> None:
        board = boards[index].copy()
        try:
            move = board.parse_move(text)
        except GameError:
            return
        assert board.format_move(move) in board.legal_moves()
        board.push(move)
        board.position()

    check()


@pytest.mark.parametrize("game", GAME_NAMES)
def test_game_options_raise_only_game_errors(game: str) -> None:
    rules = get_game(game)

    @FUZZ
    @given(st.text(max_size=10))
    def check(value: str) -> None:
        for name in ("target", "variant", "size", "x"):
            # TypeError: an option the game does not have (the config reports it)
            with contextlib.suppress(GameError, TypeError):
                rules.start(**{name: value})

    check()
