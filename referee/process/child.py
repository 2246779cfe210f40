"""The running program behind a :class:`referee.process.BotProcess`, for trio.

:func:`referee.process.spawn.launch` starts a bot without trio (so that ``arena run`` can start its
first bots before it imports trio); :class:`ChildProcess` takes such a launch over: its pipes
as trio streams, an async ``wait`` on a pidfd, and the release of its cgroup and uid. It
offers what ``trio.Process`` does, for a child that trio did not start.
"""

from __future__ import annotations

import contextlib
import os

import trio

from referee.process.cgroup import BotCgroup
from referee.process.sandbox import Mode
from referee.process.spawn import Launched


class ChildProcess:
    """A launched bot's process: pid, non-blocking pipe streams, an async ``wait``."""

    def __init__(self, launched: Launched) -> None:
        self._launched = launched
        self.popen = launched.popen
        self.mode: Mode = launched.mode
        """The containment the bot got: ``bwrap``, ``uid`` or ``none``."""
        self.pid = launched.pid
        self.stdin = trio.lowlevel.FdStream(launched.stdin_fd)
        self.stdout = trio.lowlevel.FdStream(launched.stdout_fd)
        self._pidfd: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(self.popen.pid)
        self._wait_lock = trio.Lock()

    @property
    def cgroup(self) -> BotCgroup | None:
        """The bot's cgroup, or None where limits are per-process rlimits (or once freed)."""
        return self._launched.cgroup

    @property
    def sandbox_never_started(self) -> bool:
        """Known once closed: bubblewrap ended without starting the bot, the machine's fault
        (:attr:`Launched.never_started`)."""
        return self._launched.never_started

    @property
    def uid(self) -> int | None:
        """The unprivileged uid the bot runs as, or None (it runs as the referee)."""
        return self._launched.uid

    def poll(self) -> int | None:
        return self.popen.poll()

    async def wait(self) -> int:
        """Wait for the exit and reap; several tasks may wait at once."""
        async with self._wait_lock:
            if self.popen.returncode is None:
                if self._pidfd is not None:
                    await trio.lowlevel.wait_readable(self._pidfd)
                else:  # pragma: no cover - kernels before 5.3
                    while self.popen.poll() is None:
                        await trio.sleep(0.01)
            code = self.popen.wait()
        self._close_pidfd()
        return code

    def close(self) -> None:
        """Release the pidfd, the cgroup (killing what is left in it) and the uid; call once
        the process is reaped or no longer waited for."""
        self._close_pidfd()
        self._launched.close_info()
        group, self._launched.cgroup = self._launched.cgroup, None
        if group is not None:
            group.kill()
            group.remove()
        self._launched.release_uid()

    async def aclose(self) -> None:
        """:meth:`close`, waiting for the cgroup to empty without blocking other games."""
        self._close_pidfd()
        self._launched.close_info()
        group, self._launched.cgroup = self._launched.cgroup, None
        if group is not None:
            group.kill()
            for _ in range(400):  # killed processes take a moment to leave
                if group.remove(wait=False):
                    break
                await trio.sleep(0.005)
            else:
                group.remove()
        self._launched.release_uid()

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
