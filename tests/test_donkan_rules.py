"""Donkan rules (docs/rules.md, section Donkan): moves, the castle and its guards, one position
each."""

from __future__ import annotations

import pytest

from referee.games import get_game
from referee.games.base import GameError, IllegalMove, MoveSyntaxError, PositionError
from referee.games.donkan import Donkan

FILES = "abcdefg"


def pos(
    pieces: dict[str, str],
    side: str = "s",
    score: str = "0-0",
    target: int = 10,
    starter: str | None = None,
    partie_plies: int = 0,
    round_plies: int | None = None,
) -> str:
    """Our own encoder of the documented position text (independent of Donkan.position)."""
    ranks = []
    for rank in range(7, 0, -1):
        out, empty = "", 0
        for f in FILES:
            piece = pieces.get(f"{f}{rank}", "")
            if not piece:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += piece
        if empty:
            out += str(empty)
        ranks.append(out)
    if starter is None:
        starter = side if partie_plies % 2 == 0 else {"s": "n", "n": "s"}[side]
    rp = partie_plies if round_plies is None else round_plies
    return f"{'/'.join(ranks)} {side} {score} {target} {starter} {partie_plies} {rp}"


def game(pieces: dict[str, str], side: str = "s", **kw: object) -> Donkan:
    options = {k: kw.pop(k) for k in ("draw_rules",) if k in kw}
    return Donkan.from_position(pos(pieces, side, **kw), **options)  # type: ignore[arg-type]


def from_square(moves: list[str], square: str) -> list[str]:
    return sorted(m for m in moves if m.startswith(square))


def test_registry_sides_and_start() -> None:
    assert get_game("donkan") is Donkan
    assert Donkan.SIDE_LABELS == ("south", "north")
    g = Donkan.start()
    start = {"d1": "K", "c1": "S", "f1": "S", "d7": "k", "b7": "s", "e7": "s"}
    assert pos(start) == Donkan.START_POSITION
    for sq in (f"{f}{r}" for f in FILES for r in range(1, 8)):
        assert g.piece_at(sq) == start.get(sq, "")
    assert g.side_to_move == 0 and g.partie_starter == 0  # south starts the round
    assert g.score == (0, 0) and g.target == 10 and g.parties == []


def test_king_steps_and_soldier_slides_without_jumping() -> None:
    g = game({"a1": "K", "c3": "S", "c5": "S", "e5": "s", "g7": "k", "f3": "s"})
    assert from_square(g.legal_moves(), "a1") == ["a1a2", "a1b1", "a1b2"]
    soldier = from_square(g.legal_moves(), "c3")
    # c-file up to c4 (c5 is own), down to c1; rank 3 to a3..f3 (f3 enemy, taken); diagonals:
    # b2 a1? a1 own king: stops; d2 e1; b4 a5; d4 is the castle: never.
    assert soldier == sorted(
        [
            "c3c4",
            "c3c2",
            "c3c1",
            "c3b3",
            "c3a3",
            "c3d3",
            "c3e3",
            "c3f3",
            "c3b2",
            "c3d2",
            "c3e1",
            "c3b4",
            "c3a5",
        ]
    )
    with pytest.raises(IllegalMove, match="blocked on f3"):
        g.play("c3g3")
    with pytest.raises(IllegalMove, match="one step"):
        g.play("a1a3")
    with pytest.raises(IllegalMove, match="straight line"):
        g.play("c3d5")


def test_capture_by_replacement_any_piece_takes_any_piece() -> None:
    g = game({"a1": "K", "b2": "s", "g1": "S", "g7": "s", "e7": "k", "c3": "S"})
    g.play("a1b2")  # the king takes a soldier
    assert g.piece_at("b2") == "K" and g.piece_at("a1") == ""
    g.play("g7g1")  # a soldier takes a soldier
    assert g.piece_at("g1") == "s"


def test_king_may_move_into_attack() -> None:
    g = game({"a1": "K", "c1": "S", "b7": "s", "g7": "k"})
    assert "a1b1" in g.legal_moves()  # b1 is on north's b-file soldier's line
    assert "a1b2" in g.legal_moves()


def test_soldier_never_stops_on_or_passes_through_the_castle() -> None:
    g = game({"d1": "S", "a1": "S", "a7": "K", "g7": "k", "g1": "s"})
    assert from_square(g.legal_moves(), "d1") == sorted(
        [
            "d1d2",
            "d1d3",
            "d1c1",
            "d1b1",
            "d1e1",
            "d1f1",
            "d1g1",
            "d1c2",
            "d1b3",
            "d1a4",
            "d1e2",
            "d1f3",
            "d1g4",
        ]
    )
    assert from_square(g.legal_moves(), "a1") == sorted(
        ["a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1b1", "a1c1", "a1b2", "a1c3"]
    )
    with pytest.raises(IllegalMove, match="never stop on the castle"):
        g.play("d1d4")
    with pytest.raises(IllegalMove, match="never pass through the castle"):
        g.play("d1d6")
    with pytest.raises(IllegalMove, match="never pass through the castle"):
        g.play("a1e5")


