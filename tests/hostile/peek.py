"""Tries to read each file named after its TAG and AFTER arguments (another bot's script, a
journal, a config), reports ``peek PATH ok`` or ``peek PATH refused ERROR`` for each, then
plays correctly. Standard library only."""

import sys

from _base import note, serve

for path in sys.argv[3:]:
    try:
        with open(path, "rb") as f:
            f.read(1)
        note(f"peek {path} ok")
    except OSError as exc:
        note(f"peek {path} refused {type(exc).__name__}")
serve()
