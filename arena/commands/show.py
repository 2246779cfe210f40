"""``arena show``: print a position of any game as a person reads it: diagram, position text,
side to move, the result if the game is over, and the legal moves."""

from __future__ import annotations

import argparse

from arena.commands._position import add_position_arguments, build_game


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "show", help="show a position: diagram, position text, side to move, legal moves"
    )
    add_position_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game = build_game(args)
    side = game.side_to_move
    print(game.diagram())
    print(f"position: {game.position()}")
    print(f"to move: {game.SIDE_LABELS[side]} (p{side + 1})")
    outcome = game.outcome()
    if outcome is not None:
        print(f"game over: {outcome.result} ({outcome.reason}) {outcome.detail}".rstrip())
    adjudicated = game.adjudication()
    if adjudicated is not None:
        print(f"adjudication: {adjudicated.result} ({adjudicated.reason}) {adjudicated.detail}")
    moves = game.legal_moves()
    print(f"legal moves ({len(moves)}): {' '.join(moves)}")
    return 0
