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
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

from protocol.bounds import MAX_TRANSCRIPT_BYTES, MAX_TRANSCRIPT_LINE_CHARS, clip
from protocol.lines import BadLine
from referee.process.boterrors import BotExited

if TYPE_CHECKING:
    from referee.process.schedstat import WaitMeter

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

    def sandbox_failure(self) -> str | None:
        """Once closed: why the bot never ran when its sandbox could not be set up (the
        machine's fault, not the bot's), else None."""

    async def wait_exit(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the end; the exit code or None."""

    async def aclose(self) -> None:
        """End the other end for good (``quit``, then signals); never raises."""


class RecordingChannel:
    """A channel that also writes every line to a transcript file, as cutechess ``-debug``.

    Each line is ``<ms since the game started> <bot> > line`` (sent) or ``... < line``
    (received). :meth:`record_to` switches files between games; lines exchanged while no file
    is open (the handshake of a fresh process, the checks between games) are held, a bounded
    number, and written at the top of the next file, so a game's transcript starts where its
    process's conversation did. Lines are cut to ``MAX_TRANSCRIPT_LINE_CHARS`` and a file
    takes at most ``MAX_TRANSCRIPT_BYTES`` of one bot's lines (a flooding bot cannot fill the
    disk); the lines left out are counted at the end of the file."""

    HELD_LINES = 256

    def __init__(self, inner: LineChannel, name: str) -> None:
        self.inner = inner
        self.name = name
        self._file: IO[str] | None = None
        self._origin = time.monotonic()
        self._held: deque[tuple[float, str, str]] = deque(maxlen=self.HELD_LINES)
        self._written = 0
        self._skipped = 0

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

    @property
    def wait_meter(self) -> WaitMeter | None:
        return getattr(self.inner, "wait_meter", None)

    def mark_log(self, text: str) -> None:
        mark = getattr(self.inner, "mark_log", None)
        if mark is not None:
            mark(text)

    def record_to(self, path: Path | None, origin: float | None = None) -> None:
        """Write the following lines to ``path`` (appending; times counted from ``origin``, a
        ``time.monotonic()`` value shared by both bots of a game), or stop (None)."""
        self._close_file()
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(path, "a", encoding="utf-8", errors="replace")  # noqa: SIM115
        self._written = self._skipped = 0
        self._origin = time.monotonic() if origin is None else origin
        held, self._held = list(self._held), deque(maxlen=self.HELD_LINES)
        for at, arrow, line in held:
            self._write_line(at, arrow, line)

    def _write(self, arrow: str, line: str) -> None:
        now = time.monotonic()
        if self._file is None:
            self._held.append((now, arrow, clip(line, MAX_TRANSCRIPT_LINE_CHARS)))
        else:
            self._write_line(now, arrow, line)

    def _write_line(self, at: float, arrow: str, line: str) -> None:
        if self._file is None:
            return
        if arrow == "<":  # the bot's lines; the referee's own are bounded by the game
            line = clip(line, MAX_TRANSCRIPT_LINE_CHARS)
        text = f"{(at - self._origin) * 1000:10.3f} {self.name} {arrow} {line}\n"
        if self._written + len(text) > MAX_TRANSCRIPT_BYTES:
            self._skipped += 1
            return
        self._written += len(text)
        with contextlib.suppress(OSError, ValueError):
            self._file.write(text)
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

    def sandbox_failure(self) -> str | None:
        return self.inner.sandbox_failure()

    async def wait_exit(self, timeout: float) -> int | None:
        return await self.inner.wait_exit(timeout)

    async def aclose(self) -> None:
        if not self.inner.closed and self.inner.exit_status() is None:
            self._write(">", "quit (closing)")
        try:
            await self.inner.aclose()
        finally:
            self._close_file()

    def _close_file(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError, ValueError):
                if self._skipped:
                    self._file.write(f"[arena] {self.name}: {self._skipped} more lines not "
                                     f"written (a transcript keeps {MAX_TRANSCRIPT_BYTES} "
                                     "bytes of each bot's lines)\n")
                self._file.close()
            self._file = None
