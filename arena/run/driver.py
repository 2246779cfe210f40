"""Playing (or resuming) a tournament into its run directory: the service behind ``arena run``.

:func:`run_tournament` takes typed :class:`RunSettings` and returns a :class:`RunOutcome` (the
runner's result, the totals and the exit status); ``arena run`` only parses its arguments
into settings and returns the status, and anything else that plays tournaments (a league
playing one night after another into folders of their own) calls the same function.

The run directory (``--output``, else the config's ``output``, else ``runs/<config name>``)
gets the journal (one game record per line, the source of truth), the PGN (rebuilt from the
journal on every start, then appended game by game), the bots' logs, the copy of the config,
``schedule.json`` (the games and the fingerprint that guards resume) and the session log (when
each session started and ended, the arena version and concurrency, for the report): their
names are in :mod:`arena.rundir.layout`. Running the same settings again resumes: only the
games missing from the journal are played.

Exit status: 0 when the schedule is complete, 1 when games failed or are missing, 2 for a
mistake in the command or the config (a :class:`UserError`, raised), 3 when the machine or the
arena failed (bots that cannot be started for want of files, processes or memory; a full
disk), 130 when stopped.

With ``cluster`` the games are played by the workers of a Dask cluster
(``arena.cluster.executor``) and everything else stays here. Nothing imported with this module
imports trio: the first games' bots are started before trio is loaded.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

import msgspec

from arena.bots import prestart
from arena.errors import UserError
from arena.formats.schedule import RoundFeed, Schedule, ScheduledGame, build_schedule, results_of
from arena.run.prepare import lock_run_dir, prepare_run_dir, write_schedule_file
from arena.run.progress import Progress
from arena.rundir.journal import iter_records
from arena.rundir.layout import RunDir
from arena.rundir.sessions import log_session
from arena.settings.config import LoadedConfig, load_config
from referee.record import GameRecord
from reports.pgn import append_pgn, write_pgn

if TYPE_CHECKING:
    from arena.run.runner import RunResult
    from arena.run.sprt_stop import SprtStop

EXIT_COMPLETE: Final = 0
"""The schedule is complete (or the SPRT decided)."""
EXIT_FAILED_GAMES: Final = 1
"""Games failed, or are missing for another reason; a resume plays them."""
EXIT_ARENA_FAULT: Final = 3
"""The run stopped on the machine's or the arena's fault (bots that cannot be started, a full
disk); the games concerned have no result and a resume plays them."""
EXIT_INTERRUPTED: Final = 130
"""Stopped by the user (Ctrl-C, SIGTERM) or cut short otherwise; a resume plays the rest."""


Say = Callable[[str], None]
"""Where a run's messages go: a line of text (no newline)."""


def say_on(stream: TextIO | None = None) -> Say:
    """Lines to ``stream`` (default: this process's stdout at the time of each line)."""
    return lambda text: print(text, file=stream or sys.stdout, flush=True)


def error_on(stream: TextIO | None = None) -> Say:
    """Lines to ``stream`` (default: this process's stderr at the time of each line)."""
    return lambda text: print(text, file=stream or sys.stderr, flush=True)


def warn_on(stream: TextIO | None = None) -> Say:
    """Warnings (``arena: warning: ...``) to ``stream`` (default: stderr)."""
    return lambda text: print(f"arena: warning: {text}", file=stream or sys.stderr, flush=True)


@dataclass(frozen=True)
class RunSettings:
    """How to play one tournament (``arena run``'s arguments, typed)."""

    config: Path | LoadedConfig
    """The tournament: a TOML config file, or one already loaded."""
    output: Path | None = None
    """The run directory; None: the config's ``output``, else ``runs/<config name>``."""
    concurrency: int | None = None
    """Games at once; None: the config's (on a cluster: its threads, or fewer when the
    config's own ``concurrency`` key is written)."""
    plain: bool = False
    """One line per game even on a terminal (no live display)."""
    report: bool = True
    """Build the HTML report every ``report_every`` games and at the end."""
    cluster: str | None = None
    """Play the games on a Dask cluster: ``local:N`` or ``tcp://HOST:8786``."""
    debug: bool = False
    """Write every bot's protocol lines to ``transcripts/`` (``debug = true`` on each bot)."""
    say: Say = field(default_factory=say_on)
    """The run's messages: what it plays, the final standings, how it ended (a caller that
    plays tournaments of its own, such as a league, takes them where it wants). The live
    progress display writes to stdout itself (``plain`` makes it one line per game)."""
    warn: Say = field(default_factory=warn_on)
    """Warnings (a game that could not be played, a PGN that could not be written...)."""
    error: Say = field(default_factory=error_on)
    """The line of a run that stopped early: a fault of the machine, or interrupted."""


