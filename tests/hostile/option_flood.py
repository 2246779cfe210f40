"""Declares 12,000 options (or as many as argv[3] says), each a combo of 64 values of 256
characters, and a 100 kB ``id name`` during the handshake, then plays first moves: legal, but
kept whole (20 kB a declaration, 240 MB in all) it fills the referee's memory."""

import sys

from _base import say, serve

COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else 12_000
VALUES = " ".join(f"var {i:02d}" + "v" * 254 for i in range(64))


def on_ugi() -> bool:
    say("id name " + "n" * 100_000)
    out = sys.stdout
    for i in range(COUNT):
        out.write(f"option name Opt{i} type combo default 00 {VALUES}\n")
    say("ugiok")
    return True


serve(on_ugi=on_ugi)
