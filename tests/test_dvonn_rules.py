"""Dvonn rules (docs/rules.md, section Dvonn): one hand-built position per rule, plus an independent
re-implementation of movement and disconnection checked along random games."""

from __future__ import annotations

import random

import pytest

from referee.games import get_game
from referee.games.base import IllegalMove, MoveSyntaxError, PositionError
from referee.games.dvonn import PASS, Dvonn

# The drawing of docs/rules.md, copied verbatim: the test derives the cell set from it.
DRAWING = """
        C5 D5 E5 F5 G5 H5 I5 J5 K5
      B4 C4 D4 E4 F4 G4 H4 I4 J4 K4
    A3 B3 C3 D3 E3 F3 G3 H3 I3 J3 K3
      A2 B2 C2 D2 E2 F2 G2 H2 I2 J2
        A1 B1 C1 D1 E1 F1 G1 H1 I1
"""
ROW_NAMES = [line.split() for line in DRAWING.strip("\n").splitlines()]  # row 5 first
ALL_CELLS = {name for row in ROW_NAMES for name in row}
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))  # docs/rules.md's neighbours


def pos(stacks: dict[str, str], side: str = "w", placed: int = 49) -> str:
    """Our own encoder of the documented position text (independent of Dvonn.position)."""
    rows = []
    for names in ROW_NAMES:
        out, empty = "", 0
        for name in names:
            s = stacks.get(name, "")
            if not s:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += s[0].upper() + s[1:].lower()
        if empty:
            out += str(empty)
        rows.append(out)
    return f"{'/'.join(rows)} {side} {placed}"


def game(stacks: dict[str, str], side: str = "w", placed: int = 49) -> Dvonn:
    """A movement-phase game; lone DVONN pieces are added out of the way (far from every piece)
    until there are three, as the rules require."""
    stacks = dict(stacks)
    if placed == 49:
        for spare in ("K5", "I1", "C5", "A1", "K3", "A3", "G5", "E1"):
            if sum(s.count("D") for s in stacks.values()) >= 3:
                break
            x, y = coords(spare)
            near = [
                name_of(x + dx, y + dy) for dx, dy in DIRS if 0 <= x + dx < 11 and 0 <= y + dy < 5
            ]
            if not stacks.get(spare) and not any(stacks.get(n) for n in near):
                stacks[spare] = "D"
    return Dvonn.from_position(pos(stacks, side, placed))


def coords(name: str) -> tuple[int, int]:
    return "ABCDEFGHIJK".index(name[0]), int(name[1]) - 1


def name_of(x: int, y: int) -> str:
    return f"{'ABCDEFGHIJK'[x]}{y + 1}"


def test_registry_and_sides() -> None:
    assert get_game("dvonn") is Dvonn
    assert Dvonn.SIDE_LABELS == ("white", "black")


def test_board_has_exactly_the_49_cells_of_the_drawing() -> None:
    g = Dvonn.start()
    view = g.board_view()
    assert view.shape == "hex"
    names = {name_of(c.x, c.y) for c in view.cells}
    assert names == ALL_CELLS and len(ALL_CELLS) == 49
    assert g.legal_moves() == sorted(g.legal_moves(), key=lambda n: (n[1], n[0]))
    assert set(g.legal_moves()) == ALL_CELLS


def test_neighbours_follow_rules_md() -> None:
    # A1's neighbours are B1, A2, B2 (x+1; y+1; x+1,y+1); a single piece moves 1 space.
    g = game({"A1": "W", "B1": "B", "A2": "B", "B2": "B", "C2": "D"})
    assert sorted(g.legal_moves()) == ["A1A2", "A1B1", "A1B2"]
    # E3 has 6 neighbours: D3 F3 E2 E4 F4 D2 (not D4 nor F2).
    stacks = {n: "B" for n in ("D3", "F3", "E2", "E4", "F4", "D2", "D4", "F2")}
    stacks.update({"E3": "W", "C3": "D"})
    g = game(stacks)
    assert g.legal_moves() == ["pass"]  # E3 is surrounded, and white has nothing else
    stacks["F4"] = ""
    g = game(stacks)
    assert sorted(m for m in g.legal_moves() if m.startswith("E3")) == [
        "E3D2",
        "E3D3",
        "E3E2",
        "E3E4",
        "E3F3",
    ]


