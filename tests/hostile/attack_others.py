"""Attacks the referee and its opponent on its move AFTER, then plays correctly: SIGKILLs its
parent and its parent's session, and every process whose command line holds MARKER (argv[3],
the opponent), and writes a bogus move into the opponent's stdin and stdout through
/proc/PID/fd. Reports each attempt to stderr. Standard library only."""

import os
import signal
import sys

from _base import AFTER, note, serve

MARKER = sys.argv[3].replace("?", ".").encode()  # not its own argv (nor its sandbox init's)


def attempt(name, action):
    try:
        action()
        note(f"{name} ok")
    except OSError as exc:
        note(f"{name} refused {type(exc).__name__}")


def others():
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if MARKER in f.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def write_fd(pid, fd):
    with open(f"/proc/{pid}/fd/{fd}", "w") as f:
        f.write("bestmove zz99\n")


def parent_session():
    with open(f"/proc/{os.getppid()}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[3])


def attack(legal, moves_made):
    """Once, on its move AFTER: its opponent is surely running by then (at start-up it may
    not be yet)."""
    if moves_made != AFTER:
        return False
    attempt("kill-parent", lambda: os.kill(os.getppid(), signal.SIGKILL))
    session = parent_session()  # the referee's session (the bot leads its own)
    if session > 1:
        attempt("kill-session", lambda: os.killpg(session, signal.SIGKILL))
    else:
        note("kill-session refused NotVisible")
    victims = others()
    note(f"opponents seen {len(victims)}")
    for pid in victims:
        attempt("write-opponent-stdin", lambda pid=pid: write_fd(pid, 0))
        attempt("write-opponent-stdout", lambda pid=pid: write_fd(pid, 1))
        attempt("kill-opponent", lambda pid=pid: os.kill(pid, signal.SIGKILL))
    return False  # then it plays its move as usual


serve(attack)
