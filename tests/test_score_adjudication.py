"""Score adjudication from the bots' own ``info score`` (cutechess ``-resign`` / ``-draw``),
with real scripted bots (tests/bots/score_bot.py) over the native protocol."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec
import pytest
import trio

from referee.adjudication import Adjudication, DrawRule, ResignRule, ScoreWatch
from referee.botspec import BotSpec
from referee.match import play_game
from referee.order import GameOrder
from referee.record import GameRecord, Termination

SCORE_BOT = str(Path(__file__).resolve().parent / "bots" / "score_bot.py")


def scorer(name: str, score: str, start: int = 1) -> BotSpec:
    return BotSpec(name=name, cmd=[sys.executable, SCORE_BOT, score, str(start)])


async def play(p1: BotSpec, p2: BotSpec, adjudication: Adjudication) -> GameRecord:
    with trio.fail_after(60):
        # jungle: long games with the first legal move, so the rules do not end them first
        return await play_game(GameOrder.checked("jungle", p1, p2, adjudication=adjudication))


async def test_resign_when_the_loser_reports_it_for_long_enough() -> None:
    rules = Adjudication(resign=ResignRule(score=500, moves=3))
    record = await play(scorer("hopeless", "-800"), scorer("calm", "0"), rules)
    assert record.termination is Termination.ADJUDICATION and record.adjudication == "resign"
    assert record.winner == 1 and record.result == "0-1"
    assert record.plies == 5  # the loser's third move, p1 moving first
    assert "p1 (hopeless) resigns by adjudication" in record.reason
    assert "-500 cp or worse on 3 moves in a row" in record.reason


async def test_twosided_resign_needs_the_winner_to_agree() -> None:
    rules = Adjudication(resign=ResignRule(score=500, moves=3, twosided=True), max_plies=30,
                         draw_rules=False)
    record = await play(scorer("hopeless", "-800"), scorer("calm", "0"), rules)
    assert record.adjudication == "max_plies"  # the opponent never agreed
    record = await play(scorer("hopeless", "-800"), scorer("sure", "mate", start=3), rules)
    assert record.adjudication == "resign" and record.winner == 1
    assert record.plies == 10  # p2's third scored move is its fifth, ply 10
    assert "p2 (sure)'s +500 cp or better as long (twosided)" in record.reason


async def test_a_broken_run_of_scores_starts_again() -> None:
    rules = Adjudication(resign=ResignRule(score=500, moves=2), max_plies=24,
                         draw_rules=False)
    record = await play(scorer("swings", "alt"), scorer("calm", "0"), rules)
    assert record.adjudication == "max_plies" and record.winner is None


async def test_draw_when_both_report_a_level_game_after_the_given_move() -> None:
    rules = Adjudication(draw=DrawRule(after=6, moves=3, score=10))
    record = await play(scorer("a", "5"), scorer("b", "-10"), rules)
    assert record.termination is Termination.ADJUDICATION and record.adjudication == "draw"
    assert record.result == "1/2-1/2" and record.plies == 12  # move 6 of each side
    assert "both scores within 10 cp of 0 on 3 moves in a row each, after move 6" in \
        record.reason
    record = await play(scorer("a", "5"), scorer("b", "40"), Adjudication(
        draw=DrawRule(moves=3, score=10), max_plies=20, draw_rules=False))
    assert record.adjudication == "max_plies"  # b's score is never level


async def test_moves_without_a_score_count_for_nothing() -> None:
    rules = Adjudication(draw=DrawRule(moves=3, score=10))
    record = await play(scorer("late", "0", start=5), scorer("b", "0"), rules)
    assert record.adjudication == "draw" and record.plies == 13  # late's 5th-7th moves


def test_score_watch_counts_per_side() -> None:
    watch = ScoreWatch(Adjudication(resign=ResignRule(score=100, moves=2)))
    assert watch.observe(0, -150, 1) is None
    assert watch.observe(1, None, 2) is None
    verdict = watch.observe(0, -100, 3)
    assert verdict is not None and verdict.winner == 1 and verdict.rule == "resign"


@pytest.mark.parametrize(("text", "words"), [
    ("resign = { score = 0 }", "Expected `int` >= 1"),
    ("resign = { score = 500, movez = 3 }", "unknown field `movez`"),
    ("draw = { score = 10 }", "missing required field `moves`"),
])
def test_bad_adjudication_settings_name_the_field(text: str, words: str) -> None:
    import tomllib

    with pytest.raises(msgspec.ValidationError, match=words):
        msgspec.convert(tomllib.loads(text), Adjudication)