@dataclass(frozen=True)
class RunOutcome:
    """How one call of :func:`run_tournament` ended."""

    status: int
    """The exit status (``EXIT_*``)."""
    result: RunResult
    """The runner's account of this session (played, failed, why it stopped)."""
    total: int
    """Games in the schedule."""
    journaled: int
    """Games in the journal now (earlier sessions' included)."""
    run_dir: RunDir
    sprt: SprtStop | None
    """The SPRT of a match that has one (its decision, if any), else None."""


def run_tournament(settings: RunSettings) -> RunOutcome:
    """Play the games of ``settings.config`` still missing from its run directory, then print
    the ratings (and the table by cluster worker) and build the report.

    Raises :class:`UserError` for a mistake in the config or the settings (exit status 2)."""
    loaded = (settings.config if isinstance(settings.config, LoadedConfig)
              else load_config(settings.config))
    if settings.debug:
        loaded = dataclasses.replace(loaded, bots=tuple(
            msgspec.structs.replace(bot, debug=True) for bot in loaded.bots))
    schedule = build_schedule(loaded)  # a knockout's or Swiss: its first round (checks openings)
    out = RunDir(settings.output or loaded.default_output() or Path("runs") / loaded.path.stem)
    try:
        lock = lock_run_dir(out)
    except OSError as exc:
        raise UserError(f"cannot use output directory {out.root}: {exc.strerror or exc}") from None
    try:
        return _run_locked(settings, loaded, schedule, out)
    finally:
        os.close(lock)


