"""Plays AFTER moves, then answers with bytes that are not UTF-8."""

import sys

from _base import serve


def on_go(legal: list[str], moves: int) -> bool:
    sys.stdout.buffer.write(b"bestmove \xc3\x28\xff\n")
    sys.stdout.buffer.flush()
    return True


serve(on_go)
