"""protocol/SPEC.md names every built-in game's start position text and every game option the
referee can send, so the document cannot drift from the rules silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.games import get_game

SPEC = (Path(__file__).resolve().parent.parent / "protocol" / "SPEC.md").read_text()


@pytest.mark.parametrize("game", ["draughts", "jungle", "dobutsu", "dvonn", "donkan"])
def test_spec_gives_the_start_text_and_options(game: str) -> None:
    rules = get_game(game)
    assert f"| `{game}` | " in SPEC
    assert f"`{rules.START_POSITION}`" in SPEC, f"SPEC.md lacks {game}'s start position text"
    for option in rules.OPTIONS:
        assert f"| `{game}` | `{option}` |" in SPEC, f"SPEC.md lacks {game}'s option {option}"


def test_spec_has_the_dialect_sections() -> None:
    assert "## The UCI dialect" in SPEC and "## The Hub dialect" in SPEC


def test_the_draughts_majority_example_is_what_the_rules_say() -> None:
    """SPEC.md's example of a short-form capture under the majority rule, checked against the
    rules: the legal line, the pieces the short form takes, the refused single capture."""
    from referee.games.base import IllegalMove

    assert "In `W:W28:B12,22,23` the\n  line is `legal 28x8`" in SPEC
    board = get_game("draughts").from_position("W:W28:B12,22,23")
    assert board.legal_moves() == ["28x8"]
    assert sorted(board.parse_move("28x8").captured) == [12, 22]
    with pytest.raises(IllegalMove, match="majority rule"):
        board.parse_move("28x19")


def test_spec_says_who_starts_after_a_drawn_donkan_partie() -> None:
    """The sentence tests/test_donkan_round.py holds the rules to."""
    assert "after a drawn partie (no point: `ply-cap` or `repetition`), the player who did\n" \
        "  not move first in it moves first in the next" in SPEC
