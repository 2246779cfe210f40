"""``arena run CONFIG.toml``: play (or resume) a tournament and write its journal, PGN and report.

Output directory (``--output``, else the config's ``output``, else ``runs/<config name>``):
``games.jsonl`` (the journal: one game record per line, the source of truth), ``games.pgn``
(rebuilt from the journal on every start, then appended game by game), ``logs/`` (the bots'
stderr), ``config.toml`` (the config used) and ``schedule.json`` (the games and the
fingerprint that guards resume), ``sessions.jsonl`` (when each session started and ended,
the arena version and concurrency, for the report). Running the same command again resumes:
only the games missing from the journal are played.

Exit status: 0 when the schedule is complete, 1 when games failed or are missing, 2 for a
mistake in the command or the config, 3 when the machine or the arena failed (bots that
cannot be started for want of files, processes or memory; a full disk), 130 when stopped.

With ``--cluster`` the games are played by the workers of a Dask cluster
(``arena.cluster.executor``) and everything else stays here.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from arena import prestart
from arena.config import LoadedConfig, load_config
from arena.errors import UserError
from arena.progress import Progress
from arena.rundir.journal import iter_records
from arena.rundir.layout import RunDir
from arena.rundir.prepare import lock_run_dir, prepare_run_dir
from arena.rundir.sessions import log_session
from arena.schedule import build_schedule
from referee.record import GameRecord
from reports.pgn import append_pgn, write_pgn

if TYPE_CHECKING:
    from arena.runner import RunResult
    from arena.sprt_stop import SprtStop

EXIT_INTERRUPTED: Final = 130
EXIT_FAILED_GAMES: Final = 1
EXIT_ARENA_FAULT: Final = 3
"""The run stopped on the machine's or the arena's fault (bots that cannot be started, a full
disk); the games concerned have no result and a resume plays them."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "run",
        help="play a tournament from a TOML config (resumes an existing output directory)",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("config", type=Path, help="tournament config (see examples/*.toml)")
    parser.add_argument("-o", "--output", type=Path, help="output directory (overrides 'output')")
    parser.add_argument("-j", "--concurrency", type=int, help="games at once (overrides config)")
    parser.add_argument("--plain", action="store_true", help="one line per game even on a terminal")
    parser.add_argument("--no-report", action="store_true", help="do not build the HTML report")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the games on a Dask cluster: local:N (N worker processes here) or "
        "tcp://HOST:8786 (a running scheduler); everything else stays on this machine",
    )
    parser.add_argument("--debug", action="store_true",
                        help="write every bot's protocol lines to transcripts/<game>.log "
                        "(as 'debug = true' on each bot)")
    parser.set_defaults(func=run)


