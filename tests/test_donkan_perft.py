"""Donkan perft and move generation checked against slow, independent counterparts written here
from the public interface only (copies, move strings, the board view)."""

from __future__ import annotations

import random

from test_donkan_rules import game

from referee.games.donkan import Donkan

DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
CASTLE = (3, 3)


def slow_perft(g: Donkan, depth: int) -> int:
    """Leaves ``depth`` plies deep; a move that ends the partie (a new PartieRecord appears) is
    a leaf, whatever the game does with the board afterwards."""
    if depth == 0:
        return 1
    total = 0
    for move in g.legal_moves():
        child = g.copy()
        child.play(move)
        if len(child.parties) > len(g.parties):
            total += 1 if depth == 1 else 0
        else:
            total += slow_perft(child, depth - 1)
    return total


def name(x: int, y: int) -> str:
    return f"{'abcdefg'[x]}{y + 1}"


def naive_moves(g: Donkan) -> set[str]:
    """docs/rules.md, section Donkan, read literally, over the board view."""
    board = {(c.x, c.y): c for c in g.board_view().cells}
    me = g.side_to_move

    def guarded() -> bool:
        for dx, dy in DIRS:
            x, y = CASTLE[0] + dx, CASTLE[1] + dy
            while (x, y) in board and not board[(x, y)].piece:
                x, y = x + dx, y + dy
            cell = board.get((x, y))
            if cell is not None and cell.piece == "S" and cell.side != me:
                return True
        return False

    found = set()
    for (x, y), cell in board.items():
        if cell.side != me or not cell.piece:
            continue
        for dx, dy in DIRS:
            steps = 1 if cell.piece == "K" else 6
            for k in range(1, steps + 1):
                t = (x + dx * k, y + dy * k)
                if t not in board:
                    break
                if cell.piece == "S" and t == CASTLE:
                    break  # never on, never through
                if cell.piece == "K" and t == CASTLE and guarded():
                    break
                target = board[t]
                if target.piece and target.side == me:
                    break
                found.add(name(x, y) + name(*t))
                if target.piece:
                    break
    return found


def test_start_perft_matches_brute_force() -> None:
    g = Donkan.start(draw_rules=False)
    fast = [g.perft(d) for d in (1, 2, 3)]
    assert fast == [32, 1006, 33319]
    assert [slow_perft(g, d) for d in (1, 2)] == fast[:2]
    assert g.position() == Donkan.START_POSITION


def test_finished_parties_have_no_children() -> None:
    # South can take north's king (a1a2) or enter the castle (c3d4): both are leaves.
    text = game({"a1": "K", "a2": "k", "c3": "S", "g7": "s"}).position()
    g = Donkan.from_position(text, draw_rules=False)
    for depth in (1, 2, 3):
        assert g.perft(depth) == slow_perft(g, depth), depth
    near = game({"c3": "K", "e5": "k", "a4": "S", "b1": "s"}, draw_rules=False)
    assert "c3d4" in near.legal_moves() and "e5d4" not in near.legal_moves()
    for depth in (1, 2, 3):
        assert near.perft(depth) == slow_perft(near, depth), depth
    split = dict(near.divide(2))
    assert split["c3d4"] == 0 and sum(split.values()) == near.perft(2)
    assert dict(near.divide(1))["c3d4"] == 1


def test_random_positions_perft_and_generation() -> None:
    rng = random.Random(8)
    for _ in range(12):
        g = Donkan.start(target=4, draw_rules=False)
        for _ in range(rng.randrange(4, 30)):
            if g.outcome() is not None:
                break
            assert set(g.legal_moves()) == naive_moves(g), g.position()
            g.play(rng.choice(g.legal_moves()))
        if g.outcome() is None:
            assert g.perft(2) == slow_perft(g, 2), g.position()


def test_generation_matches_the_literal_rules_along_random_rounds() -> None:
    rng = random.Random(12)
    for _ in range(3):
        g = Donkan.start(target=6)
        while g.outcome() is None:
            assert set(g.legal_moves()) == naive_moves(g), g.position()
            g.play(rng.choice(g.legal_moves()))
