"""The game order: checked once when built, and the same value after it travels."""

from __future__ import annotations

import pickle

import msgspec
import pytest

from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.games import GameError
from referee.match import prepare_start
from referee.order import GameOrder
from referee.timecontrol import TimeControl

A = BotSpec(name="a", cmd=["a"])
B = BotSpec(name="b", cmd=["b"], tc="st=0.05")


def test_an_order_travels_unchanged_by_pickle_msgpack_and_json() -> None:
    order = GameOrder.checked(
        "donkan", A, B, tc=(TimeControl.parse("10+0.1"), TimeControl.parse("st=0.05 nodes=9")),
        opening=["c1b2"], adjudication=Adjudication(max_plies=80, draw_rules=False),
        game_options={"target": "5"}, id="r1-p01-g2", round=1, tags={"pair": "r1-p01-k1"})
    assert pickle.loads(pickle.dumps(order)) == order  # what Dask does to a task's arguments
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(order), type=GameOrder) == order
    assert msgspec.json.decode(msgspec.json.encode(order), type=GameOrder) == order


def test_the_checked_constructor_resolves_defaults_and_checks_options() -> None:
    order = GameOrder.checked("donkan", A, B, start_position="")
    assert order.time_controls == (TimeControl(), TimeControl()) and order.time_control == "inf"
    assert order.start_position is None and order.game_options == {"draw_rules": "true"}
    both = GameOrder.checked("jungle", A, B, tc=TimeControl.parse("10+0.1"))
    assert both.time_control == "10+0.1"  # the bots' own tc texts are the config's to read
    sides = GameOrder.checked("jungle", A, B, tc=(TimeControl.parse("1+0"),
                                                  TimeControl.parse("st=0.05")))
    assert sides.time_control == "p1: 1 | p2: st=0.05"
    with pytest.raises(GameError, match="jungle has no option target"):
        GameOrder.checked("jungle", A, B, game_options={"target": "5"})
    with pytest.raises(GameError, match="unknown game"):
        GameOrder.checked("chess", A, B)


def test_the_start_is_prepared_once_and_each_game_gets_its_own_board() -> None:
    order = GameOrder.checked("dobutsu", A, B, opening=["b1a2", "b4c3"])
    first, second = prepare_start(order), prepare_start(order)
    assert first.book == ((0, "b1a2"), (1, "b4c3")) and first.first == 0
    assert first.board is not second.board and first.board.ply == 2
    first.board.play(first.board.legal_moves()[0])
    assert second.board.ply == 2 and prepare_start(order).board.ply == 2
    assert first.initial().ply == 0 and first.initial().position() == first.text
    with pytest.raises(GameError, match="opening move 2 'z9z9'"):
        prepare_start(GameOrder.checked("dobutsu", A, B, opening=["b1a2", "z9z9"]))
