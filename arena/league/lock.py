"""The league's lock (``.lock``): one writer of the version registry at a time.

Held for short writes only (a version number taken, a state changed), never across a build
or a check: a submission may take minutes, and another submission, a retirement or the start
of a night must not wait for it. The kernel releases the lock when its holder exits, even on
SIGKILL. A command that finds it held waits up to :data:`LOCK_WAIT_S`, then says who to wait
for.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from arena.filelock import hold
from arena.leaguedir.directory import LeagueDir

LOCK_WAIT_S: Final = 30.0
"""How long a command waits for the lock before it gives up."""


@contextmanager
def league_lock(league: LeagueDir, wait: float = LOCK_WAIT_S) -> Iterator[None]:
    """Hold the league's lock for the ``with`` block."""
    fd = hold(league.lock, f"{league.root}: the league is locked by another arena command "
              f"(still after {wait:g} s); wait for it to finish, then try again", wait=wait)
    try:
        yield
    finally:
        os.close(fd)  # releases the lock
