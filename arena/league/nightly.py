"""Nights on a schedule: ``arena league run DIR --nightly 22:00-07:00``, one command left
running for months.

The loop is the whole of it: at each window's start a night opens (:func:`run_night`, its
deadline the window's end), plays until its deadline, closes, and the loop sleeps until the
next window. Each night ends in one line, said and appended to ``nights/nightly.log``.

A restart finds its place from the league's own files, never from memory: an open night is
resumed (within its window until the window's end; after it, with its own deadline, which has
passed, so it closes at once with the games it has); a window already served by a night that
began in it is not served twice; a window under way that no night has begun (the command was
down at its start) opens its night at once, late; otherwise the loop sleeps until the next
start. One scheduler per league (``nights/.nightly.lock``). A night that cannot begin (fewer
than two active versions, a night begun by hand that holds the nights' lock) is said once and
tried again every minute while its window lasts.

Everything that tells the time is handed in (``clock`` and ``sleep``): a test's clock moves
with the games and its sleep moves the clock, so two nights cost no real day.
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import msgspec

from arena.errors import UserError
from arena.filelock import hold
from arena.league.night import (
    NightOutcome,
    NightSettings,
    new_night_name,
    open_night,
    read_state,
    run_night,
)
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import load_settings
from arena.leaguedir.nightwindow import EXAMPLE, NightWindow, Span
from arena.run.driver import EXIT_INTERRUPTED

RETRY_S: Final = 60.0
"""How long the loop waits before it tries a night again that failed or could not begin."""
NAP_S: Final = 60.0
"""The longest single sleep: the wall clock is looked at again after it (a machine suspended
or a clock set meanwhile)."""
LOCK_FILE: Final = ".nightly.lock"
LOG_FILE: Final = "nightly.log"


@dataclass(frozen=True)
class NightlySettings:
    """``arena league run --nightly``: how each night is played (``night``: its league,
    concurrency, games cap, messages...), and when."""

    night: NightSettings
    window: NightWindow | None = None
    """None: ``league.toml``'s ``[league] schedule``."""
    sleep: Callable[[float], None] = field(default=time.sleep)
    """Waits this many seconds (a test's moves its clock, ``night.clock``, instead)."""
    nights: int | None = None
    """Return after this many nights closed (None: never; a test stops after two)."""


def run_nightly(settings: NightlySettings) -> int:
    """Play the league's nights on their schedule until stopped; the exit status when it
    stops (130 when interrupted)."""
    league = LeagueDir(settings.night.league)
    if not league.config.is_file():
        raise UserError(f"{league.root}: not a league (no league.toml); make one with "
                        "`arena league init`")
    window = settings.window or load_settings(league.config).window
    if window is None:
        raise UserError(f"--nightly: give the window (--nightly {EXAMPLE}) or write it in "
                        f"{league.config}: [league] schedule = \"{EXAMPLE}\"")
    lock = hold(league.nights / LOCK_FILE, f"{league.root}: another `arena league run "
                "--nightly` is running for this league")
    try:
        return Nightly(settings, league, window).loop()
    except KeyboardInterrupt:
        settings.night.error("arena: stopped; run the same command again to go on (an open "
                             "night is resumed)")
        return EXIT_INTERRUPTED
    finally:
        os.close(lock)


@dataclass
class Nightly:
    settings: NightlySettings
    league: LeagueDir
    window: NightWindow
    closed: int = 0
    _refused: str = ""
    """The last line of a night that could not begin (not said again each minute)."""

    @property
    def now(self) -> float:
        return self.settings.night.clock()

    def loop(self) -> int:
        say = self.settings.night.say
        say(f"arena: nights of {self.league.root} every day {self.window} (local time)")
        while self.settings.nights is None or self.closed < self.settings.nights:
            now = self.now
            span = self.window.current(now)
            name = open_night(self.league, None)
            if name is None:
                if span is None or self._served(span):
                    upcoming = self.window.next_after(now)
                    say(f"arena: next night at {_when(upcoming.start)}")
                    self._sleep_until(upcoming.start)
                    continue
                name = new_night_name(self.league, datetime.date.fromtimestamp(span.start))
            status = self._night(name, span)
            if status == EXIT_INTERRUPTED:
                return status
        return 0

    def _served(self, span: Span) -> bool:
        """Has a night begun in this window already (closed since: it is not played twice)?"""
        names = self.league.night_names()
        return bool(names) and span.holds(read_state(self.league, names[-1]).started_at)

    def _night(self, name: str, span: Span | None) -> int:
        """Play (or resume) night ``name`` until the end of ``span`` (outside a window: until
        its own deadline); its line in the log; its exit status."""
        night = msgspec.structs.replace(self.settings.night, night=name, deadline=span.end) \
            if span is not None else msgspec.structs.replace(  # its own budget, whatever it was
                self.settings.night, night=name, deadline=None, games=None)
        began = self.now
        try:
            outcome = run_night(night)
        except UserError as exc:
            line = f"night {name} not played: {exc}"
            if line != self._refused:  # said once, however many minutes it lasts
                self._log(line)
                self._refused = line
            self._pause(span)
            return 1
        self._refused = ""
        self._log(self._line(outcome, began, span))
        if outcome.closed:
            self.closed += 1
        elif outcome.status != EXIT_INTERRUPTED:
            self._pause(span)
        return outcome.status

    def _line(self, outcome: NightOutcome, began: float, span: Span | None) -> str:
        state = read_state(self.league, outcome.night)
        window = "" if span is None else f" ({_when(span.start)} to {_clock(span.end)})"
        what = (f"closed at {_clock(state.closed_at)}" if outcome.closed and state.closed_at
                else f"stopped, status {outcome.status} (resumed next)")
        return (f"night {outcome.night}{window}: began {_clock(state.started_at)}, "
                f"{outcome.journaled} games ({outcome.played} this session, from "
                f"{_clock(began)}), {what}")

    def _log(self, line: str) -> None:
        """The night's one line: said, and appended to ``nights/nightly.log``."""
        self.settings.night.say(f"arena: {line}")
        try:
            self.league.nights.mkdir(parents=True, exist_ok=True)
            with (self.league.nights / LOG_FILE).open("a", encoding="utf-8") as log:
                log.write(f"{_when(self.now)} {line}\n")
        except OSError as exc:
            self.settings.night.warn(f"cannot append to {self.league.nights / LOG_FILE}: "
                                     f"{exc.strerror or exc}")

    def _pause(self, span: Span | None) -> None:
        """Before trying again: a minute, or less when the window ends sooner."""
        now = self.now
        until = now + RETRY_S
        if span is not None and span.end > now:
            until = min(until, span.end)
        self._sleep_until(until)

    def _sleep_until(self, moment: float) -> None:
        while (left := moment - self.now) > 0:
            self.settings.sleep(min(left, NAP_S))


def _when(moment: float) -> str:
    return datetime.datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M:%S")


def _clock(moment: float) -> str:
    return datetime.datetime.fromtimestamp(moment).strftime("%H:%M:%S")
