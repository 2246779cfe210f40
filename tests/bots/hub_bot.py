"""A small draughts engine that speaks Hub (version 2) as Scan 3.1 does: the arena's test
engine for the Hub dialect, run in CI where Scan itself is not built.

It keeps its own board from ``pos pos=... moves="..."`` (the arena's draughts rules do the
moves), answers ``hub``/``init``/``ping``/``new-game``/``level``/``go think``/``stop``/``quit``,
and plays the move that leaves the opponent the least material (ties at random), written in
Hub's ``from x to x captured...`` form. ``--mode`` makes it misbehave for tests: ``illegal``
(a move that is not legal), ``short`` (captures as ``from x to`` only), ``error`` (an ``error``
line instead of a move), ``silent`` (never answers ``go``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from protocol import hubtext  # noqa: E402
from referee.games import get_game  # noqa: E402


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", default="normal",
                        choices=("normal", "illegal", "short", "error", "silent"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rules = get_game("draughts")
    board = rules.start()
    infinite = False
    pending: str | None = None
    for raw in sys.stdin:
        line = hubtext.parse_line(raw.strip())
        if line is None:
            continue
        command, fields = line
        if command == "hub":
            say("id name=HubBot version=1.0 author=\"the arena\"")
            say("param name=variant value=normal type=enum values=\"normal\"")
            say("param name=book value=false type=bool")
            say("wait")
        elif command == "init":
            say("ready")
        elif command == "ping":
            say("pong")
        elif command == "pos":
            board = rules.from_position(hubtext.position_to_fen(fields.get("pos", "")))
            for text in fields.get("moves", "").split():
                wanted = hubtext.parse_move(text)
                board.push(next(m for m in board.moves() if m.start == wanted.start
                                and m.end == wanted.end
                                and frozenset(m.captured) == wanted.captured))
        elif command == "level":
            infinite = "infinite" in fields
        elif command == "go":
            pending = choose(board, rng, args.mode)
            if args.mode == "silent":
                pending = None
            elif not infinite:
                say(pending)
                pending = None
        elif command == "stop" and pending is not None:
            say(pending)
            pending = None
        elif command == "quit":
            return 0
    return 0


def choose(board: object, rng: random.Random, mode: str) -> str:
    moves = board.moves()  # type: ignore[attr-defined]
    if mode == "error":
        return 'error message="cannot think today"'
    if mode == "illegal":
        return "done move=1-50"
    most = max(len(m.captured) for m in moves)
    best = [m for m in moves if len(m.captured) == most]
    move = rng.choice(best)
    text = (f"{move.start}x{move.end}" if mode == "short" and move.captured
            else hubtext.format_move(move.start, move.end, move.captured))
    score = most - (0 if not move.captured else 0)
    return f"info depth=1 score={score:.2f} nodes={len(moves)}\ndone move={text}"


if __name__ == "__main__":
    sys.exit(main())
