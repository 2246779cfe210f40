"""Shared by ``arena perft`` and ``arena show``: the GAME / --position / --moves arguments and
building the game they name, with one-line errors for bad input."""

from __future__ import annotations

import argparse

from referee.games import Game, GameError, get_game


def add_position_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="game name (see `arena games`)")
    parser.add_argument(
        "--position", metavar="TEXT", default=None,
        help="position text in the game's own format (default: the standard start)",
    )
    parser.add_argument(
        "--moves", metavar="MOVES", default="",
        help='moves to play first, space-separated in one argument: "32-28 19-23"',
    )


def build_game(args: argparse.Namespace) -> Game:  # type: ignore[type-arg]
    """The game named by ``args.game`` at ``--position`` after ``--moves``.

    Errors say which move (by number) failed, after the game's own message."""
    cls = get_game(args.game)
    game = cls.new(args.position)
    for number, move in enumerate(args.moves.split(), start=1):
        try:
            game.play(move)
        except GameError as exc:
            raise GameError(f"--moves, move {number} ({move!r}): {exc}") from None
    return game
