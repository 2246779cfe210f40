"""One night of a league, played into ``nights/<night>/``: the service behind ``arena league
run``.

A night is a run directory like any ``arena run`` output (journal, PGN, bots' logs, the
config it played with, its own report and game viewer), played by the same runner
(:class:`arena.run.runner.Tournament`), so Ctrl-C, SIGKILL and resume behave exactly as for a
tournament. What differs is where its games come from: a :class:`~arena.league.plan.Planner`
decides them as the night goes (placement first, then pairings that sharpen the ratings) and
writes each to ``plan.jsonl`` before it is played.

Running ``arena league run`` again while the last night is open (stopped before its budget
was spent) resumes that night with the versions it began with; otherwise a new night begins,
named after today's date (``2026-12-02``, then ``2026-12-02-2``...), with the versions active
now. A night closes when its budget is spent: its games are folded into ``tally.json``, the
fit over every night is stored as its snapshot in ``history.jsonl``, and the night's report
and the league's report are built.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from arena.errors import UserError
from arena.filelock import hold
from arena.league.lock import league_lock
from arena.league.plan import Budget, NightState, Planner, planned_games
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
    read_summary,
    snapshot,
    summarise,
    write_summary,
)
from arena.leaguedir.versions import Version, active_versions, read_versions
from arena.run.driver import (
    EXIT_ARENA_FAULT,
    EXIT_COMPLETE,
    EXIT_FAILED_GAMES,
    EXIT_INTERRUPTED,
    ReportHook,
    Say,
    cluster_cap,
    cluster_concurrency,
    error_on,
    ratings_text,
    say_on,
    warn_on,
)
from arena.rundir.journal import Journal, iter_records
from arena.rundir.layout import RunDir
from arena.rundir.sessions import log_session
from arena.settings.config import LoadedConfig
from ratings.sources import record_result
from referee.process.botview import hide_from_bots
from referee.record import GameRecord
from reports.pgn import append_pgn, write_pgn


@dataclass(frozen=True)
class NightSettings:
    """``arena league run``'s arguments, typed."""

    league: Path
    until: datetime.time | None = None
    """End at this time of day (the next one to come)."""
    hours: float | None = None
    games: int | None = None
    night: str | None = None
    """The night's name; None: today's date (the open night, if there is one)."""
    concurrency: int | None = None
    cluster: str | None = None
    plain: bool = False
    report: bool = True
    say: Say = field(default_factory=say_on)
    warn: Say = field(default_factory=warn_on)
    error: Say = field(default_factory=error_on)


@dataclass(frozen=True)
class NightOutcome:
    status: int
    night: str
    played: int
    """Games played by this session."""
    journaled: int
    closed: bool


def lock_nights(league: LeagueDir) -> int:
    """Hold the nights' lock for a whole night: one night at a time. Submissions and
    retirements take the league's own lock (:mod:`arena.league.lock`) for their short writes
    only, so they go on while a night plays (a night plays the versions active when it
    began)."""
    return hold(league.nights_lock, f"{league.root}: a night is being played by another "
                "`arena league run`; wait for it to end")


def run_night(settings: NightSettings) -> NightOutcome:
    """Play (or resume) one night of the league at ``settings.league``."""
    league = LeagueDir(settings.league)
    if not league.config.is_file():
        raise UserError(f"{league.root}: not a league (no league.toml); make one with "
                        "`arena league init`")
    league_settings = load_settings(league.config)
    lock = lock_nights(league)
    try:
        return _run_locked(settings, league, league_settings)
    finally:
        os.close(lock)


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
    path = league.night_file(state.name)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(msgspec.json.format(msgspec.json.encode(state)) + b"\n")
    os.replace(tmp, path)


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
    deadline = None
    if settings.until is not None:
        current = datetime.datetime.fromtimestamp(now)
        end = datetime.datetime.combine(current.date(), settings.until)
        if end <= current:
            end += datetime.timedelta(days=1)
        deadline = end.timestamp()
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


def _run_locked(settings: NightSettings, league: LeagueDir, ls: LeagueSettings) -> NightOutcome:
    now = time.time()
    with league_lock(league):  # not while a submission changes a version's state
        versions = read_versions(league)
    by_label = {v.label: v for v in versions}
    name = open_night(league, settings.night)
    budget = budget_of(settings, now)
    history = closed_summaries(league)
    if name is None:
        name = settings.night or new_night_name(league, datetime.date.today())
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
    return _play(settings, league, ls, loaded, state, out, history)


def _prepare(loaded: LoadedConfig, out: RunDir, warn: Say) -> Journal:
    text = night_config_text(loaded)
    if not out.config.exists() or out.config.read_text(encoding="utf-8") != text:
        tmp = out.config.with_name(out.config.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out.config)
    out.logs.mkdir(exist_ok=True)
    hide_from_bots(out.root)
    hide_from_bots(loaded.path.parent / "nights")
    return Journal.open(out.journal, warn)


