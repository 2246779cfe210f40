"""The ``arena`` command: one sub-command per module in ``arena.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` to a callable taking the parsed arguments and returning an exit status. Only the
command named on the line is imported: ``arena --help`` lists the commands from
:data:`SUMMARIES` (kept equal to each module's own help by a test) without importing any,
so that it costs no rules, trio, numpy or pandas.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from arena import startup
from arena.errors import UserError

# Module names under arena.commands, in the order `arena --help` lists them.
COMMANDS: tuple[str, ...] = (
    "games",
    "perft",
    "show",
    "play",
    "check_bot",
    "run",
    "tune",
    "ratings",
    "report",
    "serve",
    "league",
    "openings",
)

SUMMARIES: dict[str, tuple[str, str]] = {
    "games": ("games", "list the games with a one-line description"),
    "perft": ("perft", "count move-tree leaves DEPTH moves deep (last line: 'perft DEPTH: N')"),
    "show": ("show", "show a position: diagram, position text, side to move, legal moves"),
    "play": ("play", "play games between two bot commands, live"),
    "check_bot": ("check-bot", "check that a bot speaks the protocol (numbered PASS/FAIL steps)"),
    "run": ("run", "play a tournament from a TOML config (resumes an existing output directory)"),
    "tune": ("tune", "tune a bot's options by games (SPSA), then prove the tune with an SPRT"),
    "ratings": ("ratings",
                "ratings and credible intervals (or Ordo-style) of runs, PGN files, leagues"),
    "report": ("report", "write RUN_DIR/report.html (standings, crosstable, charts, game viewer) "
               "and CSVs"),
    "serve": ("serve", "a live web page of a run (or, with --play, a game against a bot)"),
    "league": ("league", "a league: bots submitted over time, played every night, rated over all "
               "nights"),
    "openings": ("openings", "make a balanced opening book with an engine, or prune one by "
                 "its games"),
}
"""Module -> (command, one-line help) for ``arena --help``; a command missing here is imported
to list it."""


def build_parser(only: str | None = None, *, summaries: bool = True) -> argparse.ArgumentParser:
    """The parser with just ``only`` (a module name), so that one command does not pay for
    the imports of all the others (pandas, scipy, matplotlib); without ``only``, every command
    (as a one-line summary from :data:`SUMMARIES` unless ``summaries`` is False)."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Tournaments between board-game bots: rules, referee, ratings, reports.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        if only is None and summaries and name in SUMMARIES:
            command, text = SUMMARIES[name]
            sub.add_parser(command, help=text)
            continue
        try:
            module = importlib.import_module(f"arena.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"arena.commands.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def _command_module(argv: Sequence[str]) -> str | None:
    """The module of the command named on the line, if it is a known one."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    name = first.replace("-", "_") if first else None
    return name if name in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The ratings and reports use numpy on small matrices: OpenBLAS's thread pool would only
    # spin up threads (70-130 ms of CPU more per numpy import here) for nothing. The user's
    # own setting wins; bots never see it (they get a clean environment).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = build_parser(_command_module(argv))
    args = parser.parse_args(argv)
    from referee.games.base import GameError

    if not getattr(args, "settles", False):  # else the command does, when its work begins
        startup.settle()
    try:
        status: int = args.func(args)
    except (UserError, GameError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    return status


def console() -> NoReturn:
    """The ``arena`` program: :func:`main`, then an exit that skips the interpreter's last
    garbage collections. With pandas, matplotlib and trio loaded, those walk half a million
    objects that die with the process anyway: 0.5 s of CPU and wall after a run's last line
    here (0.05 s frozen). Buffers are flushed and ``atexit`` handlers (the cgroups') run as
    usual; only cyclic garbage is left to the kernel, and when nothing else is left to tear
    down (no file or child process of its own, no thread but daemon ones) the interpreter's
    teardown too (:func:`arena.startup.leave`). Not in :func:`main`, which tests call
    in-process. Output cut short by its reader (``arena games | head -1``) ends the command
    quietly, as for other Unix tools. The command starts without the cyclic garbage collector,
    and imports msgspec without ``typing_extensions`` (:mod:`arena.startup`)."""
    startup.pause()
    startup.load_msgspec()
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the pipe again while flushing stdout at exit: point it at
        # /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 141  # 128 + SIGPIPE, what a shell reports for a tool the pipe ended
    gc.freeze()
    startup.leave(status)


if __name__ == "__main__":
    console()
