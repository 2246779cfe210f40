"""``stderr_chatter.py TAG AFTER KB``: plays first moves and, from move AFTER on, writes KB
(default 512) kB to stderr before each: a disk that fills up with its log must not make it
crash (the referee writes the log, not the bot). With KB 0 it is a quiet, correct bot."""

import sys

from _base import serve

KB = int(sys.argv[3]) if len(sys.argv) > 3 else 512
BLOCK = ("chatter " * 128)[:1023] + "\n"


def on_go(legal: list[str], moves: int) -> bool:
    sys.stderr.write(BLOCK * KB)
    sys.stderr.flush()
    return False  # and then play the move as usual


serve(on_go)
