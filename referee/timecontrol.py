"""Time controls in cutechess-cli's vocabulary, and the clock that enforces one for each side.

Text forms (items separated by spaces, first the clock, then ``key=value`` extras):

* ``40/60+0.6`` -- 40 moves in 60 s, 0.6 s increment; the base is added again every 40 moves
* ``10+0.1``, ``60``, ``1:30+1`` -- sudden death (base in seconds or ``m:ss``) plus increment
* ``inf`` -- no clock (use with ``nodes=`` or ``depth=``)
* ``st=0.5`` -- a fixed time per move (``go movetime 500``)
* ``timemargin=50`` -- milliseconds a bot may overrun before it forfeits (default 0)
* ``nodes=10000``, ``depth=6`` -- search limits passed on in ``go``
* ``cpuwait=charged`` -- charge the time a bot's threads wait for a CPU to its clock; by
  default (``cpuwait=credited``) that wait is not charged (:mod:`referee.process.schedstat`)

``str()`` gives the canonical text, which :meth:`TimeControl.parse` reads back identically.
A :class:`TimeControl` is a frozen msgspec Struct: parsed once where the text comes in (a
config, a command line, the web seat), it travels as a value inside a game order (pickled to a
cluster worker, encodable as msgpack or JSON).

Every number is bounded (:data:`MAX_BASE_S` and the others below): a clock must fit the
protocol's 64-bit integers in ``go`` and the referee's deadlines, and a mistyped ``tc`` is
better an error quoting it than a game that waits for ever.
"""

from __future__ import annotations

import math
from typing import Final

import msgspec

DEFAULT_MARGIN_MS: Final = 0

MAX_BASE_S: Final = 7 * 24 * 3600
"""Longest base time (a week): a correspondence game's clock; a period's base in ``40/60``."""
MAX_INCREMENT_S: Final = 24 * 3600
"""Longest increment (a day a move)."""
MAX_MOVETIME_S: Final = 24 * 3600
"""Longest fixed time per move (``st=``, a day)."""
MAX_MARGIN_MS: Final = 24 * 3600 * 1000
"""Longest ``timemargin=`` (a day, in milliseconds)."""
_SPANS: Final = {MAX_BASE_S: "a week", MAX_INCREMENT_S: "a day", MAX_MOVETIME_S: "a day"}


class TimeControlError(ValueError):
    """A time-control text that cannot be read; the message quotes it and says why."""


def _seconds(text: str, item: str, whole: str, most: int) -> float:
    """Seconds from ``s``, ``s.f`` or ``m:ss``, at most ``most``; errors quote the whole text."""
    try:
        if ":" in text:
            minutes, _, secs = text.partition(":")
            value = int(minutes) * 60 + float(secs)
        else:
            value = float(text)
    except (ValueError, OverflowError):  # OverflowError: minutes too many for a float
        raise TimeControlError(f"bad {item} {text!r} in time control {whole!r}") from None
    if not math.isfinite(value * 1000) or value < 0:  # in ms it must still be a number
        raise TimeControlError(f"{item} {text!r} must be >= 0 and finite in time control "
                               f"{whole!r}")
    if value > most:
        raise TimeControlError(f"{item} {text!r} is more than the maximum of {most} s "
                               f"({_SPANS[most]}) in time control {whole!r}")
    return value


def _fmt_seconds(ms: float) -> str:
    text = f"{ms / 1000:.3f}".rstrip("0").rstrip(".")
    return text or "0"


