"""Plays AFTER moves, then never answers ``go`` (nor ``stop``, nor ``quit``): silent forever."""

import time

from _base import serve


def on_go(legal: list[str], moves: int) -> bool:
    time.sleep(3600)
    return True


serve(on_go)
