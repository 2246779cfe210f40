"""Reaches for what lies outside its sandbox on its move AFTER, then plays correctly: connects
to a TCP port of the host's loopback (PROBE_PORT), opens or lists each path of PROBE_PATHS
(joined by ':'), tells its uid and NoNewPrivs as it sees them, and leaves things behind in
/tmp, /var/tmp and /dev/shm (a file, a symlink to /etc/shadow, 8 MiB in /dev/shm), each named
after its TAG. Reports one ``name result`` line per attempt to stderr. Standard library only."""

import functools
import os
import socket

from _base import AFTER, TAG, attempt, note, serve


def connect():
    with socket.create_connection(("127.0.0.1", int(os.environ["PROBE_PORT"])), timeout=3):
        return "connected"


def read(path):
    if os.path.isdir(path):
        return os.listdir(path)
    with open(path, "rb") as f:
        return f.read(64)


def leave(folder):
    with open(f"{folder}/{TAG}-file", "w") as f:
        f.write("left behind")
    os.symlink("/etc/shadow", f"{folder}/{TAG}-link")
    if folder == "/dev/shm":
        with open(f"{folder}/{TAG}-big", "wb") as f:
            f.write(b"\0" * (8 << 20))


def status():
    with open("/proc/self/status") as f:
        wanted = ("Uid:", "NoNewPrivs:")
        return " ".join(line.split()[1] for line in f if line.startswith(wanted))


def probe(legal, moves_made):
    if moves_made != AFTER:
        return False
    attempt("connect", connect)
    for path in os.environ.get("PROBE_PATHS", "").split(":"):
        if path:
            attempt(f"read {path}", functools.partial(read, path))
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        attempt(f"leave {folder}", functools.partial(leave, folder))
    note(f"status {status()}")
    return False


serve(probe)