def test_placement_order_dvonn_then_black_white() -> None:
    g = Dvonn.start()
    sides, pieces = [], []
    rng = random.Random(5)
    while g.placed < 49:
        sides.append(g.side_to_move)
        cell = rng.choice(g.legal_moves())
        g.play(cell)
        pieces.append(g.stack(cell))
    assert pieces[:3] == ["D", "D", "D"]
    assert sides[:3] == [0, 1, 0]  # W DVONN, B DVONN, W DVONN
    assert pieces[3:7] == ["B", "W", "B", "W"] and sides[3:7] == [1, 0, 1, 0]
    assert pieces.count("W") == 23 and pieces.count("B") == 23
    assert sides[-1] == 0 and pieces[-1] == "W"  # white makes the 49th placement


def test_last_placement_then_white_moves_twice() -> None:
    g = Dvonn.start()
    rng = random.Random(7)
    while g.placed < 48:
        g.play(rng.choice(g.legal_moves()))
    assert g.side_to_move == 0
    text = g.position()
    assert text.endswith(" w 48")
    again = Dvonn.from_position(text)  # a game can start mid-placement
    (last,) = again.legal_moves()  # one legal choice, still a move
    assert again.perft(1) == 1
    again.play(last)
    assert again.placed == 49 and again.side_to_move == 0  # white again
    first = again.legal_moves()[0]
    assert len(first) == 4
    again.play(first)
    assert again.side_to_move == 1
    again.pop()
    again.pop()
    assert again.position() == text


def test_no_removal_during_placement() -> None:
    # Mid-placement: 3 DVONN, then B W B W placed far apart; placing more removes nothing.
    stacks = {"A1": "D", "K5": "D", "E3": "D", "I1": "B", "C5": "W", "A3": "B", "J2": "W"}
    g = game(stacks, "b", 7)
    g.play("G3")  # black's piece, touching nothing
    for cell, s in stacks.items():
        assert g.stack(cell) == s
    assert g.stack("G3") == "B"


def test_disconnection_removal_after_movement() -> None:
    stacks = {"A3": "D", "B3": "W", "C3": "B", "D3": "W", "E3": "B", "K5": "D", "K4": "B"}
    g = game(stacks)
    before = g.position()
    g.play("B3C3")  # B3 empties: C3..E3 lose touch with the DVONN on A3
    assert g.stack("C3") == g.stack("D3") == g.stack("E3") == g.stack("B3") == ""
    assert g.stack("A3") == "D" and g.stack("K5") == "D" and g.stack("K4") == "B"
    g.pop()
    assert g.position() == before
    # The same move with a DVONN at the far end keeps the chain.
    stacks["E3"] = "D"
    stacks["K5"] = ""
    stacks["K4"] = ""
    g = game(stacks)
    g.play("B3C3")
    assert g.stack("C3") == "BW" and g.stack("D3") == "W" and g.stack("E3") == "D"


def test_isolated_dvonn_stays() -> None:
    g = game({"A3": "D", "B3": "W", "C3": "B", "E3": "D", "F3": "B", "I1": "D", "H1": "W"})
    g.play("B3C3")  # A3's DVONN is now alone: it stays, connected to itself
    assert g.stack("A3") == "D"
    assert g.stack("C3") == ""  # the new stack touches no DVONN: removed


def test_surrounded_stack_cannot_move_until_freed() -> None:
    ring = ["D3", "F3", "E2", "E4", "F4", "D2"]
    stacks = {c: "B" for c in ring} | {"E3": "W", "C3": "D", "G3": "W", "H3": "B"}
    g = game(stacks)
    assert not any(m.startswith("E3") for m in g.legal_moves())
    with pytest.raises(IllegalMove, match="surrounded"):
        g.play("E3E4")
    stacks["F4"] = ""
    g = game(stacks)
    assert "E3E4" in g.legal_moves()


def test_edge_stack_is_never_surrounded() -> None:
    # A3 has only 4 neighbours (B3, A2, A4 does not exist... A3: B3, A2, B4); all occupied.
    stacks = {"A3": "W", "B3": "B", "A2": "B", "B4": "D"}
    g = game(stacks)
    assert sorted(m for m in g.legal_moves() if m.startswith("A3")) == ["A3A2", "A3B3", "A3B4"]


