"""A running bot: its lines both ways, its transcript, and a shutdown that leaves nothing.

Lines are read with a cap (:mod:`referee.process.linereader`). Shutdown sends ``quit``, waits
briefly, then SIGTERMs and SIGKILLs the whole process group, always reaping, and runs shielded so
that a cancelled game still leaves no process behind.

Containment, and where it ends without a sandbox:

* At shutdown the bot's descendants are listed from ``/proc`` before any signal, and each one
  still alive after the group kill is SIGKILLed too: a child that called ``setsid()`` to leave
  the group is caught this way while it is still a descendant of the bot.
* Best effort only: a daemon that double-forked (its parent exited, so it was reparented to
  init) before the shutdown is no longer anyone's descendant and escapes. ``sandbox =
  "bwrap"`` closes that gap: the bot runs in its own PID namespace, and everything in it dies
  with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections import deque
from pathlib import Path
from typing import Final

import trio

from protocol.lines import MAX_LINE_BYTES, BadLine
from referee.botspec import BotSpec
from referee.process.boterrors import BotExited, BotStartError
from referee.process.child import ChildProcess
from referee.process.linereader import CappedLineReader
from referee.process.proctree import descendants, kill_escaped, process_threads
from referee.process.schedstat import MAX_THREADS, WaitMeter, cgroup_threads
from referee.process.spawn import Launched, launch
from referee.process.stderrlog import StderrLog

__all__ = ["BotExited", "BotProcess", "BotStartError"]

QUIT_GRACE_S: Final = 0.5
"""How long a bot may take to exit after ``quit`` before it is sent SIGTERM."""
TERM_GRACE_S: Final = 0.5
"""How long after SIGTERM before SIGKILL."""
TRANSCRIPT_LINES: Final = 64
"""Lines of the conversation kept for error messages and ``check-bot`` output."""
TRANSCRIPT_CHARS: Final = 300
"""Longest transcript entry; a longer line is cut and its length noted (memory stays bounded)."""


_SIGNALS: Final = frozenset(int(s) for s in signal.Signals)


def _clip(line: str) -> str:
    if len(line) <= TRANSCRIPT_CHARS:
        return line
    return f"{line[:TRANSCRIPT_CHARS]}... ({len(line)} chars)"


class BotProcess:
    """A running bot: line I/O over its pipes plus a guaranteed, group-wide shutdown."""

    def __init__(self, spec: BotSpec, process: ChildProcess,
                 stderr_log: StderrLog | None) -> None:
        self.spec = spec
        self.process = process
        self.stderr_log = stderr_log
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._stdin_fd: int = process.stdin.fileno()
        self._stdin_closed = False
        self._stdout = process.stdout
        self._reader = CappedLineReader(process.stdout, spec.name, self._log_dropped)
        self.transcript: deque[str] = deque(maxlen=TRANSCRIPT_LINES)
        """Recent lines both ways, ``> `` sent and ``< `` received."""
        self.closed = False
        self._meter: WaitMeter | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def wait_meter(self) -> WaitMeter:
        """Samples of the bot's threads' CPU and run-queue times (:mod:`referee.process.
        schedstat`): its cgroup's threads, else its process tree's. Made on first use: a run
        on no clock never asks."""
        if self._meter is None:
            group = self.process.cgroup
            pid = self.process.pid
            if group is not None:
                self._meter = WaitMeter(lambda: cgroup_threads(group, pid),
                                        throttled=group.throttled_ns)
            else:
                self._meter = WaitMeter(lambda: process_threads(pid, MAX_THREADS))
        return self._meter

    @classmethod
    async def start(cls, spec: BotSpec, stderr_path: Path | None = None,
                    launched: Launched | None = None) -> BotProcess:
        """Start the bot, or take over ``launched`` (started earlier with a stderr pipe exactly
        when ``stderr_path`` is given); raises :class:`BotStartError` naming the bot and the
        cause.

        With ``stderr_path`` the bot's stderr is a pipe that the referee drains into a capped
        log (:class:`StderrLog`): the bot never writes to the disk itself."""
        if launched is None:
            launched = launch(spec, capture_stderr=stderr_path is not None)
        if (launched.stderr_fd is None) != (stderr_path is None):
            launched.discard()
            raise ValueError("a launched bot's stderr must go where stderr_path says")
        log = None
        if launched.stderr_fd is not None and stderr_path is not None:
            log = StderrLog(launched.stderr_fd, stderr_path)
        return cls(spec, ChildProcess(launched), log)

    # ----- lines ----------------------------------------------------------------------------
    async def send(self, text: str) -> None:
        """Write one or more lines (``text`` without the final newline) in one write.

        Raises :class:`BotExited` when the pipe is closed."""
        for line in text.split("\n"):
            self.transcript.append("> " + _clip(line))
        if self._stdin_closed:  # the fd number may already belong to another file
            raise BotExited(f"bot {self.spec.name!r}: its input is already closed")
        data = (text + "\n").encode()
        try:
            # Fast path: one direct write to the non-blocking pipe, which almost always takes
            # the whole line; trio's send_all (a scheduler pass first) only for the rest.
            written = os.write(self._stdin_fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            raise BotExited(f"bot {self.spec.name!r} closed its input ({exc})") from None
        if written < len(data):
            try:
                await self._stdin.send_all(data[written:])
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                raise BotExited(f"bot {self.spec.name!r} closed its input ({exc})") from None

    async def readline(self) -> str | BadLine:
        """The next line: text, or a :class:`BadLine` (not UTF-8, or longer than the cap).

        Raises :class:`BotExited` at end of output. Cancellation leaves the buffer intact."""
        return self._record(await self._reader.readline())

    @property
    def dropped_lines(self) -> int:
        """Overlong lines seen (each counted once, its bytes thrown away)."""
        return self._reader.dropped_lines

    @property
    def dropped_bytes(self) -> int:
        """Bytes of overlong lines read and thrown away (counted, never stored)."""
        return self._reader.dropped_bytes

    def _log_dropped(self, size: int, how: str) -> None:
        """Note a dropped overlong line in the bot's stderr log: counted, never stored."""
        if self.stderr_log is not None:
            self.stderr_log.note(f"dropped a stdout line of {size} bytes ({how}; "
                                 f"the limit is {MAX_LINE_BYTES})")

    def mark_log(self, text: str) -> None:
        """A section line in the stderr log (:meth:`StderrLog.mark`), if there is a log."""
        if self.stderr_log is not None:
            self.stderr_log.mark(text)

    def _record(self, line: str | BadLine) -> str | BadLine:
        self.transcript.append("< " + (_clip(line) if isinstance(line, str) else repr(line)))
        return line

    def exit_status(self) -> int | None:
        """The exit code (negative = signal) if the process has ended, else None."""
        return self.process.poll()

    def describe_exit(self) -> str:
        """How the bot ended, for a record's reason. Under bubblewrap and the ``uid``
        containment a signal death comes back as exit status 128 + signal (the convention of
        bwrap and of the init of :mod:`referee.process.jail`), and is named as the signal; a
        process killed for the cgroup's memory limit says so."""
        code = self.exit_status()
        if code is None:
            return "still running"
        if self.process.mode in ("bwrap", "uid") and code > 128 and code - 128 in _SIGNALS:
            code = 128 - code
        oom = self.process.cgroup is not None and self.process.cgroup.oom_kills() > 0
        memory = (f" (the memory limit of {self.spec.limits.memory_mb} MiB was reached)"
                  if oom else "")
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}{memory}"
            except ValueError:
                return f"killed by signal {-code}{memory}"
        return f"exit status {code}{memory}"

    def sandbox_failure(self) -> str | None:
        """Once closed: bubblewrap's reason when it ended without starting the bot (its
        first line of stderr, e.g. ``Creating new namespace failed: Resource temporarily
        unavailable``), else None."""
        if not self.process.sandbox_never_started:
            return None
        said = ""
        path = self.stderr_log.path if self.stderr_log is not None else None
        if path is not None:
            with contextlib.suppress(OSError), open(path, "rb") as log:
                lines = log.read(TRANSCRIPT_CHARS).decode(errors="replace").splitlines()
                said = f": {lines[0]}" if lines else ""
        if self.process.mode == "uid":
            return (f"the bot's namespaces could not be set up ({self.describe_exit()})"
                    f"{said}")
        return f"bubblewrap could not set up its sandbox ({self.describe_exit()}){said}"

    async def wait_exit(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the process to exit; its code or None."""
        with trio.move_on_after(timeout):
            await self.process.wait()
        return self.exit_status()

    # ----- shutdown -------------------------------------------------------------------------
    async def aclose(self, *, send_quit: bool = True) -> None:
        """End the bot and every process in its group, then reap it. Never raises; shielded."""
        if self.closed:
            return
        self.closed = True
        with trio.CancelScope(shield=True):
            # Listed before anything can exit: once the bot is gone, a child that left its
            # process group (setsid) is no longer anyone's descendant that we could find.
            # Not needed where the bot's cgroup or its PID namespace holds the whole tree.
            tree = (descendants(self.process.pid)
                    if self.process.cgroup is None and self.process.mode == "none" else {})
            if send_quit and self.process.poll() is None:
                with contextlib.suppress(BotExited), trio.move_on_after(QUIT_GRACE_S):
                    await self.send("quit")
            self._stdin_closed = True
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError, OSError):
                await self._stdin.aclose()
            if self.process.poll() is None:
                await self.wait_exit(QUIT_GRACE_S if send_quit else 0.0)
            if self.process.poll() is None:
                self._signal_group(signal.SIGTERM)
                await self.wait_exit(TERM_GRACE_S)
            if self.process.poll() is None:
                self._signal_group(signal.SIGKILL)
                await self.process.wait()
            # The leader is gone; its group may still hold children. The group id cannot be
            # reused while any member lives, so this reaches only the bot's own descendants.
            self._signal_group(signal.SIGKILL)
            kill_escaped(tree)
            await self.process.aclose()  # a bot that exited by itself was never waited for
            self._reader.detach()
            if self._meter is not None:
                self._meter.close()
            with contextlib.suppress(trio.ClosedResourceError, OSError):
                await self._stdout.aclose()
            if self.stderr_log is not None:
                await self.stderr_log.aclose()

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