class TimeControl(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One side's time control. All times in milliseconds."""

    base_ms: float | None = None
    """Clock at the start (and added again every ``moves`` moves); None = no clock."""
    inc_ms: float = 0.0
    """Added to the clock after each move."""
    moves: int | None = None
    """Moves per period (the ``40`` of ``40/60``); None = sudden death."""
    movetime_ms: float | None = None
    """Fixed time per move (``st=``); excludes a clock."""
    margin_ms: float = DEFAULT_MARGIN_MS
    """Overrun allowed before a time forfeit (``timemargin=``)."""
    nodes: int | None = None
    depth: int | None = None
    credit_waits: bool = True
    """A clocked move's time waiting for a CPU (the machine's, not the bot's) is not charged
    (``cpuwait=credited``, the default); ``cpuwait=charged``: wall time is charged whole."""

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read a time control text; :class:`TimeControlError` quotes what is wrong."""
        items = text.replace(",", " ").split()
        if not items:
            raise TimeControlError("empty time control; expected e.g. '10+0.1', '40/60', 'st=1'")
        fields: dict[str, float | int | None] = {}
        clock_seen = False
        for item in items:
            key, eq, value = item.partition("=")
            if eq:
                key = key.lower()
                if key == "st":
                    fields["movetime_ms"] = _seconds(value, "move time", text,
                                                     MAX_MOVETIME_S) * 1000
                elif key == "timemargin":
                    fields["margin_ms"] = float(_int(value, "timemargin=", text,
                                                     most=MAX_MARGIN_MS))
                elif key in ("nodes", "depth"):
                    fields[key] = _int(value, f"{key}=", text, minimum=1)
                elif key == "tc":
                    fields.update(_clock(value, text))
                    clock_seen = True
                elif key == "cpuwait":
                    if value.lower() not in ("credited", "charged"):
                        raise TimeControlError(f"cpuwait= takes credited or charged, got "
                                               f"{value!r} in time control {text!r}")
                    fields["credit_waits"] = value.lower() == "credited"
                else:
                    raise TimeControlError(
                        f"unknown key {key!r} in time control {text!r}; "
                        "known: st, timemargin, nodes, depth, tc, cpuwait"
                    )
            elif clock_seen:
                raise TimeControlError(f"two clocks ({item!r}) in time control {text!r}")
            else:
                fields.update(_clock(item, text))
                clock_seen = True
        tc = cls(**fields)  # type: ignore[arg-type]
        if tc.movetime_ms is not None and tc.base_ms is not None:
            raise TimeControlError(f"st= and a clock exclude each other in {text!r}")
        return tc

    def __str__(self) -> str:
        parts: list[str] = []
        if self.movetime_ms is not None:
            parts.append(f"st={_fmt_seconds(self.movetime_ms)}")
        elif self.base_ms is None:
            parts.append("inf")
        else:
            clock = _fmt_seconds(self.base_ms)
            if self.moves is not None:
                clock = f"{self.moves}/{clock}"
            if self.inc_ms:
                clock += f"+{_fmt_seconds(self.inc_ms)}"
            parts.append(clock)
        if self.margin_ms:
            parts.append(f"timemargin={round(self.margin_ms)}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if not self.credit_waits:
            parts.append("cpuwait=charged")
        return " ".join(parts)

    @property
    def infinite(self) -> bool:
        """No clock and no move time: the bot may think as long as it likes."""
        return self.base_ms is None and self.movetime_ms is None


_INT_MAX: Final = 10**15
"""Largest count or millisecond margin accepted (it must still fit a float exactly)."""


def _int(value: str, key: str, whole: str, minimum: int = 0, most: int = _INT_MAX) -> int:
    try:
        number = int(value)
    except ValueError:
        raise TimeControlError(
            f"{key} needs an integer, got {value!r} in time control {whole!r}"
        ) from None
    if number < minimum:
        raise TimeControlError(f"{key} must be >= {minimum} in time control {whole!r}")
    if number > most:
        raise TimeControlError(f"{key} {value!r} is too large (at most {most}) in time "
                               f"control {whole!r}")
    return number


def _clock(item: str, whole: str) -> dict[str, float | int | None]:
    """``[moves/]base[+inc]`` or ``inf``."""
    if item.lower() in ("inf", "infinite"):
        return {}
    moves: int | None = None
    if "/" in item:
        count, _, item = item.partition("/")
        moves = _int(count, "moves per period", whole, minimum=1)
    base, plus, inc = item.partition("+")
    fields: dict[str, float | int | None] = {
        "base_ms": _seconds(base, "base time", whole, MAX_BASE_S) * 1000,
        "moves": moves,
    }
    if plus:
        fields["inc_ms"] = _seconds(inc, "increment", whole, MAX_INCREMENT_S) * 1000
    return fields


class Clock:
    """One side's clock during a game: time left, moves in the period, forfeit check.

    Time runs from sending ``go`` to reading ``bestmove``, less the time the bot's threads
    waited for a CPU (the caller measures it: :mod:`referee.process.schedstat`); the increment
    is added after the move. A bot forfeits when it uses more than its time left plus the
    margin."""

    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        self.remaining_ms: float | None = tc.base_ms
        self.moves_made = 0

    def budget_ms(self) -> float | None:
        """The longest this move may take before a forfeit (margin included); None = unlimited."""
        if self.tc.movetime_ms is not None:
            return self.tc.movetime_ms + self.tc.margin_ms
        if self.remaining_ms is None:
            return None
        return self.remaining_ms + self.tc.margin_ms

    def moves_to_go(self) -> int | None:
        if self.tc.moves is None or self.remaining_ms is None:
            return None
        return self.tc.moves - self.moves_made % self.tc.moves

    def is_over(self, elapsed_ms: float) -> bool:
        budget = self.budget_ms()
        return budget is not None and elapsed_ms > budget

    def spend(self, elapsed_ms: float) -> float | None:
        """Charge a move's time, then add the increment and a new period's base if due; returns
        the time left (None without a clock). Call only when :meth:`is_over` is False."""
        self.moves_made += 1
        if self.remaining_ms is None:
            return None
        self.remaining_ms = max(self.remaining_ms - elapsed_ms, 0.0) + self.tc.inc_ms
        if self.tc.moves is not None and self.moves_made % self.tc.moves == 0:
            self.remaining_ms += self.tc.base_ms or 0.0
        return self.remaining_ms
