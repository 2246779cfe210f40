"""``arena league``: a league directory that lives for months (:mod:`arena.league`).

Sub-commands: ``init`` writes ``league.toml``; ``submit``, ``bots`` and ``retire`` manage the
versions (:mod:`arena.commands.league_bots`); ``run`` plays a night
(:mod:`arena.commands.league_night`); ``tune`` tunes a stored version's options
(:mod:`arena.commands.league_tune`); ``author`` adds, lists and revokes the authors who submit
over the web (:mod:`arena.commands.league_authors`).
"""

from __future__ import annotations

import argparse
import importlib

SUBCOMMANDS = ("league_init", "league_bots", "league_night", "league_authors", "league_tune")
"""The modules that add ``arena league`` sub-commands (``register(subparsers)`` each)."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "league", help="a league: bots submitted over time, played every night, rated over all "
        "nights",
        description="A league directory: submit versions of bots, play nights, read the "
        "ratings and the report across nights.")
    inner = parser.add_subparsers(dest="league_command", metavar="SUBCOMMAND", required=True)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"arena.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"arena.commands.{name}":
                continue  # not built yet
            raise
        module.register(inner)
