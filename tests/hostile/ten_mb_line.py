"""Plays AFTER moves, then sends one 10 MB ``info string`` line before its move."""

from _base import say, serve


def on_go(legal: list[str], moves: int) -> bool:
    say("info string " + "y" * (10 << 20))
    return False  # then the normal move


serve(on_go)