def _run_locked(settings: RunSettings, loaded: LoadedConfig, schedule: Schedule,
                out: RunDir) -> RunOutcome:
    """:func:`run_tournament` once the run directory is this process's."""
    say, warn = settings.say, settings.warn
    feed: RoundFeed | None = None
    if not schedule.final:  # the rounds the journal's results decide (torn last line left out)
        feed = RoundFeed(loaded, results_of(iter_records(out.journal))
                         if out.journal.is_file() else {})
        schedule = feed.schedule
    try:
        journal = prepare_run_dir(loaded, schedule, out, warn)
    except OSError as exc:
        raise UserError(f"cannot use output directory {out.root}: {exc.strerror or exc}") from None
    event = loaded.event
    # The PGN is derived data: rebuild it from the journal so the two never disagree.
    try:
        write_pgn(iter_records(journal.path), out.pgn, event=event)
    except OSError as exc:  # derived data: the journal, not the PGN, must be complete
        warn(f"cannot write {out.pgn}: {exc.strerror or exc}; it is rebuilt on the next run")
    done = journal.ids()
    pending: list[ScheduledGame] = [g for g in schedule.games if g.id not in done]
    if feed is not None and feed.schedule.final:
        feed = None  # every round is known: a list, as for a round-robin
    stop_when, sprt = sprt_stopper(loaded, journal.summaries)
    if sprt is not None and sprt.decided:
        say(f"arena: {sprt.message()} (already decided; nothing to play)")
        pending = []
    concurrency = settings.concurrency or loaded.config.concurrency
    if concurrency < 1:
        warn(f"--concurrency {concurrency} is not a positive number; using 1")
        concurrency = 1
    cluster = contextlib.ExitStack()  # the cluster, if any, lives until the games are played
    executor = None
    if settings.cluster and pending:
        from arena.cluster.executor import open_cluster

        executor = cluster.enter_context(open_cluster(settings.cluster, loaded, out.root, warn))
        concurrency = cluster_concurrency(settings.concurrency, loaded, executor.slots)
    # The first games' bots load while this process goes on loading (trio, the referee, the
    # report's libraries): nothing above imports trio. The pool takes them over or ends them.
    launched = prestart.prestart(prestart.first_bots(
        pending, concurrency, {bot.name: bot for bot in loaded.bots}),
        capture_stderr=True) if executor is None else []
    import trio  # only now, while the first bots load

    from arena.run.runner import RunResult, Tournament

    try:
        report = ReportHook(out.root, say, warn, enabled=settings.report)

        def on_record(record: GameRecord) -> None:
            if feed is not None:
                feed.record(record)
                progress.total = max(progress.total, feed.schedule.total)  # tie-break pairs
            try:
                append_pgn(record, out.pgn, event=event)
            except OSError as exc:
                warn(f"cannot append to {out.pgn}: {exc.strerror or exc}; it is rebuilt on "
                     "the next run")

        progress = Progress(
            title=event,
            names=[bot.name for bot in loaded.bots],
            total=schedule.total,
            done=journal.summaries,
            live=False if settings.plain else None,
        )
        to_play = len(pending) if feed is None else max(0, schedule.total - journal.count)
        journal.forget_summaries()  # counted into the standings and the SPRT: no longer needed
        say(f"arena: {event}: {loaded.config.game}, {len(loaded.bots)} bots, "
            f"{schedule.total} games ({to_play} to play, concurrency {concurrency}) -> "
            f"{out.root}")
        tournament = Tournament(
            loaded=loaded,
            pending=feed if feed is not None and pending else pending,
            finished_bots=feed.finished_bots if feed is not None else None,
            journal=journal,
            out=out,
            progress=progress,
            on_record=on_record,
            stop_when=stop_when,
            periodic=report.build_quietly if report.enabled else None,
            periodic_every=loaded.config.report_every,
            concurrency=(concurrency if executor is None
                         else cluster_cap(settings.concurrency, loaded)),
            executor=executor,
            prestarted=launched,
        )
        log_session(out.root, "start", concurrency, warn)
        try:
            with cluster, progress:
                result: RunResult = trio.run(tournament.run) if pending else RunResult()
        finally:
            log_session(out.root, "end", concurrency, warn)
        progress.summary()
        total = schedule.total
        if feed is not None:
            total = feed.schedule.total
            try:
                write_schedule_file(out, feed.schedule)
            except OSError as exc:
                warn(f"cannot write {out.schedule}: {exc.strerror or exc}")
        if result.arena_fault is None:  # else the machine is short of something: stop at once
            if table := ratings_text(out.journal):
                say(table)
            if table := format_text(loaded, out.journal):
                say(table)
            if settings.cluster and (table := workers_text(out.root)):
                say(table)
            if sprt is not None:
                say(f"arena: {sprt.message()}")
            report.build(final=True)
        status, line = conclusion(result, total, journal.count, out, sprt)
        (warn if status == EXIT_FAILED_GAMES else say if status == EXIT_COMPLETE
         else settings.error)(line)
        return RunOutcome(status, result, total, journal.count, out, sprt)
    finally:
        prestart.discard(launched)  # any the run did not reach (its pool ends the rest)


def cluster_cap(cap: int | None, loaded: LoadedConfig) -> int:
    """The most games a cluster plays at once: ``-j``, else the config's own ``concurrency``
    key when written, else 0 (as many as it has threads, whatever it grows or shrinks to)."""
    if cap is None and "concurrency" in msgspec.toml.decode(loaded.text.encode()):
        cap = loaded.config.concurrency
    return max(0, cap or 0)


def cluster_concurrency(cap: int | None, loaded: LoadedConfig, threads: int) -> int:
    """The games a cluster plays at once now: its threads, or fewer when ``-j`` or the
    config's own ``concurrency`` key (when written) asks for fewer."""
    bound = cluster_cap(cap, loaded)
    return max(1, min(threads, bound) if bound else threads)


