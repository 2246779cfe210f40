"""Plays AFTER moves, then prints ``info`` lines forever, never a ``bestmove``."""

from _base import say, serve


def on_go(legal: list[str], moves: int) -> bool:
    depth = 0
    while True:
        depth += 1
        say(f"info depth {depth} score cp {depth % 100} nodes {depth * 1000} pv {legal[0]}")


serve(on_go)
