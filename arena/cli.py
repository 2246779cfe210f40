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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Tournaments between board-game bots: rules, referee, ratings, reports.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"arena.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"arena.commands.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
