"""``arena report RUN_DIR``: build (or refresh) the HTML report of a run from its journal."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from arena.errors import UserError
from arena.leaguedir.directory import is_league
from reports.journal_summary import JournalError
from reports.viewer_files import DEFAULT_VIEWER_LIMIT


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "report",
        help="write RUN_DIR/report.html (standings, crosstable, charts, game viewer) and CSVs",
    )
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR",
                        help="a run directory, or a league directory (its league report)")
    parser.add_argument(
        "--viewer-limit",
        type=int,
        default=DEFAULT_VIEWER_LIMIT,
        metavar="N",
        help="render move-by-move viewers for at most N games, faulty games first, then the "
        f"most recent (default {DEFAULT_VIEWER_LIMIT}; 0 = every game)",
    )
    parser.add_argument(
        "--text",
        action="store_true",
        help="print the standings and the statistics blocks (games, wins, draws, first- "
        "against second-player wins, moves per game; Donkan's points by kind) instead of "
        "writing the HTML report; writes nothing",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    run_dir: Path = args.run_dir
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    if args.viewer_limit < 0:
        raise UserError(f"--viewer-limit must be 0 (all) or more, got {args.viewer_limit}")
    started = time.perf_counter()
    if args.text:
        if is_league(run_dir):
            raise UserError(f"{run_dir}: --text reads a run directory, not a league "
                            "(`arena league bots` lists a league's versions)")
        from reports.text import text_report

        try:
            print(text_report(run_dir), end="")
        except JournalError as exc:
            raise UserError(str(exc)) from None
        return 0
    if is_league(run_dir):
        from reports.league_report import build_league_report

        where = build_league_report(run_dir)
        print(f"{where} (league, {time.perf_counter() - started:.1f} s)")
        return 0
    from reports.html import build  # here: --text needs no charts (matplotlib)

    try:
        built = build(run_dir, viewer_limit=args.viewer_limit or None)
    except JournalError as exc:
        raise UserError(str(exc)) from None
    seconds = time.perf_counter() - started
    print(
        f"{built.html} ({len(built.games)} games, {len(built.viewers)} viewers, "
        f"{seconds:.1f} s)"
    )
    for note in built.notes:
        print(f"note: {note}")
    return 0
