"""Plays AFTER moves, then dies of SIGABRT (os.abort) while a move is due."""

import os

from _base import note, serve


def on_go(legal: list[str], moves: int) -> bool:
    note("aborting on purpose")
    os.abort()


serve(on_go)
