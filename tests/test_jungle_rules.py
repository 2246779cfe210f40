"""Jungle (Dou Shou Qi): one hand-built position per rule of docs/rules.md, section Jungle."""

from __future__ import annotations

import pytest

from referee.games import IllegalMove, MoveSyntaxError, PositionError, get_game
from referee.games.jungle import Jungle

STRENGTH = {"R": 1, "C": 2, "D": 3, "W": 4, "P": 5, "T": 6, "L": 7, "E": 8}


def build(pieces: dict[str, str], side: str = "s") -> Jungle:
    """A position from ``{"a3": "E", "b5": "r"}`` (uppercase south, lowercase north)."""
    ranks = []
    for rank in range(9, 0, -1):
        row, empty = "", 0
        for file in "abcdefg":
            letter = pieces.get(f"{file}{rank}", "")
            if not letter:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += letter
        ranks.append(row + (str(empty) if empty else ""))
    return Jungle.from_position("/".join(ranks) + " " + side)


def legal(game: Jungle) -> set[str]:
    return set(game.legal_moves())


def test_registry_and_start() -> None:
    game = get_game("jungle").start()
    assert isinstance(game, Jungle)
    assert game.SIDE_LABELS == ("south", "north")
    assert game.position() == "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L s"
    # docs/rules.md start: south tiger a1, lion g1, cat b2, dog f2, elephant a3, wolf c3,
    # leopard e3, rat g3; north mirrored by 180 degrees.
    south = {"a1": "T", "g1": "L", "b2": "C", "f2": "D", "a3": "E", "c3": "W", "e3": "P", "g3": "R"}
    for square, letter in south.items():
        assert game.piece_at(square) == letter
        mirror = "abcdefg"[6 - "abcdefg".index(square[0])] + str(10 - int(square[1]))
        assert game.piece_at(mirror) == letter.lower()
    assert game.side_to_move == 0
    assert len(game.legal_moves()) == 24


@pytest.mark.parametrize("attacker", "RCDWPTLE")
@pytest.mark.parametrize("defender", "RCDWPTLE")
def test_strength_relation_on_plain_land(attacker: str, defender: str) -> None:
    game = build({"a2": attacker, "a3": defender.lower()})
    a, d = STRENGTH[attacker], STRENGTH[defender]
    expected = (a >= d and not (attacker == "E" and defender == "R")) or (
        attacker == "R" and defender == "E"
    )
    assert ("a2a3" in legal(game)) == expected


def test_rat_captures_elephant_on_land_and_elephant_never_takes_rat() -> None:
    game = build({"a2": "R", "a3": "e", "g9": "l"})
    assert "a2a3" in legal(game)
    game = build({"a2": "E", "a3": "r"})
    assert "a2a3" not in legal(game)
    assert {"a2a1", "a2b2"} <= legal(game)


def test_elephant_takes_rat_standing_on_its_trap() -> None:
    # d2 is south's trap: the north rat there has strength 0.
    game = build({"c2": "E", "d2": "r", "g9": "l"})
    assert "c2d2" in legal(game)


def test_rat_on_enemy_trap_cannot_capture_elephant() -> None:
    game = build({"d2": "r", "d3": "E", "a1": "T"}, side="n")
    assert "d2d3" not in legal(game)
    assert "d2c2" in legal(game)
    # On its own trap (d8 is north's) the rat keeps its power.
    game = build({"d8": "r", "d7": "E", "a1": "T"}, side="n")
    assert "d8d7" in legal(game)


def test_rat_in_water_captures_only_rat_in_water() -> None:
    game = build({"b4": "R", "b5": "r", "a4": "c", "g9": "l"})
    assert "b4b5" in legal(game)  # water to water, rat takes rat
    assert "b4a4" not in legal(game)  # leaving the water never captures
    game = build({"b4": "R", "a4": "r", "g9": "l"})
    assert "b4a4" not in legal(game)  # not even a rat on land
    game = build({"b4": "R", "g9": "l"})
    assert "b4a4" in legal(game)  # leaving the water onto an empty square is fine


def test_nothing_on_land_captures_rat_in_water() -> None:
    game = build({"a4": "R", "b4": "r", "g9": "l"})
    assert "a4b4" not in legal(game)  # a rat on land cannot take a rat in the water
    game = build({"a5": "R", "b4": "r", "g9": "l"})
    assert "a5b5" in legal(game)  # but it may enter the water where it is empty


