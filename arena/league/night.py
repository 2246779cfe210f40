"""One night of a league, played into ``nights/<night>/``: the service behind ``arena league
run``.

A night is a run directory like any ``arena run`` output (journal, PGN, bots' logs, the
config it played with, its own report and game viewer), played by the one run driver
(:func:`arena.run.driver.drive`), so Ctrl-C, SIGKILL and resume behave exactly as for a
tournament. What differs is where its games come from: a :class:`~arena.league.plan.Planner`
decides them as the night goes (placement first, then pairings that sharpen the ratings) and
writes each to ``plan.jsonl`` before it is played; and how it ends: a night whose budget is
spent is closed. This module is that plan, and one call of the driver.

Running ``arena league run`` again while the last night is open (stopped before its budget
was spent) resumes that night with the versions it began with; otherwise a new night begins,
named after today's date (``2026-12-02``, then ``2026-12-02-2``...), with the versions active
now. A night closes when its budget is spent: its games are folded into ``tally.json``, the
fit over every night is stored as its snapshot in ``history.jsonl``, the league's report
(which reads the nights' tallies, never their journals) is built, and the nights' lock is
given back: the next night may begin while this one's own report (its charts and game viewer,
the slow part) is built after the close is recorded.
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from arena.atomicfile import write_atomic
from arena.errors import UserError
from arena.filelock import hold
from arena.league.lock import league_lock
from arena.league.plan import Budget, NightState, Planner, planned_games
from arena.league.webhook import notify_night
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import (
    LeagueSettings,
    load_settings,
    night_config_text,
    versions_config,
)
from arena.leaguedir.standings import (
    NightSummary,
    append_snapshot,
    fit_tally,
    league_tally,
    league_verdicts,
    read_history,
    read_summary,
    snapshot,
    summarise,
    write_summary,
)
from arena.leaguedir.versions import Version, active_versions, read_versions
from arena.run.driver import PlaySettings, RunPlan, Source, drive, ratings_text
from arena.run.progress import Deadline
from arena.rundir.journal import Journal, iter_records
from arena.rundir.layout import RunDir
from arena.say import Say
from arena.settings.config import LoadedConfig
from ratings.sources import record_result
from referee.record import GameRecord

if TYPE_CHECKING:
    from arena.run.runner import RunResult
    from ratings.model import RatingFit
    from ratings.verdict import VerdictSettings
    from reports.rating_tables import RatedJournal

CLOSE_WAIT_S: Final = 120.0
"""How long a ``league run`` waits for a night that is closing (its close takes seconds)."""


class NightSettings(PlaySettings, frozen=True):
    """``arena league run``'s arguments, typed (how to play: :class:`PlaySettings`)."""

    league: Path
    until: datetime.time | None = None
    """End at this time of day (the next one to come)."""
    hours: float | None = None
    games: int | None = None
    night: str | None = None
    """The night's name; None: today's date (the open night, if there is one)."""
    deadline: float | None = None
    """End at this moment (seconds since the epoch): a scheduled night's end."""
    clock: Callable[[], float] = time.time
    """Now, in seconds since the epoch: when the night begins and what its deadline is kept
    against (a test's clock moves with the games, so that a deadline costs no real wait)."""


@dataclass(frozen=True)
class NightOutcome:
    status: int
    night: str
    played: int
    """Games played by this session."""
    journaled: int
    closed: bool


def lock_nights(league: LeagueDir, say: Say) -> int:
    """Hold the nights' lock for a whole night, until it is closed: one night at a time.
    Submissions and retirements take the league's own lock (:mod:`arena.league.lock`) for
    their short writes only, so they go on while a night plays (a night plays the versions
    active when it began). A night that is closing holds it for seconds: that one is waited
    for (said), up to :data:`CLOSE_WAIT_S`."""
    try:
        return hold(league.nights_lock, f"{league.root}: a night is being played by another "
                    "`arena league run`; wait for it to end")
    except UserError:
        closing = closing_night(league)
        if closing is None:
            raise
    say(f"arena: night {closing} is closing (its ratings and the league report are being "
        "written); waiting for it")
    return hold(league.nights_lock, f"{league.root}: night {closing} is still closing after "
                f"{CLOSE_WAIT_S:g} s; try again later", wait=CLOSE_WAIT_S)


def closing_night(league: LeagueDir) -> str | None:
    """The newest night when its games have ended and its close is not yet recorded."""
    names = league.night_names()
    if not names:
        return None
    try:
        state = read_state(league, names[-1])
    except UserError:
        return None  # being written: not closing
    return names[-1] if state.closing_at is not None and state.closed_at is None else None


