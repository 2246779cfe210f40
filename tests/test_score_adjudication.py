"""Score adjudication from the bots' own ``info score`` (cutechess ``-resign`` / ``-draw``),
with scripted native bots (tests/scripted.py) on trio's autojump clock: the rule is the
referee's, no process is needed to check it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import pytest
import trio
from scripted import ScriptedBot, native, play_scripted
from trio.testing import MockClock

from referee.adjudication import Adjudication, DrawRule, ResignRule, ScoreWatch
from referee.record import GameRecord, Termination


def scorer(name: str, score: str, start: int = 1) -> ScriptedBot:
    """A bot that plays the first legal move and, from its ``start``-th move on (1-based),
    reports ``info depth 1 score cp SCORE`` before it (``mate``: ``score mate 3``; ``alt``:
    +900 and -900 in turn); before that it reports no score."""

    def move(legal: Sequence[str], made: int) -> list[Any]:
        number = made + 1
        said: list[Any] = []
        if number >= start:
            if score == "mate":
                said.append("info depth 1 score mate 3")
            elif score == "alt":
                said.append(f"info depth 1 score cp {900 if number % 2 else -900}")
            else:
                said.append(f"info depth 1 score cp {int(score)}")
        return [*said, f"bestmove {legal[0]}"]

    return native(name, move)


async def play(p1: ScriptedBot, p2: ScriptedBot, adjudication: Adjudication) -> GameRecord:
    with trio.fail_after(60):
        # jungle: long games with the first legal move, so the rules do not end them first
        return await play_scripted("jungle", p1, p2, adjudication=adjudication)


async def test_resign_when_the_loser_reports_it_for_long_enough(autojump_clock: MockClock) -> None:
    rules = Adjudication(resign=ResignRule(score=500, moves=3))
    record = await play(scorer("hopeless", "-800"), scorer("calm", "0"), rules)
    assert record.termination is Termination.ADJUDICATION and record.adjudication == "resign"
    assert record.winner == 1 and record.result == "0-1"
    assert record.plies == 5  # the loser's third move, p1 moving first
    assert "p1 (hopeless) resigns by adjudication" in record.reason
    assert "-500 cp or worse on 3 moves in a row" in record.reason


async def test_twosided_resign_needs_the_winner_to_agree(autojump_clock: MockClock) -> None:
    rules = Adjudication(resign=ResignRule(score=500, moves=3, twosided=True), max_plies=30,
                         draw_rules=False)
    record = await play(scorer("hopeless", "-800"), scorer("calm", "0"), rules)
    assert record.adjudication == "max_plies"  # the opponent never agreed
    record = await play(scorer("hopeless", "-800"), scorer("sure", "mate", start=3), rules)
    assert record.adjudication == "resign" and record.winner == 1
    assert record.plies == 10  # p2's third scored move is its fifth, ply 10
    assert "p2 (sure)'s +500 cp or better as long (twosided)" in record.reason


async def test_a_broken_run_of_scores_starts_again(autojump_clock: MockClock) -> None:
    rules = Adjudication(resign=ResignRule(score=500, moves=2), max_plies=24,
                         draw_rules=False)
    record = await play(scorer("swings", "alt"), scorer("calm", "0"), rules)
    assert record.adjudication == "max_plies" and record.winner is None


async def test_draw_when_both_report_a_level_game_after_the_given_move(
        autojump_clock: MockClock) -> None:
    rules = Adjudication(draw=DrawRule(after=6, moves=3, score=10))
    record = await play(scorer("a", "5"), scorer("b", "-10"), rules)
    assert record.termination is Termination.ADJUDICATION and record.adjudication == "draw"
    assert record.result == "1/2-1/2" and record.plies == 12  # move 6 of each side
    assert "both scores within 10 cp of 0 on 3 moves in a row each, after move 6" in \
        record.reason
    record = await play(scorer("a", "5"), scorer("b", "40"), Adjudication(
        draw=DrawRule(moves=3, score=10), max_plies=20, draw_rules=False))
    assert record.adjudication == "max_plies"  # b's score is never level


async def test_moves_without_a_score_count_for_nothing(autojump_clock: MockClock) -> None:
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