def warn(text: str) -> None:
    print(f"arena: warning: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    loaded = load_config(args.config)
    if args.debug:
        loaded = dataclasses.replace(loaded, bots=tuple(
            msgspec.structs.replace(bot, debug=True) for bot in loaded.bots))
    schedule = build_schedule(loaded)
    root = args.output or loaded.default_output() or Path("runs") / loaded.path.stem
    out = RunDir(root)
    try:
        lock = lock_run_dir(out)  # noqa: F841 - held (open) until the process exits
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
    pending = [g for g in schedule.games if g.id not in done]
    stop_when, sprt = sprt_stopper(loaded, journal.summaries)
    if sprt is not None and sprt.decided:
        print(f"arena: {sprt.message()} (already decided; nothing to play)")
        pending = []
    concurrency = args.concurrency or loaded.config.concurrency
    if concurrency < 1:
        warn(f"--concurrency {concurrency} is not a positive number; using 1")
        concurrency = 1
    cluster = contextlib.ExitStack()  # the cluster, if any, lives until the games are played
    executor = None
    if args.cluster and pending:
        from arena.cluster.executor import open_cluster

        executor = cluster.enter_context(open_cluster(args.cluster, loaded, out.root, warn))
        concurrency = cluster_concurrency(args.concurrency, loaded, executor.slots)
    # The first games' bots load while this process goes on loading (trio, the referee, the
    # report's libraries): nothing above imports trio. The pool takes them over or ends them.
    launched = prestart.prestart(prestart.first_bots(
        pending, concurrency, {bot.name: bot for bot in loaded.bots}),
        capture_stderr=True) if executor is None else []
    import trio  # only now, while the first bots load

    from arena.runner import RunResult, Tournament

    try:
        report = ReportHook(out.root, enabled=not args.no_report)

        def on_record(record: GameRecord) -> None:
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
            live=False if args.plain else None,
        )
        journal.forget_summaries()  # counted into the standings and the SPRT: no longer needed
        print(
            f"arena: {event}: {loaded.config.game}, {len(loaded.bots)} bots, "
            f"{schedule.total} games ({len(pending)} to play, concurrency {concurrency}) -> "
            f"{out.root}",
            flush=True,
        )
        tournament = Tournament(
            loaded=loaded,
            pending=pending,
            journal=journal,
            out=out,
            progress=progress,
            on_record=on_record,
            stop_when=stop_when,
            periodic=report.build_quietly if report.enabled else None,
            periodic_every=loaded.config.report_every,
            concurrency=concurrency,
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
        if result.arena_fault is None:  # else the machine is short of something: stop at once
            print_ratings(out.journal)
            if args.cluster:
                print_workers(out.root)
            if sprt is not None:
                print(f"arena: {sprt.message()}")
            report.build(final=True)
        return _exit_status(result, schedule.total, journal.count, out, sprt)
    finally:
        prestart.discard(launched)  # any the run did not reach (its pool ends the rest)


def cluster_concurrency(cap: int | None, loaded: LoadedConfig, threads: int) -> int:
    """A cluster plays as many games at once as it has threads, or fewer when ``-j`` or the
    config's own ``concurrency`` key (when written) asks for fewer."""
    import msgspec

    if cap is None and "concurrency" in msgspec.toml.decode(loaded.text.encode()):
        cap = loaded.config.concurrency
    return max(1, min(threads, cap) if cap else threads)


def print_workers(run_dir: Path) -> None:
    """Games, mean move time and scores per cluster worker (fair time controls need equal
    machines)."""
    from reports.journal import summarise_journal
    from reports.workers import worker_table

    table = worker_table(summarise_journal(run_dir))
    if table is not None:
        print(f"by worker:\n{table.to_string()}", flush=True)


def print_ratings(journal: Path) -> None:
    """The Ordo-style Elo table of every journaled game (``arena ratings`` gives more)."""
    from arena.rundir.results import read_results
    from ratings import aggregate, fit_ratings
    from ratings.table import format_table

    results = read_results(journal) if journal.exists() else []
    if len({name for r in results for name in (r.first, r.second)}) < 2:
        return
    print(format_table(fit_ratings(aggregate(results))), flush=True)


def _exit_status(
    result: RunResult, total: int, journaled: int, out: RunDir, sprt: SprtStop | None
) -> int:
    """0 when the schedule is complete (or the SPRT decided), 130 when stopped by the user,
    1 when games failed or are missing for another reason, 3 when the machine or the arena
    failed (the message says what, and how to go on)."""
    missing = total - journaled
    if result.arena_fault:
        print(f"arena: error: {result.arena_fault}\narena: {journaled}/{total} games in "
              f"{out.journal}; run the same command again to play the rest", file=sys.stderr)
        return EXIT_ARENA_FAULT
    if result.failed:
        warn(
            f"{len(result.failed)} game(s) could not be played ({', '.join(result.failed[:5])}); "
            f"run the same command again to retry them"
        )
        return EXIT_FAILED_GAMES
    if missing == 0 or (sprt is not None and sprt.decided):
        print(f"arena: done: {journaled}/{total} games in {out.journal}, PGN in {out.pgn}")
        return 0
    if result.stop_reason:
        print(
            f"arena: {result.stop_reason}: {journaled}/{total} games in {out.journal}; "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    warn(f"{missing} game(s) still missing from {out.journal}; run the same command again")
    return EXIT_FAILED_GAMES


# ----------------------------------------------------------------------------- integration
def sprt_stopper(
    loaded: LoadedConfig, records: list[GameRecord]
) -> tuple[Callable[[GameRecord], str | None], SprtStop | None]:
    """A ``stop_when`` hook that stops the match once the SPRT decides (a no-op without one),
    already fed with the games of the journal."""
    if loaded.config.sprt is None:
        return (lambda record: None), None
    from arena.sprt_stop import SprtStop  # scipy: imported only when a match needs it

    tested, opponent = loaded.bots[0].name, loaded.bots[1].name
    stop = SprtStop(loaded.config.sprt, tested, opponent)
    stop.feed(records)
    return stop.add, stop


class ReportHook:
    """Rebuilds the HTML report every ``report_every`` games and at the end. A report that
    fails is a warning: it must never cost a tournament its games or its exit status."""

    def __init__(self, run_dir: Path, *, enabled: bool = True) -> None:
        self.run_dir = run_dir
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
            warn(f"report not built: {type(exc).__name__}: {exc}")
            return
        if final:
            print(f"arena: report: {where}")