class NightsLock:
    """The nights' lock of one ``league run``: held from the start, given back once the night's
    close is recorded (before its own report), or at the end."""

    def __init__(self, league: LeagueDir, say: Say) -> None:
        self._fd: int | None = lock_nights(league, say)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def run_night(settings: NightSettings) -> NightOutcome:
    """Play (or resume) one night of the league at ``settings.league``."""
    league = LeagueDir(settings.league)
    if not league.config.is_file():
        raise UserError(f"{league.root}: not a league (no league.toml); make one with "
                        "`arena league init`")
    league_settings = load_settings(league.config)
    lock = NightsLock(league, settings.say)
    try:
        return _run_locked(settings, league, league_settings, lock)
    finally:
        lock.release()


def open_night(league: LeagueDir, name: str | None) -> str | None:
    """The night to resume: ``name`` if open, else the last night if it is open."""
    nights = league.night_names()
    if name is not None:
        return name if name in nights and read_state(league, name).closed_at is None else None
    if nights and read_state(league, nights[-1]).closed_at is None:
        return nights[-1]
    return None


def read_state(league: LeagueDir, name: str) -> NightState:
    path = league.night_file(name)
    try:
        return msgspec.json.decode(path.read_bytes(), type=NightState)
    except (OSError, msgspec.DecodeError) as exc:
        raise UserError(f"{path}: unreadable ({exc})") from None


def write_state(league: LeagueDir, state: NightState) -> None:
    write_atomic(league.night_file(state.name),
                 msgspec.json.format(msgspec.json.encode(state)) + b"\n")


def new_night_name(league: LeagueDir, today: datetime.date) -> str:
    base = today.isoformat()
    taken = set(league.night_names()) | (
        {p.name for p in league.nights.iterdir()} if league.nights.is_dir() else set())
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def budget_of(settings: NightSettings, now: float) -> Budget | None:
    """The budget the options give; None when they give none."""
    deadline = settings.deadline
    if settings.until is not None:
        current = datetime.datetime.fromtimestamp(now)
        end = datetime.datetime.combine(current.date(), settings.until)
        if end <= current:
            end += datetime.timedelta(days=1)
        deadline = end.timestamp() if deadline is None else min(deadline, end.timestamp())
    if settings.hours is not None:
        by_hours = now + settings.hours * 3600
        deadline = by_hours if deadline is None else min(deadline, by_hours)
    if deadline is None and settings.games is None:
        return None
    return Budget(games=settings.games, deadline=deadline)


def closed_summaries(league: LeagueDir, before: str | None = None) -> list[NightSummary]:
    """The summaries of every closed night (before ``before``, if given)."""
    out = []
    for name in league.night_names():
        if name == before:
            break
        summary = read_summary(league, name)
        if summary is not None:
            out.append(summary)
    return out


def _run_locked(settings: NightSettings, league: LeagueDir, ls: LeagueSettings,
                lock: NightsLock) -> NightOutcome:
    now = settings.clock()
    with league_lock(league):  # not while a submission changes a version's state
        versions = read_versions(league)
    by_label = {v.label: v for v in versions}
    name = open_night(league, settings.night)
    budget = budget_of(settings, now)
    history = closed_summaries(league)
    if name is None:
        name = settings.night or new_night_name(league, datetime.date.fromtimestamp(now))
        if settings.night and name in league.night_names():
            raise UserError(f"night {name} is closed; name another night")
        playing = active_versions(versions)
        if len(playing) < 2:
            raise UserError(f"{league.root}: {len(playing)} active version(s); a night needs "
                            "at least 2 (submit bots with `arena league submit`)")
        seen = set(league_tally(history).players)
        state = NightState(name=name, started_at=now, versions=[v.label for v in playing],
                           newcomers=[v.label for v in playing if v.label not in seen],
                           budget=budget or Budget())
        league.night(name).root.mkdir(parents=True, exist_ok=True)
        write_state(league, state)
    else:
        state = read_state(league, name)
        if budget is not None and budget != state.budget:
            state.budget = budget
            write_state(league, state)
        missing = [label for label in state.versions if label not in by_label]
        if missing:
            raise UserError(f"night {name} plays {', '.join(missing)}, no longer in "
                            f"{league.bots}")
    playing_versions: list[Version] = [by_label[label] for label in state.versions]
    loaded = versions_config(ls, league, playing_versions)
    out = league.night(name)
    played = drive(night_plan(settings, league, ls, loaded, state, out, history, lock.release),
                   settings)
    return NightOutcome(played.status, state.name, played.result.played, played.journaled,
                        played.complete)


