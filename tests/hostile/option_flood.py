"""Declares 700,000 options (or as many as argv[3] says) and a 100 kB ``id name`` during the
handshake, then plays first moves: legal, but kept whole it fills the referee's memory."""

import sys

from _base import say, serve

COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else 700_000


def on_ugi() -> bool:
    say("id name " + "n" * 100_000)
    out = sys.stdout
    for i in range(COUNT):
        out.write(f"option name Opt{i} type spin default 1 min 0 max {i + 1}\n")
    say("ugiok")
    return True


serve(on_ugi=on_ugi)
