"""Jungle move generation against a slow, literal reading of docs/rules.md, section Jungle, and the
fast perft against the generic one (the round trips every game owes are in
tests/test_game_conformance.py).

The oracle below shares no tables with ``referee.games.jungle``: it works on square names and
re-derives water, traps, dens and jumps from the rule text, so an indexing slip in the fast
generator shows up as a difference on random positions.
"""

from __future__ import annotations

import random

import pytest

from referee.games.base import Game
from referee.games.jungle import Jungle

FILES = "abcdefg"
ORDER = "RCDWPTLE"  # strength = index + 1
TRAPS = ({"c1", "e1", "d2"}, {"c9", "e9", "d8"})  # south's, north's
DENS = ("d1", "d9")


def is_water(square: str) -> bool:
    return square[0] in "bcef" and square[1] in "456"


def step(square: str, dx: int, dy: int) -> str | None:
    f = FILES.find(square[0]) + dx
    r = int(square[1]) + dy
    return f"{FILES[f]}{r}" if 0 <= f < 7 and 1 <= r <= 9 else None


def may_take(side: int, frm: str, to: str, animal: str, victim: str) -> bool:
    """docs/rules.md's capture rules and trap rule, clause by clause."""
    if is_water(frm) or is_water(to):
        return is_water(frm) and is_water(to)  # rat in water takes only rat in water
    if frm in TRAPS[1 - side]:
        return False  # strength 0 on an enemy trap: captures nothing
    if to in TRAPS[side]:
        return True  # the victim stands on our trap: any animal takes it
    if animal == "R" and victim == "E":
        return True
    if animal == "E" and victim == "R":
        return False
    return ORDER.index(animal) >= ORDER.index(victim)


def oracle_moves(game: Jungle) -> set[str]:
    board = {f"{f}{r}": game.piece_at(f"{f}{r}") for f in FILES for r in range(1, 10)}
    side = game.side_to_move
    mine = str.isupper if side == 0 else str.islower
    theirs = str.islower if side == 0 else str.isupper
    if game.outcome() is not None and game.outcome().reason != "no-moves":  # type: ignore[union-attr]
        return set()
    out = set()
    for frm, letter in board.items():
        if not letter or not mine(letter):
            continue
        animal = letter.upper()
        targets = []
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            to = step(frm, dx, dy)
            if to is not None:
                targets.append(to)
            if animal in "LT" and to is not None and is_water(to):
                path = []
                while to is not None and is_water(to):
                    path.append(to)
                    to = step(to, dx, dy)
                if to is not None and not any(board[w] for w in path):
                    targets.append(to)
        for to in targets:
            if to == DENS[side] or (is_water(to) and animal != "R"):
                continue
            victim = board[to]
            if victim and not theirs(victim):
                continue
            if victim and not may_take(side, frm, to, animal, victim.upper()):
                continue
            out.add(frm + to)
    return out


def random_position(rng: random.Random) -> Jungle | None:
    """A sparse random position that may break every rule a game reaches (rats in water, animals
    on traps, jumpers by the river); None when it is not a legal position text."""
    squares = [f"{f}{r}" for f in FILES for r in range(1, 10)]
    pieces = {}
    for letter in rng.sample(ORDER + ORDER.lower(), rng.randint(2, 12)):
        for _ in range(20):
            square = rng.choice(squares)
            if square in pieces or (is_water(square) and letter.upper() != "R"):
                continue
            if square == DENS[0 if letter.isupper() else 1]:
                continue
            pieces[square] = letter
            break
    ranks = []
    for r in range(9, 0, -1):
        row, empty = "", 0
        for f in FILES:
            if f"{f}{r}" in pieces:
                row += (str(empty) if empty else "") + pieces[f"{f}{r}"]
                empty = 0
            else:
                empty += 1
        ranks.append(row + (str(empty) if empty else ""))
    text = "/".join(ranks) + " " + rng.choice("sn")
    try:
        return Jungle.from_position(text)
    except ValueError:
        return None


def test_generator_matches_the_oracle_on_random_positions() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 1500:
        game = random_position(rng)
        if game is None:
            continue
        for _ in range(rng.randint(0, 6)):  # a few plies on, so positions come from play too
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        assert set(game.legal_moves()) == oracle_moves(game), game.position()
        checked += 1


def test_generator_matches_the_oracle_along_games_from_the_start() -> None:
    rng = random.Random(11)
    for _ in range(15):
        game = Jungle.start()
        for _ in range(150):
            moves = game.legal_moves()
            assert set(moves) == oracle_moves(game), game.position()
            if not moves:
                break
            game.play(rng.choice(moves))


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_fast_perft_agrees_with_the_generic_one(depth: int) -> None:
    game = Jungle.from_position("l5t/1d3c1/r1p1w1e/1R5/7/3T3/E1W1P2/1C3D1/5L1 s")
    assert game.perft(depth) == Game.perft(game, depth)
    assert sum(n for _, n in game.divide(depth)) == game.perft(depth)
    assert game.position() == "l5t/1d3c1/r1p1w1e/1R5/7/3T3/E1W1P2/1C3D1/5L1 s"
