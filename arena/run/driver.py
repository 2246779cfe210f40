"""The run driver: one session of play into a run directory, whoever asks for it.

:func:`drive` is the one driver. It prepares the directory (config copy, schedule
fingerprint, journal), rebuilds the PGN from the journal, opens the cluster or launches the
first bots, shows the progress, logs the session, plays the games under trio (the
:class:`~arena.run.runner.Tournament`), then concludes: the exit status and the line that says
how the session ended. What differs between callers it takes as arguments, a
:class:`RunPlan` and the :class:`Source` of the games the plan builds once the journal is
open:

- ``arena run`` (:func:`run_tournament`): the schedule's missing games, a list, or a knockout's
  or Swiss event's :class:`~arena.formats.schedule.RoundFeed`; an SPRT that may stop a match;
  it concludes with the standings and the report (without a report, the standings alone,
  which load no numpy: the head-to-head lines rather than the fit's table);
- ``arena league run`` (:mod:`arena.league.night`): a night's planner, which decides each game
  as a worker is free and keeps the deadline; it concludes by closing the night.

The run directory (``--output``, else the config's ``output``, else ``runs/<config name>``)
gets the journal (one game record per line, the source of truth), the PGN (rebuilt from the
journal on every start, then appended game by game), the bots' logs, the copy of the config,
``schedule.json`` (the games and the fingerprint that guards resume) and the session log (when
each session started and ended, the arena version and concurrency, for the report): their
names are in :mod:`arena.rundir.layout`. Running the same settings again resumes: only the
games missing from the journal are played.

Exit status: 0 when the schedule is complete (or the SPRT decided, or a night's budget is
spent), 1 when games failed or are missing, 2 for a mistake in the command or the config (a
:class:`UserError`, raised), 3 when the machine or the arena failed (bots that cannot be
started for want of files, processes or memory; a full disk), 130 when stopped.

With ``cluster`` the games are played by the workers of a Dask cluster
(``arena.cluster.executor``), with more than one referee process by those processes
(``arena.run.refpool``), and everything else stays here. Nothing imported with this module
imports trio: the first games' bots are started before trio is loaded.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from arena import startup
from arena.bots import prestart
from arena.errors import UserError
from arena.formats.schedule import (
    RoundFeed,
    Schedule,
    ScheduledGame,
    build_schedule,
    results_of,
)
from arena.run.prepare import lock_run_dir, prepare_run_dir, write_schedule_file
from arena.run.progress import Deadline, Progress
from arena.run.referees import referees_for, think_slots_for, thinking_text
from arena.rundir.journal import Journal, iter_records
from arena.rundir.layout import RunDir
from arena.rundir.sessions import log_session
from arena.say import Say, error_on, say_on, warn_on
from arena.settings.config import LoadedConfig, load_config
from referee.order import GameOrder
from referee.record import GameRecord
from reports.pgn import PgnAppender, write_pgn

if TYPE_CHECKING:
    from arena.cluster.batching import GameExecutor
    from arena.run.runner import RunResult
    from arena.run.sprt_stop import SprtStop
    from reports.rating_tables import RatedJournal

EXIT_COMPLETE: Final = 0
"""The schedule is complete (or the SPRT decided, or a night's budget is spent)."""
EXIT_FAILED_GAMES: Final = 1
"""Games failed, or are missing for another reason; a resume plays them."""
EXIT_ARENA_FAULT: Final = 3
"""The run stopped on the machine's or the arena's fault (bots that cannot be started, a full
disk); the games concerned have no result and a resume plays them."""
EXIT_INTERRUPTED: Final = 130
"""Stopped by the user (Ctrl-C, SIGTERM) or cut short otherwise; a resume plays the rest."""


class PlaySettings(msgspec.Struct, frozen=True, kw_only=True):
    """How to play a session, whoever asks for it (``arena run``'s and ``arena league run``'s
    common arguments, typed)."""

    concurrency: int | None = None
    """Games at once; None: the config's (on a cluster: its threads, or fewer when the
    config's own ``concurrency`` key is written)."""
    cluster: str | None = None
    """Play the games on a Dask cluster: ``local:N`` or ``tcp://HOST:8786``."""
    referees: int | None = None
    """Referee processes on this machine (:mod:`arena.run.referees`); None: from the cores
    and the concurrency. Not with ``cluster``, whose workers are the referees."""
    think_slots: int | None = None
    """At most this many bots think on a clock at once (:mod:`referee.thinkslots`); None:
    the config's ``think_slots``, else the cores; 0: no limit. Not with ``cluster``, whose
    workers play one game per thread."""
    plain: bool = False
    """One line per game even on a terminal (no live display)."""
    report: bool = True
    """Build the HTML report every ``report_every`` games and at the end."""
    say: Say = msgspec.field(default_factory=say_on)
    """The run's messages: what it plays, the final standings, how it ended (a caller that
    plays tournaments of its own, such as a league, takes them where it wants). The live
    progress display writes to stdout itself (``plain`` makes it one line per game)."""
    warn: Say = msgspec.field(default_factory=warn_on)
    """Warnings (a game that could not be played, a PGN that could not be written...)."""
    error: Say = msgspec.field(default_factory=error_on)
    """The line of a run that stopped early: a fault of the machine, or interrupted."""


class RunSettings(PlaySettings, frozen=True):
    """How to play one tournament (``arena run``'s arguments, typed)."""

    config: Path | LoadedConfig
    """The tournament: a TOML config file, or one already loaded."""
    output: Path | None = None
    """The run directory; None: the config's ``output``, else ``runs/<config name>``."""
    debug: bool = False
    """Write every bot's protocol lines to ``transcripts/`` (``debug = true`` on each bot)."""


def _no_game_stops(game: ScheduledGame) -> str | None:
    return None


def _nothing_stops(records: list[GameRecord]) -> str | None:
    return None


def _ignore_record(record: GameRecord) -> None:
    return None


class Source(msgspec.Struct, frozen=True):
    """Where one session's games come from, built by its plan once the journal is open."""

    pending: Iterable[ScheduledGame | None]
    """The games to play: a list (a round-robin's missing games), a round feed, a league
    night's planner (see :attr:`arena.run.runner.Tournament.pending`)."""
    total: Callable[[], int]
    """The games the run holds now (the progress's whole; a round feed's grows)."""
    intro: Callable[[int], str]
    """The line said before the games, given the concurrency."""
    account: Callable[[int], str]
    """Where the games are, given how many are journaled (``3/10 games in DIR/games.jsonl``),
    for the last line."""
    complete: Callable[[RunResult], bool]
    """Is the session's work done (every game, an SPRT decision, a night's budget spent)?"""
    record: Callable[[GameRecord], None] = _ignore_record
    """The source's own account of a journaled game (a round feed's results, a planner's)."""
    may_start: Callable[[ScheduledGame], str | None] = _no_game_stops
    stop_when: Callable[[list[GameRecord]], str | None] = _nothing_stops
    finished_bots: Callable[[], Iterable[str]] | None = None
    grown_total: Callable[[int], int] | None = None
    """The progress's whole given the games done, when it may grow beyond :attr:`total`."""
    known: Sequence[ScheduledGame] = ()
    """The games known now (a list's, or a round feed's first round): the bots of the first
    ones are launched before trio loads."""
    deadline: Deadline | None = None
    """When the games end at a moment (a night's deadline): the progress shows the time left
    and what fits rather than a total (its ``concurrency`` is set here)."""
    order: Callable[[ScheduledGame], GameOrder] | None = None
    """The order each game is played from, when the source builds it (a tune's sides play
    with options of their own); None: the config's bots as they are."""


def _no_conclusion(result: RunResult, complete: bool, rated: RatedJournal | None) -> None:
    return None


def _nothing_after(result: RunResult, complete: bool) -> None:
    return None


class RunPlan(msgspec.Struct, frozen=True):
    """One session of play into a run directory: what differs between a tournament and a
    league night (:func:`drive` does the rest)."""

    loaded: LoadedConfig
    out: RunDir
    title: str
    """The progress display's title."""
    names: Sequence[str]
    """The players, for the progress's standings."""
    source: Callable[[Journal], Source]
    """The games, decided once the journal is open (it says what is done)."""
    config_text: str
    """The run directory's copy of the config."""
    config_path: Path
    """Where the config was read (for the warning when it no longer matches the copy)."""
    schedule: Schedule | None = None
    """A tournament's schedule: its fingerprint guards resume (``schedule.json``), and a
    journal with games outside it is refused. None for a night (its plan guards it)."""
    hide: tuple[Path, ...] = ()
    """Folders no bot may see, besides the run directory (the config, a league's nights)."""
    cluster: str | None = None
    """The cluster when the settings name none (a league's policy)."""
    conclude: Callable[[RunResult, bool, RatedJournal | None], None] = _no_conclusion
    """After the games, unless the arena failed, before the final report: what the caller
    does with them, told whether the work is complete and given the journal read once and
    its games fitted once (None when there is no journal to read), which the final report
    shows too (a tournament's standings, a night's closing)."""
    after_report: Callable[[RunResult, bool], None] = _nothing_after
    """After the final report (a closed night's league report, which links the night's)."""
    fit_unreported: bool = True
    """Read and fit the journal at the end even when no report is built (a night's closing
    folds the fit). False: without a report, :attr:`conclude` gets None and nothing loads the
    fit's numpy (a tournament whose end-of-run text is the standings alone)."""


class Played(msgspec.Struct, frozen=True):
    """How one session of :func:`drive` ended."""

    status: int
    """The exit status (``EXIT_*``)."""
    result: RunResult
    """The runner's account of this session (played, failed, why it stopped)."""
    journaled: int
    """Games in the journal now (earlier sessions' included)."""
    complete: bool
    """The session's work is done (exit status 0)."""


class RunOutcome(msgspec.Struct, frozen=True):
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


# ----- the driver ---------------------------------------------------------------------------

def drive(plan: RunPlan, settings: PlaySettings) -> Played:
    """Play one session of ``plan`` into its run directory (which the caller holds locked)
    and conclude it. Raises :class:`UserError` when the directory cannot be used."""
    say, warn, out, loaded = settings.say, settings.warn, plan.out, plan.loaded
    prestart.try_sandbox_early(loaded.bots)  # a no-op when run_tournament started it
    try:
        journal = prepare_run_dir(out, warn, config_text=plan.config_text,
                                  config_path=plan.config_path, schedule=plan.schedule,
                                  hide=plan.hide)
    except OSError as exc:
        raise UserError(f"cannot use output directory {out.root}: {exc.strerror or exc}") from None
    event = loaded.event
    source = plan.source(journal)
    listed = source.pending if isinstance(source.pending, Sequence) else None
    anything = listed is None or bool(listed)
    concurrency = settings.concurrency or loaded.config.concurrency
    if concurrency < 1:
        warn(f"--concurrency {concurrency} is not a positive number; using 1")
        concurrency = 1
    cluster = contextlib.ExitStack()  # the cluster, if any, lives until the games are played
    executor: GameExecutor | None = None
    address = settings.cluster or plan.cluster
    if address and settings.referees is not None:
        raise UserError(f"--referees {settings.referees} with a cluster ({address}): the "
                        "cluster's workers are the referees; give one or the other")
    if address and settings.think_slots is not None:
        raise UserError(f"--think-slots {settings.think_slots} with a cluster ({address}): a "
                        "cluster's worker plays one game per thread; start the workers with "
                        "no more threads than cores instead")
    think = think_slots_for(
        settings.think_slots if settings.think_slots is not None else loaded.config.think_slots,
        timed=any(not tc.infinite for tc in loaded.time_controls.values()))
    referees = (referees_for(settings.referees, concurrency, think_slots=think)
                if not address else None)
    cap = cluster_cap(settings.concurrency, loaded)
    if referees is not None and referees.count > 1 and anything:
        from arena.run.refpool import open_referees

        executor = cluster.enter_context(open_referees(referees, out))
        cap = concurrency
    elif address and anything:
        from arena.cluster.executor import open_cluster

        dask = cluster.enter_context(open_cluster(address, loaded, out.root, warn))
        concurrency = cluster_concurrency(settings.concurrency, loaded, dask.slots)
        executor = dask
    # The first games' bots load while this process goes on loading (trio, the referee, the
    # report's libraries): nothing above imports trio. They are launched by a thread while
    # this one imports; the pool takes them over or ends them.
    # Under think slots a bot's start takes a slot as a search does (referee.match): only the
    # bots that the slots would let start at once are launched ahead.
    ahead = concurrency if referees is None or not referees.thinking \
        else max(1, referees.thinking // 2)
    early = prestart.prestart_soon(prestart.first_bots(
        source.known, ahead, {bot.name: bot for bot in loaded.bots}),
        capture_stderr=True) if executor is None and source.known and anything else None
    try:
        # The PGN is derived data: rebuild it from the journal so the two never disagree
        # (while the first bots load: a resumed run's journal can be long).
        try:
            write_pgn(iter_records(journal.path), out.pgn, event=event)
        except OSError as exc:  # derived data: the journal, not the PGN, must be complete
            warn(f"cannot write {out.pgn}: {exc.strerror or exc}; it is rebuilt on the next "
                 "run")
        import trio  # only now, while the first bots load

        from arena.run.runner import RunResult, Tournament

        launched = early.join() if early is not None else []
        pgn = PgnAppender(out.pgn, event=event)  # open for the run, flushed per game
        report = ReportHook(out.root, say, warn, enabled=settings.report,
                            periodic=loaded.config.report_every > 0)

        def on_record(record: GameRecord) -> None:
            source.record(record)
            grown = (source.grown_total(progress.done) if source.grown_total is not None
                     else source.total())
            progress.total = max(progress.total, grown)
            try:
                pgn.append(record)
            except OSError as exc:
                warn(f"cannot append to {out.pgn}: {exc.strerror or exc}; it is rebuilt on "
                     "the next run")

        progress = Progress(title=plan.title, names=list(plan.names), total=source.total(),
                            done=journal.summaries, live=False if settings.plain else None,
                            deadline=None if source.deadline is None else msgspec.structs.replace(
                                source.deadline, concurrency=concurrency),
                            fitted=settings.report)
        journal.forget_summaries()  # counted into the standings and the SPRT: no longer needed
        say(source.intro(concurrency))
        if referees is not None and referees.thinking:
            say(thinking_text(concurrency, referees))
        tournament = Tournament(
            loaded=loaded,
            pending=source.pending,
            finished_bots=source.finished_bots,
            journal=journal,
            out=out,
            progress=progress,
            on_record=on_record,
            may_start=source.may_start,
            stop_when=source.stop_when,
            periodic=report.build_quietly if report.enabled else None,
            periodic_every=loaded.config.report_every,
            concurrency=concurrency if executor is None else cap,
            executor=executor,
            prestarted=launched,
            order_of=source.order,
            think_slots=referees.thinking if referees is not None and executor is None else 0,
        )
        log_session(out.root, "start", concurrency, warn)
        startup.settle()  # everything the games need is loaded: the collector back on
        try:
            with cluster, progress:
                result: RunResult = trio.run(tournament.run) if anything else RunResult()
        finally:
            pgn.close()
            journal.close()  # the last second's games fsync'd before anyone is told "done"
            log_session(out.root, "end", concurrency, warn)
        progress.summary()
        return close_session(plan, source, settings, report, result, journal.count)
    finally:
        cluster.close()  # a no-op once the games were played; else an error before them
        if early is not None:
            early.discard()  # any the run did not reach (its pool ends the rest)
        prestart.end_sandbox_trial()


def close_session(plan: RunPlan, source: Source, settings: PlaySettings, report: ReportHook,
                  result: RunResult, journaled: int) -> Played:
    """The end of a session: its exit status, then (unless the arena failed) the journal read
    once and its games fitted once for everything that shows them (the caller's conclusion,
    the final report), and the line that says how it ended."""
    status, line = conclusion(result, source.account(journaled), source.complete(result),
                              plan.out)
    complete = status == EXIT_COMPLETE
    if result.arena_fault is None:  # else the machine is short of something: stop at once
        rated = (read_rated(plan.out, settings.warn, cache=report.enabled)
                 if report.enabled or plan.fit_unreported else None)
        plan.conclude(result, complete, rated)
        report.build(final=True, rated=rated)
        plan.after_report(result, complete)
    (settings.warn if status == EXIT_FAILED_GAMES else settings.say if complete
     else settings.error)(line)
    return Played(status, result, journaled, complete)


def read_rated(out: RunDir, warn: Say, *, cache: bool) -> RatedJournal | None:
    """The run's journal read once (through the report's summary cache when ``cache``) and
    its finished games fitted once; None without a journal, or with one that cannot be read
    (said)."""
    from reports.journal_summary import JournalError, summarise_journal
    from reports.rating_tables import RatedJournal

    if not out.journal.is_file():
        return None
    try:
        if cache:
            out.report_dir.mkdir(exist_ok=True)
        return RatedJournal.of(summarise_journal(
            out.root, cache=out.summary_cache if cache else None))
    except (JournalError, OSError) as exc:
        warn(f"cannot read {out.journal} for the standings: {exc}")
        return None


def conclusion(result: RunResult, account: str, complete: bool, out: RunDir
               ) -> tuple[int, str]:
    """The exit status and the line that says how the session ended: 0 when its work is
    complete, 130 when stopped by the user, 1 when games failed or are missing for another
    reason (the line is a warning), 3 when the machine or the arena failed (the line says
    what, and how to go on). ``account`` says where the games are."""
    if result.arena_fault:
        return EXIT_ARENA_FAULT, (f"arena: error: {result.arena_fault}\narena: {account}; run "
                                  "the same command again to play the rest")
    if result.failed:
        return EXIT_FAILED_GAMES, (
            f"{len(result.failed)} game(s) could not be played ({', '.join(result.failed[:5])}); "
            f"run the same command again to retry them")
    if complete:
        return EXIT_COMPLETE, f"arena: done: {account}, PGN in {out.pgn}"
    if result.stop_reason:
        return EXIT_INTERRUPTED, (f"arena: {result.stop_reason}: {account}; run the same "
                                  "command again to resume")
    return EXIT_FAILED_GAMES, (f"arena: {account}, and games are still missing; run the same "
                               "command again")


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


class ReportHook:
    """Rebuilds the HTML report every ``report_every`` games and at the end. A report that
    fails is a warning: it must never cost a tournament its games or its exit status."""

    def __init__(self, run_dir: Path, say: Say, warn: Say, *, enabled: bool = True,
                 periodic: bool = False) -> None:
        self.run_dir = run_dir
        self.say = say
        self.warn = warn
        self.enabled = enabled
        self._build: Callable[..., Path] | None = None
        if enabled and periodic:
            # Rebuilt during the games: imported here, in the main thread before any game
            # starts (pandas, matplotlib), not in the worker thread that runs the rebuilds,
            # where the import would hold the interpreter while the games' clocks run.
            self._load()

    def _load(self) -> Callable[..., Path]:
        if self._build is None:
            from reports.html import build_report

            self._build = build_report
        return self._build

    def build_quietly(self) -> None:
        """The periodic rebuild during a run (called from a worker thread)."""
        self.build(final=False)

    def build(self, *, final: bool, rated: RatedJournal | None = None) -> None:
        """Build the report (``rated``: the journal read and fitted already, else here)."""
        if not self.enabled:
            return
        try:
            where = self._load()(self.run_dir, rated=rated)
        except Exception as exc:  # a report problem must not lose a tournament's exit status
            self.warn(f"report not built: {type(exc).__name__}: {exc}")
            return
        if final:
            self.say(f"arena: report: {where}")


# ----- a tournament -------------------------------------------------------------------------

def run_tournament(settings: RunSettings) -> RunOutcome:
    """Play the games of ``settings.config`` still missing from its run directory, then print
    the ratings (and the table by cluster worker) and build the report.

    Raises :class:`UserError` for a mistake in the config or the settings (exit status 2)."""
    loaded = (settings.config if isinstance(settings.config, LoadedConfig)
              else load_config(settings.config))
    prestart.try_sandbox_early(loaded.bots)  # bwrap's trial runs while the schedule is built
    if loaded.config.tune is not None:
        raise UserError(f"{loaded.path} has a [tune] section: play it with `arena tune "
                        f"{loaded.path}`")
    if settings.debug:
        loaded = msgspec.structs.replace(loaded, bots=tuple(
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
    """:func:`run_tournament` once the run directory is this process's: its plan."""
    feed: RoundFeed | None = None
    if not schedule.final:  # the rounds the journal's results decide (torn last line left out)
        feed = RoundFeed(loaded, results_of(iter_records(out.journal))
                         if out.journal.is_file() else {})
        schedule = feed.schedule
    sprt: SprtStop | None = None
    total = schedule.total

    def source(journal: Journal) -> Source:
        nonlocal feed, sprt
        done = journal.ids()
        pending: list[ScheduledGame] = [g for g in schedule.games if g.id not in done]
        if feed is not None and feed.schedule.final:
            feed = None  # every round is known: a list, as for a round-robin
        stop_when, sprt = sprt_stopper(loaded, journal.summaries)
        if sprt is not None and sprt.decided:
            settings.say(f"arena: {sprt.message()} (already decided; nothing to play)")
            pending = []
        round_feed = feed
        to_play = len(pending) if round_feed is None else max(0, schedule.total - journal.count)

        def schedule_total() -> int:
            return schedule.total if round_feed is None else round_feed.schedule.total

        def complete(result: RunResult) -> bool:
            return (journal.count >= schedule_total()
                    or (sprt is not None and sprt.decided))

        return Source(
            pending=round_feed if round_feed is not None and pending else pending,
            total=schedule_total,
            intro=lambda concurrency: (
                f"arena: {loaded.event}: {loaded.config.game}, {len(loaded.bots)} bots, "
                f"{schedule.total} games ({to_play} to play, concurrency {concurrency}) -> "
                f"{out.root}"),
            account=lambda journaled: f"{journaled}/{schedule_total()} games in {out.journal}",
            complete=complete,
            record=round_feed.record if round_feed is not None else _ignore_record,
            stop_when=stop_when,
            finished_bots=round_feed.finished_bots if round_feed is not None else None,
            known=pending,
        )

    def conclude(result: RunResult, complete: bool, rated: RatedJournal | None) -> None:
        nonlocal total
        if feed is not None:
            total = feed.schedule.total
            try:
                write_schedule_file(out, feed.schedule)
            except OSError as exc:
                settings.warn(f"cannot write {out.schedule}: {exc.strerror or exc}")
        say = settings.say
        if rated is not None:
            if table := ratings_text(rated):
                say(table)
            if table := format_text(loaded, rated):
                say(table)
            if settings.cluster and (table := workers_text(rated)):
                say(table)
        if sprt is not None:
            say(f"arena: {sprt.message()}")

    plan = RunPlan(loaded=loaded, out=out, title=loaded.event,
                   names=[bot.name for bot in loaded.bots], source=source,
                   config_text=loaded.copy_text, config_path=loaded.path, schedule=schedule,
                   hide=(loaded.path,),
                   conclude=conclude,
                   # Without a report the standings are the end-of-run text, unless rounds
                   # (a knockout's bracket, a Swiss table) or a cluster's workers are shown.
                   fit_unreported=(loaded.config.format in ("knockout", "swiss")
                                   or bool(settings.cluster)))
    played = drive(plan, settings)
    if feed is not None:
        total = feed.schedule.total
    return RunOutcome(played.status, played.result, total, played.journaled, out, sprt)


def sprt_stopper(
    loaded: LoadedConfig, records: list[GameRecord]
) -> tuple[Callable[[list[GameRecord]], str | None], SprtStop | None]:
    """A ``stop_when`` hook that stops the match once the SPRT decides (a no-op without one),
    already fed with the games of the journal."""
    if loaded.config.sprt is None:
        return _nothing_stops, None
    from arena.run.sprt_stop import SprtStop  # scipy: imported only when a match needs it

    tested, opponent = loaded.bots[0].name, loaded.bots[1].name
    stop = SprtStop(loaded.config.sprt, tested, opponent)
    stop.feed(records)
    return stop.add_all, stop


# ----- what a tournament prints at its end --------------------------------------------------

def workers_text(rated: RatedJournal) -> str | None:
    """Games, mean move time and scores per cluster worker (fair time controls need equal
    machines); None when no game names a worker."""
    from reports.workers import worker_table

    table = worker_table(rated.journal)
    return None if table is None else f"by worker:\n{table.to_string()}"


def format_text(loaded: LoadedConfig, rated: RatedJournal) -> str | None:
    """A knockout's bracket or a Swiss tournament's standings as text; None for the other
    formats."""
    if loaded.config.format not in ("knockout", "swiss"):
        return None
    from reports.format_tables import first_mover_results, rounds_text

    return rounds_text(loaded.config, first_mover_results(rated.journal))


def ratings_text(rated: RatedJournal) -> str | None:
    """The Ordo-style Elo table of every journaled game (``arena ratings`` gives more); None
    with fewer than two players."""
    from reports.rating_tables import format_table

    if rated.fit is None or len(rated.players()) < 2:
        return None
    return format_table(rated.fit)