def test_enemy_soldier_guards_the_castle() -> None:
    # North's soldier on d7 sees d4 along d6, d5: south's king on d3 may not enter.
    pieces = {"d3": "K", "d7": "s", "a7": "k", "a1": "S"}
    g = game(pieces)
    assert "d3d4" not in g.legal_moves()
    with pytest.raises(IllegalMove, match="guarded by north's soldier on d7"):
        g.play("d3d4")
    # Any piece on the line blocks the guard: a south soldier, or north's king, on d5...
    assert "d3d4" in game(pieces | {"a1": "", "d5": "S"}).legal_moves()
    assert "d3d4" in game(pieces | {"a7": "", "d5": "k"}).legal_moves()
    # ...but a north soldier on d5 guards the castle itself.
    with pytest.raises(IllegalMove, match="guarded by north's soldier on d5"):
        game(pieces | {"d5": "s"}).play("d3d4")
    # Diagonal guard from g7 (via f6, e5), and blocked by the ENEMY king standing on e5.
    diagonal = {"c3": "K", "g7": "s", "a7": "k"}
    assert "c3d4" not in game(diagonal).legal_moves()
    assert "c3d4" in game(diagonal | {"a7": "", "e5": "k"}).legal_moves()


def test_a_king_on_the_line_blocks_the_guard_judged_before_the_move() -> None:
    # South's king on d5 stands between the castle and north's soldier on d7: it may enter,
    # although once it has left d5 the line would be open.
    g = game({"d5": "K", "d7": "s", "a7": "k", "g1": "S"})
    assert "d5d4" in g.legal_moves()
    g.play("d5d4")
    assert g.score == (2, 0)
    # The same king one step aside (e5) is off the d-file line: d7 guards, no entry.
    g = game({"e5": "K", "d7": "s", "a7": "k", "g1": "S"})
    assert "e5d4" not in g.legal_moves()


def test_own_guard_never_hinders_own_king() -> None:
    g = game({"d3": "K", "d7": "S", "a4": "S", "g7": "k"})
    assert "d3d4" in g.legal_moves()
    # ...while it does stop the enemy king next to the castle.
    g = game({"a1": "K", "d7": "S", "a4": "S", "e5": "k"}, "n")
    assert "e5d4" not in g.legal_moves()


def test_position_errors_name_the_fault() -> None:
    start = Donkan.START_POSITION
    bad = {
        start.replace(" s 0-0", " x 0-0"): "side must be",
        start.replace("0-0", "0:0"): "score must be",
        start.replace(" 10 ", " 0 "): "target must be",
        start.replace("2SK1S1", "2SK1S"): "describes 6 squares",
        start.replace("2SK1S1", "2SQ1S1"): "unexpected 'Q'",
        start.replace("2SK1S1", "2SS1S1"): "3 soldier",
        start.replace("2SK1S1", "2S2S1"): "south has no king",
        "1s1ks2/7/7/3S3/7/7/3K1S1 s 0-0 10 s 0 0": "soldier stands on the castle",
        "1s1ks2/7/7/3K3/7/7/2S2S1 s 0-0 10 s 0 0": "king on the castle",
        start.replace(" 0 0", " 1 0"): "partie <= round",
        start.replace(" 0 0", " 1 1"): "so n is to move",
        start + " 1": "expected 7 fields",
    }
    for text, message in bad.items():
        with pytest.raises(PositionError, match=message):
            Donkan.from_position(text)
    with pytest.raises(GameError, match="target must be a positive integer"):
        Donkan.start(target="ten")
    with pytest.raises(GameError, match="no option"):
        Donkan.start(tagret=5)
    assert Donkan.start(target="5").target == 5
    assert Donkan.start(target=5).position().split()[3] == "5"
    assert Donkan.start(draw_rules="false").draw_rules is False


def test_illegal_and_malformed_moves() -> None:
    g = Donkan.start()
    with pytest.raises(IllegalMove) as info:
        g.play("d7d6")
    assert info.value.move == "d7d6" and info.value.position == g.position()
    assert "'d7d6'" in str(info.value) and "belongs to north" in str(info.value)
    with pytest.raises(IllegalMove, match="no piece on a1"):
        g.play("a1a2")
    with pytest.raises(IllegalMove, match="your own piece"):
        g.play("c1d1")
    for text in ("c1c8", "h1h2", "C1C4", "c1-c4", "", "c1"):
        with pytest.raises(MoveSyntaxError, match="not notation"):
            g.parse_move(text)


def test_board_view_and_diagram() -> None:
    g = Donkan.start()
    view = g.board_view()
    assert view.shape == "square" and (view.columns, view.rows) == (7, 7)
    cells = {(c.x, c.y): c for c in view.cells}
    assert cells[(3, 3)].terrain == "castle"
    assert (cells[(3, 0)].piece, cells[(3, 0)].side) == ("K", 0)
    assert (cells[(1, 6)].piece, cells[(1, 6)].side) == ("S", 1)
    assert "south 0 - north 0" in view.caption and "target 10" in view.caption
    assert "#" in g.diagram().splitlines()[3]
