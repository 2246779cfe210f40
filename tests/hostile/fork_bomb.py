"""A fork bomb: forks sleeping children until refused, reports (stderr) how many it got, then
plays correctly. Its children carry TAG in their command line. Standard library only."""

import os

from _base import note, serve, sleeper

count = 0
error = "none"
while count < 100_000:
    try:
        pid = os.fork()
    except OSError as exc:
        error = type(exc).__name__
        break
    if pid == 0:
        argv = sleeper(120)
        os.execv(argv[0], argv)
    count += 1
note(f"forked {count} then {error}")
serve()
