"""An exclusive lock on a file, held until its descriptor is closed: one writer of a run
directory, of a league's nights or of its version registry.

``flock`` on a file beside the data: the kernel releases it when the holder exits, even on
SIGKILL, so a killed command never leaves a stale lock behind to be cleaned by hand.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import Final

from arena.errors import UserError

POLL_S: Final = 0.05
"""How often a waiting command tries the lock again."""


def hold(path: Path, busy: str, *, wait: float = 0.0) -> int:
    """The descriptor of ``path`` (made if missing) with the lock held; ``busy`` is the
    :class:`UserError` raised when another process still holds it after ``wait`` seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise UserError(busy) from None
            time.sleep(POLL_S)
