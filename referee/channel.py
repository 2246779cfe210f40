"""The line channel a connection talks through: send lines, receive a line, end it.

A dialect (:mod:`referee.dialects`) never touches a process: it writes and reads lines through
this small interface. The real implementation is :class:`referee.process.BotProcess` (the
bot's pipes); tests drive each dialect in-process through a scripted fake, and a human seat
can implement the same five calls. :class:`RecordingChannel` wraps any channel to write a
debug transcript of every line, both ways, with millisecond timestamps.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Protocol

from protocol.lines import BadLine
from referee.errors import BotExited

__all__ = ["BotExited", "LineChannel", "RecordingChannel"]


class LineChannel(Protocol):
    """What a connection needs from the other end; :class:`BotExited` when it is gone."""

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` has run."""

    @property
    def transcript(self) -> Iterable[str]:
        """Recent lines both ways (``> `` sent, ``< `` received), bounded, for messages."""

    async def send(self, text: str) -> None:
        """Write one or more lines (joined by ``\\n``, without the final newline) at once."""

    async def readline(self) -> str | BadLine:
        """The next line, without its newline."""

    def exit_status(self) -> int | None:
        """The exit code once the other end has ended, else None."""

    def describe_exit(self) -> str:
        """How it ended, in words (``exit status 1``, ``killed by SIGKILL``)."""

    async def wait_exit(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the end; the exit code or None."""

    async def aclose(self) -> None:
        """End the other end for good (``quit``, then signals); never raises."""


class RecordingChannel:
    """A channel that also appends every line to a transcript file, as cutechess ``-debug``.

    Each line is written as ``<seconds since the file was opened, ms> <name> > line`` (sent) or
    ``... < line`` (received); :meth:`record_to` switches files between games."""

    def __init__(self, inner: LineChannel, name: str) -> None:
        self.inner = inner
        self.name = name
        self._file: IO[str] | None = None
        self._opened_at = 0.0

    # The channel interface, delegated.
    @property
    def closed(self) -> bool:
        return self.inner.closed

    @property
    def transcript(self) -> Iterable[str]:
        return self.inner.transcript

    @property
    def pid(self) -> int | None:
        return getattr(self.inner, "pid", None)

    def record_to(self, path: Path | None) -> None:
        """Write the following lines to ``path`` (appending), or stop recording (None)."""
        self._close_file()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(path, "a", encoding="utf-8", errors="replace")  # noqa: SIM115
            self._opened_at = time.monotonic()

    def _write(self, arrow: str, line: str) -> None:
        if self._file is None:
            return
        ms = (time.monotonic() - self._opened_at) * 1000
        with contextlib.suppress(OSError, ValueError):
            self._file.write(f"{ms:10.3f} {self.name} {arrow} {line}\n")
            self._file.flush()

    async def send(self, text: str) -> None:
        for line in text.split("\n"):
            self._write(">", line)
        await self.inner.send(text)

    async def readline(self) -> str | BadLine:
        try:
            line = await self.inner.readline()
        except BotExited:
            self._write("<", "(end of output)")
            raise
        self._write("<", line if isinstance(line, str) else repr(line))
        return line

    def exit_status(self) -> int | None:
        return self.inner.exit_status()

    def describe_exit(self) -> str:
        return self.inner.describe_exit()

    async def wait_exit(self, timeout: float) -> int | None:
        return await self.inner.wait_exit(timeout)

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            self._close_file()

    def _close_file(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
