"""Versioned snapshots that pages wait for: the one push mechanism of ``arena serve``.

A producer (the run watcher, a human's games) builds a new snapshot with a higher version and
publishes it; each server-sent-events stream waits for a version newer than the one it sent.
"""

from __future__ import annotations

from typing import Any

import trio


class Snapshots:
    """The latest snapshot, its version, and a wake-up for those waiting on a newer one."""

    def __init__(self) -> None:
        self.version = 0
        self.snapshot: dict[str, Any] = {"version": 0}
        self._changed = trio.Event()

    def _publish(self, snapshot: dict[str, Any]) -> None:
        """Make ``snapshot`` the latest and wake every waiter (a new event for the next)."""
        self.snapshot = snapshot
        self._changed.set()
        self._changed = trio.Event()

    async def wait_newer(self, version: int, timeout: float) -> dict[str, Any] | None:
        """The snapshot once it is newer than ``version``; None after ``timeout`` seconds."""
        with trio.move_on_after(timeout):
            while self.version <= version:
                await self._changed.wait()
            return self.snapshot
        return None