def workers_text(run_dir: Path) -> str | None:
    """Games, mean move time and scores per cluster worker (fair time controls need equal
    machines); None when no game names a worker."""
    from reports.journal_summary import summarise_journal
    from reports.workers import worker_table

    table = worker_table(summarise_journal(run_dir))
    return None if table is None else f"by worker:\n{table.to_string()}"


def format_text(loaded: LoadedConfig, journal: Path) -> str | None:
    """A knockout's bracket or a Swiss tournament's standings as text; None for the other
    formats."""
    from reports.format_tables import rounds_text

    if not journal.is_file():
        return None
    return rounds_text(loaded.config, results_of(iter_records(journal)))


def ratings_text(journal: Path) -> str | None:
    """The Ordo-style Elo table of every journaled game (``arena ratings`` gives more); None
    with fewer than two players."""
    from arena.rundir.results import read_results
    from ratings import aggregate, fit_ratings
    from ratings.table import format_table

    results = read_results(journal) if journal.exists() else []
    if len({name for r in results for name in (r.first, r.second)}) < 2:
        return None
    return format_table(fit_ratings(aggregate(results)))


def conclusion(
    result: RunResult, total: int, journaled: int, out: RunDir, sprt: SprtStop | None
) -> tuple[int, str]:
    """The exit status and the line that says how the run ended: 0 when the schedule is
    complete (or the SPRT decided), 130 when stopped by the user, 1 when games failed or are
    missing for another reason (the line is a warning), 3 when the machine or the arena
    failed (the line says what, and how to go on)."""
    missing = total - journaled
    if result.arena_fault:
        return EXIT_ARENA_FAULT, (f"arena: error: {result.arena_fault}\narena: {journaled}/"
                                  f"{total} games in {out.journal}; run the same command "
                                  "again to play the rest")
    if result.failed:
        return EXIT_FAILED_GAMES, (
            f"{len(result.failed)} game(s) could not be played ({', '.join(result.failed[:5])}); "
            f"run the same command again to retry them")
    if missing == 0 or (sprt is not None and sprt.decided):
        return EXIT_COMPLETE, (f"arena: done: {journaled}/{total} games in {out.journal}, PGN "
                               f"in {out.pgn}")
    if result.stop_reason:
        return EXIT_INTERRUPTED, (f"arena: {result.stop_reason}: {journaled}/{total} games in "
                                  f"{out.journal}; run the same command again to resume")
    return EXIT_FAILED_GAMES, (f"{missing} game(s) still missing from {out.journal}; run the "
                               "same command again")


def sprt_stopper(
    loaded: LoadedConfig, records: list[GameRecord]
) -> tuple[Callable[[list[GameRecord]], str | None], SprtStop | None]:
    """A ``stop_when`` hook that stops the match once the SPRT decides (a no-op without one),
    already fed with the games of the journal."""
    if loaded.config.sprt is None:
        return (lambda records: None), None
    from arena.run.sprt_stop import SprtStop  # scipy: imported only when a match needs it

    tested, opponent = loaded.bots[0].name, loaded.bots[1].name
    stop = SprtStop(loaded.config.sprt, tested, opponent)
    stop.feed(records)
    return stop.add_all, stop


class ReportHook:
    """Rebuilds the HTML report every ``report_every`` games and at the end. A report that
    fails is a warning: it must never cost a tournament its games or its exit status."""

    def __init__(self, run_dir: Path, say: Say, warn: Say, *, enabled: bool = True) -> None:
        self.run_dir = run_dir
        self.say = say
        self.warn = warn
        self.enabled = enabled
        self._build: Callable[[Path], Path] | None = None
        if enabled:
            # Imported here, in the main thread before any game starts (pandas, matplotlib),
            # not in the worker thread that runs the periodic rebuilds.
            from reports.html import build_report

            self._build = build_report

    def build_quietly(self) -> None:
        """The periodic rebuild during a run (called from a worker thread)."""
        self.build(final=False)

    def build(self, *, final: bool) -> None:
        if self._build is None:
            return
        try:
            where = self._build(self.run_dir)
        except Exception as exc:  # a report problem must not lose a tournament's exit status
            self.warn(f"report not built: {type(exc).__name__}: {exc}")
            return
        if final:
            self.say(f"arena: report: {where}")
