"""When a league's nights are played: ``22:00-07:00``, every day, in the machine's local time.

A :class:`NightWindow` is written as ``START-END`` (``HH:MM`` or ``HH:MM:SS`` each), in
``league.toml`` (``[league] schedule``) or after ``arena league run --nightly``. An end at or
before the start is on the next day (``22:00-07:00``: nine hours from ten in the evening).
Every function here is pure: it is handed the moment it reasons about, so that a clock in a
test decides what "now" is. Moments are seconds since the epoch; days are the local calendar's
(a window around a change of summer time lasts an hour more or less, as the wall clock says).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Final

EXAMPLE: Final = "22:00-07:00"


@dataclass(frozen=True)
class Span:
    """One night's window: from ``start`` to ``end`` (seconds since the epoch)."""

    start: float
    end: float

    def holds(self, moment: float) -> bool:
        return self.start <= moment < self.end


@dataclass(frozen=True)
class NightWindow:
    """Every day from ``start`` to ``end`` (the next day's when it is not later)."""

    start: datetime.time
    end: datetime.time

    def __str__(self) -> str:
        return f"{_clock_text(self.start)}-{_clock_text(self.end)}"

    def span_on(self, day: datetime.date) -> Span:
        """The window that opens on ``day``."""
        start = datetime.datetime.combine(day, self.start)
        end = datetime.datetime.combine(day, self.end)
        if end <= start:
            end += datetime.timedelta(days=1)
        return Span(start.timestamp(), end.timestamp())

    def current(self, moment: float) -> Span | None:
        """The window ``moment`` is in (opened today or yesterday); None between windows."""
        today = datetime.datetime.fromtimestamp(moment).date()
        for day in (today - datetime.timedelta(days=1), today):
            span = self.span_on(day)
            if span.holds(moment):
                return span
        return None

    def next_after(self, moment: float) -> Span:
        """The first window that opens after ``moment``."""
        day = datetime.datetime.fromtimestamp(moment).date()
        while True:
            span = self.span_on(day)
            if span.start > moment:
                return span
            day += datetime.timedelta(days=1)


def parse_window(text: str) -> NightWindow:
    """``"22:00-07:00"`` -> its :class:`NightWindow`; a :class:`ValueError` saying what is
    wrong otherwise (the caller names where it was written)."""
    start_text, dash, end_text = text.strip().partition("-")
    if not dash:
        raise ValueError(f"expected START-END, e.g. {EXAMPLE!r}, got {text!r}")
    start, end = _clock(start_text, text), _clock(end_text, text)
    if start == end:
        raise ValueError(f"{text!r} starts and ends at the same time: a night needs a length")
    return NightWindow(start, end)


def _clock(part: str, whole: str) -> datetime.time:
    part = part.strip()
    try:
        if len(part) not in (5, 8):  # HH:MM or HH:MM:SS, nothing looser
            raise ValueError
        value = datetime.time.fromisoformat(part)
    except ValueError:
        raise ValueError(f"{part!r} in {whole!r} is not a time of day (HH:MM or HH:MM:SS, "
                         f"00:00 to 23:59)") from None
    return value


def _clock_text(value: datetime.time) -> str:
    return value.strftime("%H:%M:%S" if value.second else "%H:%M")
