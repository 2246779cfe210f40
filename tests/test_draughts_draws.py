"""FMJD draw rules as the draughts default adjudication (docs/rules.md, section Draughts), with
the counters kept right through push, pop and copy."""

from __future__ import annotations

import pytest

from referee.games.draughts import Draughts


def king_walk(g: Draughts, plies: int) -> None:
    """Play ``plies`` king moves that capture nothing, never repeat a position and never
    offer the opponent a capture, so that only the rule under test can apply (depth-first,
    backtracking when a side runs out of such moves)."""
    seen = {g.repetition_key()}

    def walk(left: int) -> bool:
        if left == 0:
            return True
        for move in g.moves():
            if move.captured or g.piece_at(move.start) != (g.side_to_move, "K"):
                continue
            g.push(move)
            key = g.repetition_key()
            replies = g.moves()
            if key not in seen and replies and not replies[0].captured:
                seen.add(key)
                if walk(left - 1):
                    return True
                seen.discard(key)
            g.pop()
        return False

    assert walk(plies), f"no quiet king walk of {plies} plies from {g.position()}"


def test_threefold_repetition_same_side_to_move() -> None:
    g = Draughts.from_position("W:WK46,31,32:BK5,19,20")
    shuffle = ["46-41", "5-10", "41-46", "10-5"]
    for i, move in enumerate(shuffle * 2):
        assert g.adjudication() is None, f"too early, after {i} plies"
        g.play(move)
    outcome = g.adjudication()
    assert outcome is not None and outcome.reason == "repetition" and outcome.winner is None
    assert outcome.result == "1/2-1/2"
    assert g.outcome() is None  # adjudication, not a rule of the game itself
    g.pop()
    assert g.adjudication() is None
    copy = g.copy()
    copy.play("10-5")
    assert copy.adjudication() is not None and g.adjudication() is None


def test_repetition_needs_the_same_side_to_move() -> None:
    # The same placement with the other side to move is not the same position.
    a = Draughts.from_position("W:WK46,31:BK5,20")
    b = Draughts.from_position("B:WK46,31:BK5,20")
    assert a.repetition_key() != b.repetition_key()


def test_man_move_breaks_repetition_count() -> None:
    g = Draughts.from_position("W:WK46,31,32:BK5,19,20")
    for move in ["46-41", "5-10", "41-46", "10-5", "31-27", "19-23"]:
        g.play(move)
    assert g.adjudication() is None


def test_25_moves_with_only_kings() -> None:
    g = Draughts.from_position("W:WK47,K48,26,36:BK1,K3,15,25")
    king_walk(g, 49)
    assert g.adjudication() is None
    king_walk(g, 1)
    outcome = g.adjudication()
    assert outcome is not None and outcome.reason == "25-move-rule"
    g.pop()
    assert g.adjudication() is None
    # A man move resets the count.
    g.push(next(m for m in g.moves() if g.piece_at(m.start) == (g.side_to_move, "m")))
    king_walk(g, 49)
    assert g.adjudication() is None


@pytest.mark.parametrize(
    ("fen", "reason", "plies"),
    [
        ("W:WK47,K48,K49:BK3", "16-move-rule", 32),  # three kings v king
        ("W:WK47,K48,36:BK3", "16-move-rule", 32),  # two kings and a man v king
        ("B:WK47,36,37:BK3", "16-move-rule", 32),  # king and two men v king
        ("W:WK47,K48:BK3", "5-move-rule", 10),  # two kings v king
        ("W:WK47,36:BK3", "5-move-rule", 10),  # king and man v king
        ("B:WK47:BK3", "5-move-rule", 10),  # king v king
        ("W:WK3:BK46,K47,K48", "16-move-rule", 32),  # black the stronger side
    ],
)
def test_fmjd_endgame_counts(fen: str, reason: str, plies: int) -> None:
    g = Draughts.from_position(fen)
    king_walk(g, plies - 1)
    assert g.adjudication() is None
    king_walk(g, 1)
    outcome = g.adjudication()
    assert outcome is not None and outcome.reason == reason
    assert g.copy().adjudication() == outcome
    g.pop()
    assert g.adjudication() is None


def test_endgame_counts_do_not_apply_to_other_material() -> None:
    # Four kings against one, and three men against a king, are not drawn endgames.
    for fen in ("W:WK47,K48,K49,K50:BK3", "W:WK47,36,37,38:BK3"):
        g = Draughts.from_position(fen)
        king_walk(g, 32)
        assert g.adjudication() is None, fen


def test_endgame_count_restarts_when_the_group_changes() -> None:
    # Two kings and a man against a king (16 moves); the lone king takes the man: now two
    # kings against one king, and the 5-move count starts from zero.
    g = Draughts.from_position("B:WK47,K48,23:BK19")
    assert g.legal_moves() == ["19x28", "19x32", "19x37", "19x41", "19x46"]
    g.play("19x32")
    king_walk(g, 9)
    assert g.adjudication() is None
    king_walk(g, 1)
    outcome = g.adjudication()
    assert outcome is not None and outcome.reason == "5-move-rule"


# The reproduction of the clarified rule (docs/rules.md, section Draughts, draw rules).
FIVE_MOVE_START = "W:WK46,K50:BK1,K5"
FIVE_MOVE_LINE = [
    "50-39", "1-7", "39-30", "7-18", "30-2", "18-29", "46-23", "5x32", "2-8", "29-23", "8-26",
    "32-27", "26-8", "23-1", "8-17", "27-21", "17x26", "1-18",
]


def test_a_capture_restarts_the_5_move_count_inside_the_same_group() -> None:
    g = Draughts.new(FIVE_MOVE_START, FIVE_MOVE_LINE)
    # 5x32 made two kings v king (count from zero); 17x26 made king v king: a new balance,
    # so the count restarted there and only one ply (1-18) has been played since.
    assert g.position() == "W:WK26:BK18"
    assert g.adjudication() is None
    assert g.outcome() is None
    assert g.copy().adjudication() is None
    # The restarted count still ends the game, 5 moves each after 17x26.
    king_walk(g, 8)
    assert g.adjudication() is None
    king_walk(g, 1)
    outcome = g.adjudication()
    assert outcome is not None and outcome.reason == "5-move-rule"
    # Taking moves back and playing them again keeps the counts right.
    for _ in range(11):
        g.pop()
    g.play("17x26")
    g.play("1-18")
    assert g.position() == "W:WK26:BK18" and g.adjudication() is None


def test_repetition_window_survives_pop_and_copy_across_a_man_move() -> None:
    shuffle = ["46-41", "5-10", "41-46", "10-5"]
    g = Draughts.new("W:WK46,31,32:BK5,19,20", [*shuffle, "31-27", "19-23", *shuffle])
    assert g.repetitions() == 2 and g.adjudication() is None  # the man moves began a window
    twin = g.copy()
    for _ in range(6):  # back before the man moves: the first window's counts come back
        twin.pop()
    assert twin.repetitions() == 2
    twin.play("46-41")
    twin.play("5-10")
    assert twin.repetitions() == 2
    for move in ["41-46", "10-5"]:
        twin.play(move)
    assert twin.adjudication() is not None and twin.adjudication().reason == "repetition"  # type: ignore[union-attr]
    g.play("46-41")  # the original is untouched by what its copy did
    assert g.repetitions() == 2 and g.adjudication() is None
    for move in ["5-10", "41-46", "10-5"]:
        g.play(move)
    assert g.repetitions() == 3 and g.adjudication() is not None
