"""Tries to get out of the sandbox and prints one ``name result`` line per attempt:
create a file in its working directory, overwrite one of its own files, write to /tmp (the
file name given as argv[3]: unique per test, so tests running at once never see each other's
file), write to a host directory given in the environment as OUTSIDE (a command may not name
a path outside the bot's folder), connect to a host TCP port given as argv[2], list the network
interfaces. Then waits for ``quit``. Standard library only."""

import os
import socket
import sys
from pathlib import Path

outside, port, tmp_name = os.environ["OUTSIDE"], int(sys.argv[2]), sys.argv[3]


def attempt(name: str, action) -> None:
    try:
        result = action()
        print(f"{name} ok {result if result is not None else ''}".rstrip(), flush=True)
    except OSError as exc:
        print(f"{name} refused {type(exc).__name__}", flush=True)


def write(path: str) -> None:
    with open(path, "w") as f:
        f.write("escaped")


def connect() -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


attempt("create-in-cwd", lambda: write("scratch.txt"))
attempt("read-back", lambda: Path("scratch.txt").read_text())
attempt("overwrite-own-file", lambda: write("sandbox_probe.py"))
attempt("tmp", lambda: write(os.path.join("/tmp", tmp_name)))
attempt("outside", lambda: write(os.path.join(outside, "escaped.txt")))
attempt("connect", connect)
attempt("interfaces", lambda: ",".join(sorted(n for _, n in socket.if_nameindex())))
sys.stdin.readline()
