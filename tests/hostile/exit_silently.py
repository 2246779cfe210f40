"""Plays AFTER moves, then exits with status 0 instead of answering ``go``."""

import sys

from _base import serve


def on_go(legal: list[str], moves: int) -> bool:
    sys.exit(0)


serve(on_go)
