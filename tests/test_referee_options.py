"""Game options reach the rules: declared names only, and the referee's draw-rules switch."""

from __future__ import annotations

import pytest

from referee.adjudication import Adjudication
from referee.games import GameError
from referee.match import game_options_for, prepare_game


def test_unknown_option_is_refused_naming_the_accepted_ones() -> None:
    with pytest.raises(GameError, match=r"donkan has no option speed \(its options: target"):
        game_options_for("donkan", {"speed": "3"})
    with pytest.raises(GameError, match="its options: none"):
        prepare_game("draughts", None, (), {"target": "5"})


def test_draw_rules_switch_reaches_donkan_partie_caps() -> None:
    off = game_options_for("donkan", {"target": "5"}, Adjudication(draw_rules=False))
    assert off == {"target": "5", "draw_rules": "false"}
    board, _ = prepare_game("donkan", None, (), off)
    assert board.draw_rules is False and board.target == 5  # type: ignore[attr-defined]
    on, _ = prepare_game("donkan", None, (), game_options_for("donkan", {}, Adjudication()))
    assert on.draw_rules is True  # type: ignore[attr-defined]


def test_games_without_draw_rules_option_get_none() -> None:
    assert game_options_for("jungle", {}, Adjudication(draw_rules=False)) == {}