def test_lone_dvonn_never_moves_but_stacks_with_dvonn_do() -> None:
    g = game({"C3": "D", "D3": "B", "E3": "DW", "G3": "B", "H3": "D"})
    moves = g.legal_moves()
    assert moves == ["E3G3", "E3C3"] or sorted(moves) == ["E3C3", "E3G3"]
    g.play("E3G3")
    assert g.stack("G3") == "BDW" and g.stack("E3") == ""
    black = game({"C3": "D", "D3": "B", "E3": "DW", "G3": "B", "H3": "D"}, "b")
    assert not any(m.startswith(("C3", "H3")) for m in black.legal_moves())
    with pytest.raises(IllegalMove, match="lone DVONN"):
        black.play("C3D3")


def test_the_top_piece_decides_who_moves_a_stack() -> None:
    # E3 holds a white piece under a black one: black's stack, whatever lies beneath.
    stacks = {"E3": "WB", "F3": "W", "D3": "D", "G3": "B", "C3": "B", "H3": "D"}
    white = game(stacks)
    assert sorted(white.legal_moves()) == ["F3E3", "F3G3"]
    with pytest.raises(IllegalMove, match="the stack on E3 belongs to black"):
        white.play("E3G3")
    black = game(stacks, "b")
    assert {"E3C3", "E3G3"} <= set(black.legal_moves())
    black.play("E3G3")
    assert black.stack("G3") == "BWB" and black.stack("E3") == ""


def test_must_land_on_occupied_counting_every_space() -> None:
    # A 2-high stack on E3 moves exactly 2 spaces, over occupied (F3) or empty (E2) spaces alike,
    # and only onto occupied spaces: G3 and E1, not C3, E5, G5, C1.
    stacks = {"E3": "BW", "D2": "D", "D1": "B", "E1": "B", "F3": "D", "G3": "B", "K5": "D"}
    g = game(stacks)
    assert sorted(g.legal_moves()) == ["E3E1", "E3G3"]
    with pytest.raises(IllegalMove, match="occupied space; C3 is empty"):
        g.play("E3C3")
    with pytest.raises(IllegalMove, match="exactly 2"):
        g.play("E3E4")
    g.play("E3E1")
    assert g.stack("E1") == "BBW" and g.stack("E3") == ""


def test_pass_only_without_movement() -> None:
    # White's only stack is a 5-high one that cannot land anywhere; black can move.
    stacks = {"E3": "BBBBW", "F3": "B", "F4": "D", "G4": "B"}
    g = game(stacks)
    assert g.moves() == [PASS] and g.legal_moves() == ["pass"]
    assert g.outcome() is None
    g.play("pass")
    assert g.side_to_move == 1
    assert "pass" not in g.legal_moves()
    with pytest.raises(IllegalMove, match="only when you have no movement"):
        g.play("pass")
    with pytest.raises(IllegalMove, match="placement phase"):
        Dvonn.start().play("pass")


def test_game_ends_when_neither_side_can_move_and_scores() -> None:
    # White's only movement is F3E3 (onto a DVONN); black's 2-high stack on K5 can never land
    # (I5, K3, I3 are empty). After F3E3 nobody can move: the game ends on the score.
    draw = {"E3": "D", "F3": "W", "A1": "D", "J5": "D", "K5": "WB"}
    g = Dvonn.from_position(pos(draw))
    assert g.outcome() is None and g.legal_moves() == ["F3E3"]
    g.play("F3E3")  # the white piece tops the DVONN: a stack of 2, DVONN counted
    out = g.outcome()
    assert out is not None and out.winner is None and out.reason == "draw"
    assert out.result == "1/2-1/2"
    assert g.scores() == (2, 2) and "white 2 - black 2" in out.detail
    assert g.moves() == []
    g.pop()
    assert g.outcome() is None
    # A stuck white 2-stack on A1 (C1, A3, C3 empty) adds 2 for white: 4-2.
    white_wins = draw | {"A1": "BW", "B1": "D"}
    g = Dvonn.from_position(pos(white_wins))
    g.play("F3E3")
    out = g.outcome()
    assert out is not None and out.winner == 0 and out.reason == "score"
    assert out.result == "1-0" and "white 4 - black 2" in out.detail
    # Black's K5 stack 4 high (G5, G1 empty) beats white's 2.
    g = Dvonn.from_position(pos(draw | {"K5": "WBWB"}))
    g.play("F3E3")
    out = g.outcome()
    assert out is not None and out.winner == 1 and out.result == "0-1"
    assert "white 2 - black 4" in out.detail


