"""Plays AFTER moves, then answers a well-formed move that is not legal (a2a5, a rook's dream)."""

from _base import say, serve


def on_go(legal: list[str], moves: int) -> bool:
    say("bestmove a2a5")
    return True


serve(on_go)
