"""``arena run CONFIG.toml``: play (or resume) a tournament and write its journal, PGN and report.

Output directory (``--output``, else the config's ``output``, else ``runs/<config name>``):
``games.jsonl`` (the journal: one game record per line, the source of truth), ``games.pgn``
(rebuilt from the journal on every start, then appended game by game), ``logs/`` (the bots'
stderr), ``config.toml`` (the config used) and ``schedule.json`` (the games and the
fingerprint that guards resume). Running the same command again resumes: only the games
missing from the journal are played.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

import trio

from arena.config import LoadedConfig, load_config
from arena.progress import Progress
from arena.runner import OutputDir, RunResult, Tournament, prepare_output
from arena.schedule import build_schedule
from referee.record import GameRecord
from reports.pgn import append_pgn, write_pgn

EXIT_INTERRUPTED: Final = 130
EXIT_FAILED_GAMES: Final = 1


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
    parser.set_defaults(func=run)


def warn(text: str) -> None:
    print(f"arena: warning: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    loaded = load_config(args.config)
    schedule = build_schedule(loaded)
    root = args.output or loaded.default_output() or Path("runs") / loaded.path.stem
    out = OutputDir(root)
    journal = prepare_output(loaded, schedule, out, warn)
    event = loaded.event
    # The PGN is derived data: rebuild it from the journal so the two never disagree.
    write_pgn(journal.records, out.pgn, event=event)
    done = journal.ids()
    pending = [g for g in schedule.games if g.id not in done]
    concurrency = args.concurrency or loaded.config.concurrency
    if concurrency < 1:
        warn(f"--concurrency {concurrency} is not a positive number; using 1")
        concurrency = 1
    report = ReportHook(out.root, loaded.config.report_every, enabled=not args.no_report)

    def on_record(record: GameRecord) -> None:
        append_pgn(record, out.pgn, event=event)
        report.game_done()

    progress = Progress(
        title=event,
        names=[bot.name for bot in loaded.bots],
        total=schedule.total,
        done=journal.records,
        live=False if args.plain else None,
    )
    print(
        f"arena: {event}: {loaded.config.game}, {len(loaded.bots)} bots, {schedule.total} games "
        f"({len(pending)} to play, concurrency {concurrency}) -> {out.root}",
        flush=True,
    )
    tournament = Tournament(
        loaded=loaded,
        pending=pending,
        journal=journal,
        out=out,
        progress=progress,
        on_record=on_record,
        stop_when=sprt_stopper(loaded, journal.records),
        concurrency=concurrency,
    )
    with progress:
        result: RunResult = trio.run(tournament.run) if pending else RunResult()
    progress.summary()
    report.build(final=True)
    return _exit_status(result, schedule.total, len(journal.records), out)


def _exit_status(result: RunResult, total: int, journaled: int, out: OutputDir) -> int:
    missing = total - journaled
    if result.failed:
        warn(
            f"{len(result.failed)} game(s) could not be played ({', '.join(result.failed[:5])}); "
            f"run the same command again to retry them"
        )
        return EXIT_FAILED_GAMES
    if result.stop_reason and "SPRT" not in result.stop_reason:
        print(
            f"arena: {result.stop_reason}: {journaled}/{total} games in {out.journal}; "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if missing and not result.stop_reason:
        warn(f"{missing} game(s) still missing from {out.journal}")
        return EXIT_FAILED_GAMES
    print(f"arena: done: {journaled}/{total} games in {out.journal}, PGN in {out.pgn}")
    return 0


# ----------------------------------------------------------------------------- integration
# SPRT early stop. The test itself belongs to arena/ratings (one implementation for the
# project); this is only the glue. INTEGRATION POINT: arena.ratings.sprt.
def sprt_stopper(
    loaded: LoadedConfig, records: list[GameRecord]
) -> Callable[[GameRecord], str | None]:
    """A ``stop_when`` hook that stops the match once the SPRT decides; a no-op without one."""
    sprt = loaded.config.sprt
    if sprt is None:
        return lambda record: None
    try:
        module = importlib.import_module("arena.ratings.sprt")
    except ModuleNotFoundError:
        warn(
            "[sprt] is configured but arena.ratings.sprt is not available yet "
            "(TODO: integration); playing the whole schedule"
        )
        return lambda record: None
    first = loaded.bots[0].name
    wdl = [0, 0, 0]  # wins, draws, losses of the first bot

    def count(record: GameRecord) -> None:
        if record.result == "1/2-1/2":
            wdl[1] += 1
        elif record.result in ("1-0", "0-1"):
            first_won = (record.result == "1-0") == (record.p1 == first)
            wdl[0 if first_won else 2] += 1

    for record in records:
        count(record)

    def stop_when(record: GameRecord) -> str | None:
        count(record)
        decision = module.sprt_decision(
            wins=wdl[0], draws=wdl[1], losses=wdl[2],
            elo0=sprt.elo0, elo1=sprt.elo1, alpha=sprt.alpha, beta=sprt.beta,
        )  # fmt: skip
        if decision:
            return f"SPRT: {decision} after {sum(wdl)} games (W/D/L {wdl[0]}/{wdl[1]}/{wdl[2]})"
        return None

    return stop_when


class ReportHook:
    """Rebuilds the HTML report every ``every`` games and at the end, if the report exists.

    INTEGRATION POINT: the report builder lives in ``reports/`` (another layer, written
    separately); until it exposes ``build_report(run_dir)`` this hook does nothing.
    """

    MODULE: Final = "reports.html"
    FUNCTION: Final = "build_report"

    def __init__(self, run_dir: Path, every: int, *, enabled: bool = True) -> None:
        self.run_dir = run_dir
        self.every = every
        self.enabled = enabled
        self.count = 0

    def _builder(self) -> Callable[[Path], object] | None:
        try:
            module = importlib.import_module(self.MODULE)
        except ModuleNotFoundError:
            return None
        builder: Callable[[Path], object] | None = getattr(module, self.FUNCTION, None)
        return builder

    def game_done(self) -> None:
        self.count += 1
        if self.every and self.count % self.every == 0:
            self.build(final=False)

    def build(self, *, final: bool) -> None:
        if not self.enabled:
            return
        builder = self._builder()
        if builder is None:
            return
        try:
            where = builder(self.run_dir)
        except Exception as exc:  # a report problem must not lose a tournament's exit status
            warn(f"report not built: {type(exc).__name__}: {exc}")
            return
        if final:
            print(f"arena: report: {where or self.run_dir}")
