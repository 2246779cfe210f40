"""Plays AFTER moves, then answers ``bestmove (none)`` although moves are legal."""

from _base import say, serve


def on_go(legal: list[str], moves: int) -> bool:
    say("bestmove (none)")
    return True


serve(on_go)
