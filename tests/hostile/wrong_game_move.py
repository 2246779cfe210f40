"""Plays AFTER moves, then answers in another game's notation (a draughts capture)."""

from _base import say, serve


def on_go(legal: list[str], moves: int) -> bool:
    say("bestmove 32x23x14")
    return True


serve(on_go)
