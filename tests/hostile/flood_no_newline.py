"""Plays AFTER moves, then writes 100 MB to stdout without a single newline, then exits."""

import sys

from _base import serve

CHUNK = b"x" * (1 << 20)


def on_go(legal: list[str], moves: int) -> bool:
    for _ in range(100):
        sys.stdout.buffer.write(CHUNK)
    sys.stdout.buffer.flush()
    sys.exit(0)


serve(on_go)