def test_only_rats_enter_water() -> None:
    for letter in "CDWPTLE":
        game = build({"a4": letter, "g9": "l"})
        assert "a4b4" not in legal(game), letter
    assert "a4b4" in legal(build({"a4": "R", "g9": "l"}))


def test_own_den_is_forbidden() -> None:
    game = build({"d2": "C", "g9": "l"})
    assert "d2d1" not in legal(game)
    game = build({"d8": "c", "g1": "L"}, side="n")
    assert "d8d9" not in legal(game)


def test_animal_on_enemy_trap_has_strength_zero() -> None:
    # The north elephant on c1 (south's trap) is taken by the south rat (a rat takes an
    # elephant anyway), by the cat, by anything.
    for letter in "RCDWPTLE":
        game = build({"b1": letter, "c1": "e"})
        assert "b1c1" in legal(game), letter
    # ... and captures nothing itself, not even a rat.
    game = build({"c1": "e", "b1": "C", "c2": "D"}, side="n")
    assert "c1b1" not in legal(game)
    assert "c1c2" not in legal(game)
    assert "c1d1" in legal(game)  # it may still walk into the den


def test_own_traps_do_nothing() -> None:
    # South dog on its own trap d2 keeps strength 3: the north cat cannot take it.
    game = build({"d2": "D", "d3": "c"}, side="n")
    assert "d3d2" not in legal(game)
    game = build({"d2": "D", "d3": "c"})
    assert "d2d3" in legal(game)


@pytest.mark.parametrize("jumper", "LT")
def test_lion_and_tiger_jump_horizontally_and_vertically(jumper: str) -> None:
    game = build({"a4": jumper, "g9": "l"})
    assert "a4d4" in legal(game)
    game = build({"d5": jumper, "g9": "l"})
    assert {"d5a5", "d5g5"} <= legal(game)
    game = build({"b3": jumper, "g9": "l"})
    assert "b3b7" in legal(game)
    game = build({"f7": jumper.lower(), "a1": "T"}, side="n")
    assert "f7f3" in legal(game)


@pytest.mark.parametrize("letter", "RCDWPE")
def test_other_animals_do_not_jump(letter: str) -> None:
    assert "a4d4" not in legal(build({"a4": letter, "g9": "l"}))
    assert "b3b7" not in legal(build({"b3": letter, "g9": "l"}))


@pytest.mark.parametrize("rat", ["R", "r"])
@pytest.mark.parametrize("water", ["b4", "c4"])
def test_jump_blocked_by_a_rat_of_either_side(rat: str, water: str) -> None:
    game = build({"a4": "L", water: rat, "g9": "l" if rat == "R" else "t"})
    assert "a4d4" not in legal(game)
    # A rat elsewhere in the water does not block this line.
    game = build({"a4": "L", "b5": rat, "g9": "l" if rat == "R" else "t"})
    assert "a4d4" in legal(game)
    # A vertical jump is blocked by a rat on any of its three water squares.
    for square in ("b4", "b5", "b6"):
        game = build({"b3": "T", square: rat, "g9": "l" if rat == "R" else "t"})
        assert "b3b7" not in legal(game)


def test_jump_captures_by_strength() -> None:
    assert "a4d4" in legal(build({"a4": "L", "d4": "t"}))  # 7 >= 6
    assert "a4d4" in legal(build({"a4": "L", "d4": "r"}))  # lion takes rat
    assert "a4d4" not in legal(build({"a4": "L", "d4": "e", "g9": "t"}))  # 7 < 8
    assert "a4d4" not in legal(build({"a4": "T", "d4": "l"}))  # 6 < 7
    assert "b3b7" in legal(build({"b3": "T", "b7": "t"}))  # equal strength
    assert "b3b7" not in legal(build({"b3": "T", "b7": "L", "g9": "l"}))  # own piece


def test_entering_the_enemy_den_wins() -> None:
    game = build({"d8": "C", "a9": "l", "a1": "T"})
    assert game.outcome() is None
    game.play("d8d9")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "den"
    assert game.moves() == [] and game.is_over()
    # North wins the same way in d1.
    game = build({"d2": "c", "a9": "l", "a1": "T"}, side="n")
    game.play("d2d1")
    assert game.outcome() is not None and game.outcome().winner == 1  # type: ignore[union-attr]


