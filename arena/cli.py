"""The ``arena`` command: one sub-command per module in ``arena.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` to a callable taking the parsed arguments and returning an exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from arena.errors import UserError
from referee.games.base import GameError

# Module names under arena.commands, in the order `arena --help` lists them.
COMMANDS: tuple[str, ...] = (
    "games",
    "perft",
    "show",
    "play",
    "check_bot",
    "run",
    "ratings",
    "report",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or with just ``only`` (a module name) so that one
    command does not pay for the imports of all the others (pandas, scipy, matplotlib)."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Tournaments between board-game bots: rules, referee, ratings, reports.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if only is not None and name != only:
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
    parser = build_parser(_command_module(argv))
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except (UserError, GameError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
