"""Tries to undo the sandbox from inside, then plays correctly: remounts / read-write, unmounts
/proc to see the host's processes, and reports (to stderr) what it got: its uid, CapEff, the
process ids it sees. Standard library only."""

import ctypes
import os
import subprocess

from _base import note, serve

libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT, MS_BIND = 32, 4096


def attempt(name, action):
    try:
        result = action()
        note(f"{name} ok {result}")
    except OSError as exc:
        note(f"{name} refused {type(exc).__name__}")


def syscall_remount():
    if libc.mount(b"none", b"/", None, MS_REMOUNT | MS_BIND, None) != 0:
        raise OSError(ctypes.get_errno(), "mount")


def command(*argv):
    done = subprocess.run(argv, capture_output=True, timeout=10)
    if done.returncode != 0:
        raise PermissionError(done.stderr.decode(errors="replace").strip())
    return ""


def umount_proc():
    if libc.umount2(b"/proc", 2) != 0:  # MNT_DETACH, as umount -l
        raise OSError(ctypes.get_errno(), "umount")


with open("/proc/self/status") as f:
    status = f.read()
note(f"uid {os.getuid()} capeff {status.split('CapEff:')[1].split()[0]}")
attempt("remount-syscall", syscall_remount)
attempt("remount-command", lambda: command("mount", "-o", "remount,rw,bind", "/"))
attempt("write-root", lambda: open("/escaped.txt", "w").close())
attempt("umount-proc", umount_proc)
attempt("umount-command", lambda: command("umount", "-l", "/proc"))
note("pids " + ",".join(sorted((e for e in os.listdir("/proc") if e.isdigit()), key=int)))
serve()