def night_plan(settings: NightSettings, league: LeagueDir, ls: LeagueSettings,
               loaded: LoadedConfig, state: NightState, out: RunDir,
               history: list[NightSummary], release: Callable[[], None]) -> RunPlan:
    """The night as the run driver plays it: its planner as the source of games, its
    deadline, and its closing once the budget is spent: the close recorded, the league's
    report built and the nights' lock given back (``release``) before the night's own
    report, so that the next night need not wait for it."""
    planner: Planner | None = None

    def source(journal: Journal) -> Source:
        nonlocal planner
        done_records = journal.summaries
        planner = Planner(
            loaded=loaded, policy=ls.policy, state=state, plan_path=league.plan(state.name),
            history=league_tally(history), nights=[s.tally for s in history],
            lengths=[d for s in history for d in s.durations],
            planned=planned_games(league.plan(state.name)), done=journal.ids(),
            clock=settings.clock,
        )
        for record in done_records:
            planner.record(record_result(record, record.id), _length(record))
        night = planner
        expected = state.budget.games or (
            ls.policy.night_games if state.budget.deadline is None
            else max(len(done_records), len(night.planned)))
        what = (f"until {time.strftime('%H:%M', time.localtime(state.budget.deadline))}"
                if state.budget.deadline else f"{expected} games")

        def complete(result: RunResult) -> bool:
            """Spent: the deadline reached, or every planned game played and no more to plan
            (a night stopped otherwise is resumed, not closed)."""
            if result.stop_reason is not None:
                return result.stop_reason.startswith("deadline")
            return all(g.id in journal.ids() for g in night.planned)

        return Source(
            pending=night,
            total=lambda: expected,
            grown_total=lambda done: done + 1,
            intro=lambda concurrency: (
                f"arena: {ls.event}: night {state.name}, {len(state.versions)} versions "
                f"({len(state.newcomers)} new), {what}, concurrency {concurrency} -> "
                f"{out.root}"),
            account=lambda journaled: f"night {state.name}: {journaled} games in {out.journal}",
            complete=complete,
            record=lambda record: night.record(record_result(record, record.id),
                                               _length(record)),
            may_start=night.may_start,
            deadline=None if state.budget.deadline is None else Deadline(
                state.budget.deadline, settings.clock, lambda: night.lengths),
        )

    league_fit: list[RatingFit | None] = []

    def conclude(result: RunResult, complete: bool, rated: RatedJournal | None) -> None:
        if not complete:
            return
        fit = close_night(league, state, out, settings.say, rated, ls.verdict,
                          settings.clock)
        league_fit.append(fit)
        if settings.report:
            build_league_report_quietly(league, settings.say, settings.warn, fit)
        release()

    def after_report(result: RunResult, complete: bool) -> None:
        """Once the night's own report exists, the league's links it: built again, unless a
        newer night has begun meanwhile (its close builds it)."""
        if complete and settings.report and league.night_names()[-1] == state.name:
            build_league_report_quietly(league, lambda text: None, settings.warn,
                                        league_fit[-1] if league_fit else None)
        if complete and league_fit:  # closed by this command: tell the webhook, once
            notify_night(league, ls, state.name, settings.say, settings.warn)

    return RunPlan(
        loaded=loaded, out=out, title=f"{ls.event}: night {state.name}", names=state.versions,
        source=source, config_text=night_config_text(loaded), config_path=loaded.path,
        hide=(loaded.path.parent / "nights",), cluster=ls.policy.cluster, conclude=conclude,
        after_report=after_report)


def close_night(league: LeagueDir, state: NightState, out: RunDir, say: Say,
                rated: RatedJournal | None,
                verdict: VerdictSettings | None = None,
                clock: Callable[[], float] = time.time) -> RatingFit | None:
    """Fold the night (from ``rated``, its journal read once and its games fitted once, or
    from the journal when there is none), store the snapshot of every rating and verdict,
    and return the fit over every night, which the league's report shows (the night's report
    and the league's are built by the driver and the plan after this). A close cut short
    (killed) is done again by the next ``league run``: its snapshot is stored once."""
    state.closing_at = clock()
    write_state(league, state)
    games = rated.journal.games if rated is not None else iter_records(out.journal)
    summary = summarise(state.name, games, state.versions)
    write_summary(league, summary)
    closed = closed_summaries(league)
    everything = league_tally(closed)
    fit = fit_tally(everything, state.versions) if len(everything.players) >= 2 else None
    stored = read_history(league)
    if not stored or stored[-1].night != state.name:
        verdicts = (league_verdicts([s.tally for s in closed], fit.players, verdict)
                    if fit is not None else {})
        append_snapshot(league, snapshot(state.name, fit, summary.games, everything.games,
                                         verdicts, stored[-1] if stored else None))
    state.closed_at = clock()
    write_state(league, state)
    if rated is not None and (table := ratings_text(rated)):
        say(f"night {state.name}:\n{table}")
    say(f"arena: night {state.name} closed: {summary.games} games; ratings over all nights "
        f"stored in {league.history}")
    return fit


def build_league_report_quietly(league: LeagueDir, say: Say, warn: Say,
                                fit: RatingFit | None = None) -> None:
    """The league's report (``fit``: the fit over every closed night, when the caller made
    it); a failure is a warning (the night's games are safe already)."""
    try:
        from reports.league_report import build_league_report

        where = build_league_report(league.root, fit=fit)
    except Exception as exc:
        warn(f"league report not built: {type(exc).__name__}: {exc}")
        return
    say(f"arena: league report: {where}")


def _length(record: GameRecord) -> float | None:
    if record.ended_at and record.started_at:
        return record.ended_at - record.started_at
    return None
