"""Tries to read each file its environment names (PEEK: paths joined by ':'; another bot's
script, a journal, a config), reports ``peek PATH ok`` or ``peek PATH refused ERROR`` for
each, then plays correctly. Standard library only."""

import os

from _base import note, serve

for path in os.environ["PEEK"].split(":"):
    try:
        with open(path, "rb") as f:
            f.read(1)
        note(f"peek {path} ok")
    except OSError as exc:
        note(f"peek {path} refused {type(exc).__name__}")
serve()