def test_start_position_and_bad_texts_fail() -> None:
    assert Dvonn.start().position() == Dvonn.START_POSITION == "9/10/11/10/9 w 0"
    bad = [
        "9/10/11/10 w 0",
        "9/10/11/10/9 x 0",
        "9/10/11/10/9 w 50",
        "9/10/11/10/8 w 0",
        "9/10/11/10/9 b 0",
        "W8/10/11/10/9 w 1",
        "w8/10/11/10/9 w 49",
        "9/10/11/10/9X w 0",
        pos({"E3": "WD", "F3": "D", "G3": "D"}),
        pos({"E3": "W", "K5": "D", "J5": "D", "I5": "D"}),
        pos({"E3": "B", "F3": "D", "G3": "D"}, "b", 2),
    ]
    for text in bad:
        with pytest.raises(PositionError, match="dvonn position"):
            Dvonn.from_position(text)


def test_illegal_and_malformed_moves() -> None:
    g = Dvonn.start()
    g.play("E3")
    with pytest.raises(IllegalMove) as info:
        g.play("E3")
    assert info.value.move == "E3" and info.value.position == g.position()
    assert "'E3'" in str(info.value) and g.position() in str(info.value)
    for text in ("e3", "L1", "A5", "E3-E4", "", "PASS", "K1"):
        with pytest.raises(MoveSyntaxError, match="not notation"):
            g.parse_move(text)
    with pytest.raises(IllegalMove, match="placement phase"):
        g.play("E3F3")
    moved = game({"E3": "B", "F3": "W", "D3": "D"})
    with pytest.raises(IllegalMove, match="belongs to black"):
        moved.play("E3F3")
    with pytest.raises(IllegalMove, match="placement phase is over"):
        moved.play("A1")


def test_copy_is_independent() -> None:
    g = game({"A3": "D", "B3": "W", "C3": "B", "D3": "W", "E3": "B"})
    twin = g.copy()
    twin.play("B3C3")
    assert g.stack("B3") == "W" and twin.stack("B3") == ""
    twin.pop()
    assert twin.position() == g.position()


def test_board_view_and_diagram() -> None:
    g = game({"A3": "D", "B3": "DBW", "C3": "B"})
    cells = {name_of(c.x, c.y): c for c in g.board_view().cells}
    assert (cells["A3"].piece, cells["A3"].side, cells["A3"].extra) == ("1", None, "dvonn")
    assert (cells["B3"].piece, cells["B3"].side, cells["B3"].extra) == ("3", 0, "dvonn")
    assert (cells["C3"].piece, cells["C3"].side, cells["C3"].extra) == ("1", 1, "")
    assert cells["H3"].piece == "" and cells["H3"].side is None
    lines = g.diagram().splitlines()
    assert len(lines) == 6 and "W3+" in lines[2] and "D1" in lines[2]


# ----- an independent model of movement and disconnection, from the board view only ---------
def naive_movements(g: Dvonn) -> set[str]:
    view = {(c.x, c.y): c for c in g.board_view().cells}
    me = g.side_to_move
    found = set()
    for (x, y), c in view.items():
        if not c.piece or c.side != me:
            continue
        around = [(x + dx, y + dy) for dx, dy in DIRS]
        if all(p in view and view[p].piece for p in around):
            continue
        h = int(c.piece)
        for dx, dy in DIRS:
            t = (x + dx * h, y + dy * h)
            if t in view and view[t].piece:
                found.add(name_of(x, y) + name_of(*t))
    return found


def naive_survivors(g: Dvonn) -> set[str]:
    view = {(c.x, c.y): c for c in g.board_view().cells if c.piece}
    todo = [p for p, c in view.items() if c.extra == "dvonn"]
    seen = set(todo)
    while todo:
        x, y = todo.pop()
        for dx, dy in DIRS:
            p = (x + dx, y + dy)
            if p in view and p not in seen:
                seen.add(p)
                todo.append(p)
    return {name_of(*p) for p in seen}


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_games_match_an_independent_model(seed: int) -> None:
    rng = random.Random(seed)
    g = Dvonn.start()
    while g.placed < 49:
        g.play(rng.choice(g.legal_moves()))
    while g.outcome() is None:
        naive = naive_movements(g)
        legal = set(g.legal_moves())
        if naive:
            assert legal == naive
        else:
            assert legal == {"pass"}
        move = rng.choice(sorted(legal))
        g.play(move)
        occupied = {name_of(c.x, c.y) for c in g.board_view().cells if c.piece}
        assert occupied == naive_survivors(g)  # nothing left cut off from the DVONN pieces
    assert not naive_movements(g)
    white, black = g.scores()
    out = g.outcome()
    assert out is not None
    assert out.winner == (None if white == black else (0 if white > black else 1))
