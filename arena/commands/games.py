"""``arena games``: list the games the referee knows, one line each."""

from __future__ import annotations

import argparse

from referee.games import game_names, get_game


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("games", help="list the games with a one-line description")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for name in game_names():
        print(f"{name:10} {get_game(name).DESCRIPTION}")
    return 0