def _play(settings: NightSettings, league: LeagueDir, ls: LeagueSettings, loaded: LoadedConfig,
          state: NightState, out: RunDir, history: list[NightSummary]) -> NightOutcome:
    say, warn = settings.say, settings.warn
    journal = _prepare(loaded, out, warn)
    try:
        write_pgn(iter_records(journal.path), out.pgn, event=loaded.event)
    except OSError as exc:
        warn(f"cannot write {out.pgn}: {exc.strerror or exc}; it is rebuilt on the next run")
    lengths = [d for s in history for d in s.durations]
    done_records = journal.summaries
    planner = Planner(
        loaded=loaded, policy=ls.policy, state=state, plan_path=league.plan(state.name),
        history=league_tally(history), lengths=lengths,
        planned=planned_games(league.plan(state.name)), done=journal.ids(),
    )
    for record in done_records:
        planner.record(record_result(record, record.id), _length(record))
    concurrency = settings.concurrency or loaded.config.concurrency
    cluster_address = settings.cluster or ls.policy.cluster
    stack = contextlib.ExitStack()
    executor = None
    if cluster_address:
        from arena.cluster.executor import open_cluster

        executor = stack.enter_context(open_cluster(cluster_address, loaded, out.root, warn))
        concurrency = cluster_concurrency(settings.concurrency, loaded, executor.slots)
    import trio

    from arena.run.progress import Progress
    from arena.run.runner import RunResult, Tournament

    report = ReportHook(out.root, say, warn, enabled=settings.report)
    expected = state.budget.games or (ls.policy.night_games if state.budget.deadline is None
                                      else max(len(done_records), len(planner.planned)))

    def on_record(record: GameRecord) -> None:
        planner.record(record_result(record, record.id), _length(record))
        progress.total = max(progress.total, progress.done + 1)
        try:
            append_pgn(record, out.pgn, event=loaded.event)
        except OSError as exc:
            warn(f"cannot append to {out.pgn}: {exc.strerror or exc}")

    progress = Progress(title=f"{ls.event}: night {state.name}", names=state.versions,
                        total=expected, done=done_records,
                        live=False if settings.plain else None)
    journal.forget_summaries()
    what = (f"until {time.strftime('%H:%M', time.localtime(state.budget.deadline))}"
            if state.budget.deadline else f"{expected} games")
    say(f"arena: {ls.event}: night {state.name}, {len(state.versions)} versions "
        f"({len(state.newcomers)} new), {what}, concurrency {concurrency} -> {out.root}")
    tournament = Tournament(
        loaded=loaded, pending=iter(planner), journal=journal, out=out, progress=progress,
        on_record=on_record, may_start=planner.may_start,
        periodic=report.build_quietly if report.enabled and loaded.config.report_every else None,
        periodic_every=loaded.config.report_every,
        concurrency=(concurrency if executor is None
                     else cluster_cap(settings.concurrency, loaded)),
        executor=executor,
    )
    log_session(out.root, "start", concurrency, warn)
    try:
        with stack, progress:
            result: RunResult = trio.run(tournament.run)
    finally:
        log_session(out.root, "end", concurrency, warn)
    progress.summary()
    deadline_hit = bool(result.stop_reason and result.stop_reason.startswith("deadline"))
    interrupted = result.stop_reason is not None and not deadline_hit
    if result.arena_fault:
        settings.error(f"arena: error: {result.arena_fault}\narena: night {state.name}: "
                       f"{journal.count} games in {out.journal}; run the same command again "
                       "to play the rest")
        return NightOutcome(EXIT_ARENA_FAULT, state.name, result.played, journal.count, False)
    unplayed = [g.id for g in planner.planned if g.id not in journal.ids()]
    if interrupted or result.failed or (unplayed and not deadline_hit):
        line = (f"arena: {result.stop_reason or 'games failed'}: night {state.name}, "
                f"{journal.count} games in {out.journal}; run `arena league run "
                f"{league.root}` again to resume it")
        (settings.error if interrupted else warn)(line)
        return NightOutcome(EXIT_INTERRUPTED if interrupted else EXIT_FAILED_GAMES, state.name,
                            result.played, journal.count, False)
    close_night(league, state, out, say, warn, report=settings.report)
    return NightOutcome(EXIT_COMPLETE, state.name, result.played, journal.count, True)


def close_night(league: LeagueDir, state: NightState, out: RunDir, say: Say, warn: Say, *,
                report: bool = True) -> None:
    """Fold the night, store the snapshot of every rating, build the reports."""
    summary = summarise(state.name, iter_records(out.journal), state.versions)
    write_summary(league, summary)
    everything = league_tally(closed_summaries(league))
    fit = fit_tally(everything) if len(everything.players) >= 2 else None
    append_snapshot(league, snapshot(state.name, fit, summary.games, everything.games))
    state.closed_at = time.time()
    write_state(league, state)
    if table := ratings_text(out.journal):
        say(f"night {state.name}:\n{table}")
    say(f"arena: night {state.name} closed: {summary.games} games; ratings over all nights "
        f"stored in {league.history}")
    if report:
        ReportHook(out.root, say, warn).build(final=True)
        build_league_report_quietly(league, say, warn)


def build_league_report_quietly(league: LeagueDir, say: Say, warn: Say) -> None:
    """The league's report; a failure is a warning (the night's games are safe already)."""
    try:
        from reports.league_report import build_league_report

        where = build_league_report(league.root)
    except Exception as exc:
        warn(f"league report not built: {type(exc).__name__}: {exc}")
        return
    say(f"arena: league report: {where}")


def _length(record: GameRecord) -> float | None:
    if record.ended_at and record.started_at:
        return record.ended_at - record.started_at
    return None
