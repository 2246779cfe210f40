"""Time controls: cutechess texts, canonical round trips, clear errors, clock arithmetic."""

from __future__ import annotations

import pytest

from referee.timecontrol import Clock, TimeControl, TimeControlError


@pytest.mark.parametrize(
    ("text", "expected", "canonical"),
    [
        ("40/60+0.6", TimeControl(base_ms=60000, inc_ms=600, moves=40), "40/60+0.6"),
        ("10+0.1", TimeControl(base_ms=10000, inc_ms=100), "10+0.1"),
        ("60", TimeControl(base_ms=60000), "60"),
        ("1:30+1", TimeControl(base_ms=90000, inc_ms=1000), "90+1"),
        ("inf", TimeControl(), "inf"),
        ("st=0.5", TimeControl(movetime_ms=500), "st=0.5"),
        ("10+0.1 timemargin=50", TimeControl(base_ms=10000, inc_ms=100, margin_ms=50),
         "10+0.1 timemargin=50"),
        ("inf nodes=1000 depth=6", TimeControl(nodes=1000, depth=6), "inf nodes=1000 depth=6"),
        ("tc=40/60, timemargin=20", TimeControl(base_ms=60000, moves=40, margin_ms=20),
         "40/60 timemargin=20"),
        ("st=0.05", TimeControl(movetime_ms=50), "st=0.05"),
        ("st=0.02 timemargin=20 cpuwait=charged",
         TimeControl(movetime_ms=20, margin_ms=20, credit_waits=False),
         "st=0.02 timemargin=20 cpuwait=charged"),
        ("10+0.1 cpuwait=Credited", TimeControl(base_ms=10000, inc_ms=100), "10+0.1"),
    ],
)
def test_parse_and_canonical_text(text: str, expected: TimeControl, canonical: str) -> None:
    tc = TimeControl.parse(text)
    assert tc == expected
    assert str(tc) == canonical
    assert TimeControl.parse(str(tc)) == tc


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty time control"),
        ("ten+1", "bad base time 'ten'"),
        ("10+x", "bad increment 'x'"),
        ("0/60", "moves per period must be >= 1 in time control '0/60'"),
        ("-5", "must be >= 0"),
        ("10 20", "two clocks"),
        ("st=1 10+1", "exclude each other"),
        ("speed=3", "unknown key 'speed'"),
        ("nodes=many", "nodes= needs an integer, got 'many'"),
        ("st=1 cpuwait=no", "cpuwait= takes credited or charged, got 'no'"),
    ],
)
def test_bad_text_is_quoted(text: str, words: str) -> None:
    with pytest.raises(TimeControlError) as caught:
        TimeControl.parse(text)
    assert words in str(caught.value)
    if text:
        assert repr(text) in str(caught.value)


def test_sudden_death_clock_with_increment_and_margin() -> None:
    clock = Clock(TimeControl.parse("1+0.1 timemargin=20"))
    assert clock.budget_ms() == pytest.approx(1020)
    assert not clock.is_over(1010)  # inside the margin
    assert clock.is_over(1021)
    assert clock.spend(300) == pytest.approx(800)
    assert clock.spend(1000) == pytest.approx(100)  # overran into the margin: floor 0 + inc
    assert clock.moves_to_go() is None


def test_moves_per_period_adds_the_base_again() -> None:
    clock = Clock(TimeControl.parse("2/10"))
    assert clock.moves_to_go() == 2
    clock.spend(4000)
    assert clock.moves_to_go() == 1
    assert clock.spend(4000) == pytest.approx(12000)  # 2000 left + a new period of 10 s
    assert clock.moves_to_go() == 2


def test_move_time_and_infinite() -> None:
    per_move = Clock(TimeControl.parse("st=0.2 timemargin=10"))
    assert per_move.budget_ms() == pytest.approx(210)
    assert per_move.spend(150) is None
    unlimited = Clock(TimeControl.parse("inf depth=3"))
    assert unlimited.budget_ms() is None and not unlimited.is_over(10**9)
    assert TimeControl.parse("inf").infinite and not TimeControl.parse("st=1").infinite
