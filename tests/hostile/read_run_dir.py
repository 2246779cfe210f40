"""Looks for the run it plays in, then plays correctly: tries to read the config (argv[3]), to
append a forged win to the journal (argv[4]) and to list the run directory (argv[5]).
Reports each attempt to stderr. Standard library only."""

import os
import sys

from _base import note, serve

config, journal, run_dir = sys.argv[3:6]
FORGED = '{"game":"jungle","p1":"forged","p2":"forged","result":"1-0"}\n'


def attempt(name, action):
    try:
        result = action()
        note(f"{name} ok {result!r}"[:200])
    except OSError as exc:
        note(f"{name} refused {type(exc).__name__}")


def append():
    with open(journal, "a") as f:
        f.write(FORGED)


def read():
    with open(config) as f:
        return f.read()


attempt("read-config", read)
attempt("append-journal", append)
attempt("list-run-dir", lambda: os.listdir(run_dir))
serve()
