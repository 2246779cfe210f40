"""Looks for the run it plays in, then plays correctly: tries to read the config, to append a
forged win to the journal and to list the run directory, whose paths it finds in its
environment (RUN_PATHS: the three joined by ':'; a bot may not name paths outside its folder
in its command). Reports each attempt to stderr. Standard library only."""

import os

from _base import attempt, serve

config, journal, run_dir = os.environ["RUN_PATHS"].split(":")
FORGED = '{"game":"jungle","p1":"forged","p2":"forged","result":"1-0"}\n'


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
