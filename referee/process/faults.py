"""Whose fault is it that a bot did not start: the bot's (it loses) or the machine's (no result).

A bot whose program is missing or not executable loses its game; that is the bot author's
doing. But the same :class:`BotStartError` also comes from the machine running out of
something: file descriptors (EMFILE, ENFILE), processes or threads (EAGAIN, a fork bomb
elsewhere or a low ``ulimit -u``), memory (ENOMEM), disk (ENOSPC), or from the sandbox failing
to set up. Scoring those would hand the innocent bot a loss (or both a draw) for the arena's
own trouble, so they become a :class:`MachineFault`, which the referee raises instead of
returning a record and the runner retries or stops on, never journals.
"""

from __future__ import annotations

import errno
from typing import Final

MACHINE_ERRNOS: Final = frozenset({
    errno.EMFILE,  # this process has too many open files
    errno.ENFILE,  # the system has too many open files
    errno.EAGAIN,  # fork/clone: the process or thread limit is reached
    errno.ENOMEM,  # no memory for the new process
    errno.ENOSPC,  # disk full
    errno.EDQUOT,  # disk quota reached
    errno.ENOBUFS,
    errno.E2BIG,  # the arena built an argv (sandbox mounts) longer than the kernel takes
})
"""Errors of starting a process that say something about the machine, not about the bot."""

_THREAD_FAILURE: Final = "can't start new thread"
"""Python's RuntimeError text when the thread that forks bots cannot be created (EAGAIN)."""


class MachineFault(Exception):
    """A bot could not be started because of the machine or the arena, not the bot: the game
    has no result and must be played again (the message names the bot and the cause)."""


class SandboxSetupError(MachineFault):
    """The sandbox could not be set up for a bot (raised by the sandbox code when it can tell
    its own failure from the bot's)."""


def machine_fault(error: BaseException) -> MachineFault | None:
    """The :class:`MachineFault` behind ``error`` (a start failure), or None when the failure
    is the bot's own (missing file, not executable, bad working directory...)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, MachineFault):
            return cause
        if isinstance(cause, OSError) and cause.errno in MACHINE_ERRNOS:
            return _fault(error, cause)
        if isinstance(cause, RuntimeError) and _THREAD_FAILURE in str(cause):
            return _fault(error, cause)
        cause = cause.__cause__ or cause.__context__
    return None


def _fault(error: BaseException, cause: BaseException) -> MachineFault:
    fault = MachineFault(str(error) if error is not cause else f"cannot start a bot: {cause}")
    fault.__cause__ = cause
    return fault
