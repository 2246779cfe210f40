"""Tries to change the kernel from inside: every file under /proc/sys and /sys that looks
writable (a write bit in its mode) is opened for writing and given back the value just read
from it, so that nothing on the machine changes if a write ever went through. Reports
``kernel tried N written W`` (W must be 0) and the first files written, its uid as seen
inside, then forks a child that sleeps (the test reads both processes' uids from outside)
and plays correctly. Standard library only."""

import os
import stat
import subprocess
import sys

from _base import note, serve, sleeper

LIMIT = 20000
"""Files tried at most (/sys holds hundreds of thousands): a bounded, still thorough probe."""


def candidates() -> list[str]:
    found: list[str] = []
    for top in ("/proc/sys", "/sys"):
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
            for name in files:
                path = os.path.join(folder, name)
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISREG(mode) and mode & 0o222:
                    found.append(path)
                if len(found) >= LIMIT:
                    return found
    return found


def write_back(path: str) -> bool:
    """True when a write went through (the value written is the one read)."""
    try:
        with open(path, "rb") as f:
            value = f.read(4096)
    except OSError:
        value = None
    if not value:
        return False  # nothing to give back (write-only or empty): leave it alone
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        os.write(fd, value)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


tried = candidates()
written = [path for path in tried if write_back(path)]
note(f"kernel tried {len(tried)} written {len(written)} {' '.join(written[:5])}")
note(f"uid-inside {os.getuid()}")
child = subprocess.Popen(sleeper())
note(f"child {child.pid}")
sys.stderr.flush()
serve()