def test_no_pieces_loses() -> None:
    game = build({"a2": "L", "a3": "c"})
    game.play("a2a3")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "no-pieces"
    assert game.moves() == []


def test_no_legal_move_loses() -> None:
    # The north rat in the corner faces a cat and a dog it cannot take: no move, north loses.
    game = build({"a9": "r", "a8": "C", "b9": "D"}, side="n")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "no-moves"
    # The same position with a weaker blocker is not blocked.
    assert build({"a9": "r", "a8": "E", "b9": "D"}, side="n").outcome() is None


def test_threefold_repetition_is_a_draw_by_adjudication() -> None:
    game = Jungle.start()
    shuffle = ["g1g2", "a9a8", "g2g1", "a8a9"]
    for move in shuffle:
        game.play(move)
    assert game.adjudication() is None  # second occurrence of the start
    for move in shuffle[:3]:
        game.play(move)
    assert game.adjudication() is None
    game.play(shuffle[3])
    adjudicated = game.adjudication()
    assert adjudicated is not None and adjudicated.winner is None
    assert adjudicated.reason == "repetition"
    assert game.outcome() is None  # the rules themselves do not end it
    game.pop()
    assert game.adjudication() is None


def test_illegal_moves_name_the_move_and_the_position() -> None:
    game = Jungle.start()
    with pytest.raises(IllegalMove) as info:
        game.play("a3b4")  # the elephant may not enter the water
    assert "a3b4" in str(info.value) and game.position() in str(info.value)
    assert "water" in str(info.value)
    with pytest.raises(IllegalMove, match="own den"):
        build({"d2": "C", "g9": "l"}).play("d2d1")
    with pytest.raises(IllegalMove, match="no south animal on d4"):
        game.play("d4d5")
    with pytest.raises(MoveSyntaxError):
        game.play("a3-a4")
    with pytest.raises(MoveSyntaxError):
        game.play("h1h2")
    game.play("a3a4")
    assert game.piece_at("a4") == "E"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1 s", "expected 9 ranks"),
        ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L", "fields"),
        ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L x", "side to move"),
        ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T4L s", "6 squares"),
        ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5Lx s", "unknown piece"),
        ("l5t/1d3c1/r1p1w1e/7/7/1E5/2W1P1R/1C3D1/T5L s", "elephant of south on b4 is in the water"),
        ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/5D1/T2C2L s", "cat of south on d1 is in its own den"),
        ("l2c2t/1d5/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L s", "own den"),
        ("l2C2t/1d5/r1p1w1e/7/7/7/E1W1P1R/7/T5L s", "enemy den"),
        ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T1E3L s", "two 'E'"),
        ("t6/7/7/7/7/7/7/7/7 n", "south has no animals but has just moved"),
    ],
)
def test_bad_position_texts_say_why(text: str, why: str) -> None:
    with pytest.raises(PositionError, match=why):
        Jungle.from_position(text)


def test_piece_of_the_mover_in_the_enemy_den_is_a_finished_game() -> None:
    game = Jungle.from_position("l2C2t/1d5/r1p1w1e/7/7/7/E1W1P1R/7/T5L n")
    assert game.outcome() is not None and game.outcome().reason == "den"  # type: ignore[union-attr]
    assert game.legal_moves() == []


def test_board_view_terrain_and_diagram() -> None:
    game = Jungle.start()
    view = game.board_view()
    assert (view.shape, view.columns, view.rows, len(view.cells)) == ("square", 7, 9, 63)
    terrain = [cell.terrain for cell in view.cells]
    assert terrain.count("water") == 12 and terrain.count("trap") == 6
    assert terrain.count("den") == 2
    by_xy = {(c.x, c.y): c for c in view.cells}
    assert by_xy[(3, 0)].terrain == "den" and by_xy[(3, 0)].extra == "south"
    assert by_xy[(3, 7)].terrain == "trap" and by_xy[(3, 7)].extra == "north"
    assert by_xy[(0, 2)].piece == "elephant" and by_xy[(0, 2)].side == 0
    assert by_xy[(6, 6)].piece == "elephant" and by_xy[(6, 6)].side == 1
    assert by_xy[(1, 3)].terrain == "water" and by_xy[(1, 3)].piece == ""
    lines = game.diagram().splitlines()
    assert lines[1].split() == ["9", "l", ".", "#", "*", "#", ".", "t"]
    assert lines[4].split() == ["6", ".", "~", "~", ".", "~", "~", "."]
