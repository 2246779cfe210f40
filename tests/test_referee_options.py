"""Game options reach the rules: declared names only, and the referee's draw-rules switch."""

from __future__ import annotations

import pytest

from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.games import GameError
from referee.match import game_options_for, prepare_start
from referee.order import GameOrder


def order(game: str, options: dict[str, str], adjudication: Adjudication | None = None
          ) -> GameOrder:
    """An order for ``game`` between two bots that are never started."""
    return GameOrder.checked(game, BotSpec(name="a", cmd=["a"]), BotSpec(name="b", cmd=["b"]),
                             game_options=options, adjudication=adjudication)


def test_unknown_option_is_refused_naming_the_accepted_ones() -> None:
    with pytest.raises(GameError, match=r"donkan has no option speed \(its options: target"):
        game_options_for("donkan", {"speed": "3"})
    with pytest.raises(GameError, match="its options: none"):
        prepare_start(order("draughts", {"target": "5"}))


def test_draw_rules_switch_reaches_donkan_partie_caps() -> None:
    off = game_options_for("donkan", {"target": "5"}, Adjudication(draw_rules=False))
    assert off == {"target": "5", "draw_rules": "false"}
    board = prepare_start(order("donkan", off)).board
    assert board.draw_rules is False and board.target == 5  # type: ignore[attr-defined]
    on = prepare_start(order("donkan", game_options_for("donkan", {}, Adjudication()))).board
    assert on.draw_rules is True  # type: ignore[attr-defined]


def test_games_without_draw_rules_option_get_none() -> None:
    assert game_options_for("jungle", {}, Adjudication(draw_rules=False)) == {}
