"""Fills its private /tmp and /dev/shm with 1 MiB writes until refused, reports how much each
took (stderr), then plays correctly. Standard library only."""

import os

from _base import note, serve

for folder in ("/tmp", "/dev/shm"):
    written = 0
    try:
        with open(os.path.join(folder, "fill"), "wb") as f:
            block = b"x" * (1 << 20)
            while written < (4 << 30):
                f.write(block)
                f.flush()
                written += 1
    except OSError as exc:
        note(f"fill {folder} {written} MiB then {type(exc).__name__}")
    else:
        note(f"fill {folder} {written} MiB")
serve()
