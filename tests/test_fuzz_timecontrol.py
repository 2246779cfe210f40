"""Fuzzing time-control texts: any text gives a :class:`TimeControl` whose numbers are finite
(the referee rounds them into ``go`` lines) and whose text reads back the same, or a
:class:`TimeControlError` quoting it; never OverflowError, ZeroDivisionError or the like."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.timecontrol import Clock, TimeControl, TimeControlError

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples

FUZZ = settings(max_examples=300, deadline=None, derandomize=True)  # same examples in CI

numbers = st.one_of(
    st.integers(min_value=-5, max_value=10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1e308", "1e309", "9" * 400, "0", "0.0", "-0", ".5", "5.", "1_000", "٣",
                     "inf", "nan", "0x10", "", " "]),
)
clock = st.one_of(
    st.builds(lambda a, b: f"{a}+{b}", numbers, numbers),
    st.builds(lambda m, a: f"{m}/{a}", numbers, numbers),
    st.builds(lambda m, s: f"{m}:{s}", numbers, numbers),
    st.sampled_from(["inf", "infinite", "40/60+0.6", "10+0.1", "1:30+1"]),
    numbers,
)
extra = st.builds(lambda k, v: f"{k}={v}",
                  st.sampled_from(["st", "timemargin", "nodes", "depth", "tc", "ST", "x", ""]),
                  numbers | clock)
texts = st.one_of(
    st.lists(clock | extra, min_size=0, max_size=4).map(" ".join),
    st.lists(clock | extra, min_size=1, max_size=3).map(",".join),
    st.text(max_size=30),
)


@FUZZ
@given(texts)
@example("0+1e308")  # once an infinite increment (fixed)
@example("10 timemargin=" + "9" * 400)  # once an OverflowError (fixed)
@example("9" * 400 + ":0")  # once an OverflowError (fixed)
def test_time_controls_parse_or_raise_time_control_error(text: str) -> None:
    try:
        tc = TimeControl.parse(text)
    except TimeControlError as exc:
        assert str(exc)
        return
    for value in (tc.base_ms, tc.inc_ms, tc.movetime_ms, tc.margin_ms):
        assert value is None or (math.isfinite(value) and value >= 0), (text, tc)
    assert TimeControl.parse(str(tc)) == tc or _close(TimeControl.parse(str(tc)), tc)
    clock_ = Clock(tc)
    for _ in range(3):
        budget = clock_.budget_ms()
        if budget is not None:
            round(budget)
        clock_.moves_to_go()
        if not clock_.is_over(1.0):
            left = clock_.spend(1.0)
            if left is not None:
                round(left)


def _close(a: TimeControl, b: TimeControl) -> bool:
    """str() keeps milliseconds to three decimals of a second: equal to within a millisecond."""
    pairs = [(a.base_ms, b.base_ms), (a.inc_ms, b.inc_ms), (a.movetime_ms, b.movetime_ms)]
    return a.moves == b.moves and a.nodes == b.nodes and a.depth == b.depth and all(
        (x is None) == (y is None) and (x is None or y is None or abs(x - y) <= 1)
        for x, y in pairs)
