"""A greedy bot for all five games: it tries every legal move and keeps the best evaluation.

The middle rung of the sample ladder (random < greedy < alphabeta): the same evaluation as
``alphabeta.py`` (``sample_bots/evaluation.py``) but one ply deep (plus, in draughts, the
captures that must follow), so it takes what is offered and walks into every trap. It also
shows the smallest way to use the rules and :func:`protocol.bot.run_bot`: rebuild the position
from the ``position`` line, push each move, evaluate, pop. ``--seed N`` breaks ties between
equal moves.

Run as ``python sample_bots/greedy.py [--seed N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from protocol.bot import BotPosition, run_bot  # noqa: E402
from protocol.messages import Go  # noqa: E402
from referee.games import GameError, get_game  # noqa: E402
from sample_bots.evaluation import WIN, get_evaluator  # noqa: E402


class Follower:
    """Keeps the board between moves and plays only the new moves (long games stay cheap)."""

    def __init__(self) -> None:
        self.key: tuple[str, str | None, tuple[tuple[str, str], ...]] | None = None
        self.moves: list[str] = []
        self.board: Any = None

    def board_for(self, position: BotPosition) -> Any:
        key = (position.game, position.fen, tuple(sorted(position.game_options.items())))
        if key != self.key or position.moves[: len(self.moves)] != self.moves:
            rules = get_game(position.game)
            try:
                self.board = rules.new(position.fen, **position.game_options)
            except (GameError, TypeError):
                self.board = rules.new(position.fen)  # options this game does not take
            self.key, self.moves = key, []
        for move in position.moves[len(self.moves):]:
            self.board.play(move)
        self.moves = list(position.moves)
        return self.board


FORCED_REPLIES = 6
"""How many forced capture replies (draughts) are followed before the position is scored."""


def score_after(board: Any, evaluator: Any, forced: int = FORCED_REPLIES) -> int:
    """The position after a move, scored for the side that just moved. Where captures are
    compulsory (draughts) and the side to move must capture, the captures are played out
    first, each side taking its best: a position in which a capture is due is not a quiet
    one, and scoring it as it stands made greedy offer men that random then had to take."""
    if evaluator.boundary(board) or not board.moves():
        outcome = board.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return 0
            return WIN if outcome.winner != board.side_to_move else -WIN
    if forced and evaluator.FORCED_CAPTURES:
        replies = board.moves()
        if replies and all(evaluator.forcing_value(board, reply) > 0 for reply in replies):
            best = -2 * WIN
            for reply in replies:
                board.push(reply)
                best = max(best, score_after(board, evaluator, forced - 1))
                board.pop()
            return -best
    return -int(evaluator.evaluate(board))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="tie-breaking seed (default 0)")
    parser.add_argument("--name", default="greedy", help="name sent in 'id name'")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    follower = Follower()

    def choose(position: BotPosition, legal: list[str], go: Go) -> str:
        try:
            board = follower.board_for(position)
            evaluator = get_evaluator(position.game)
        except (GameError, KeyError) as exc:
            print(f"greedy: {exc}; playing a random legal move", file=sys.stderr)
            follower.key = None
            return rng.choice(legal) if legal else "(none)"
        moves = board.moves()
        rng.shuffle(moves)
        best, best_score = None, -2 * WIN
        for move in moves:
            board.push(move)
            score = score_after(board, evaluator)
            board.pop()
            if score > best_score:
                best, best_score = move, score
        if best is None:
            return rng.choice(legal) if legal else "(none)"
        return str(board.format_move(best))

    return run_bot(choose, name=args.name, author="arena sample bots")


if __name__ == "__main__":
    sys.exit(main())
