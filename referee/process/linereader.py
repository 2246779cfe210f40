"""Reading a bot's output as lines with a cap: memory stays bounded whatever the bot prints.

An overlong line (more than :data:`MAX_LINE_BYTES`) is reported as a :class:`BadLine` as soon
as it overflows the cap, then read to its end and thrown away: counted, never stored.
"""

from __future__ import annotations

import errno
import os
from collections import deque
from collections.abc import Callable

import trio

from protocol.lines import MAX_LINE_BYTES, BadLine, decode_line
from referee.process.boterrors import BotExited

READ_CHUNK = 65536


class CappedLineReader:
    """Lines from a byte stream, each at most :data:`MAX_LINE_BYTES` long.

    ``on_dropped(size, how)`` is told of each overlong line once it ends (its size in bytes,
    and how it ended), for the bot's log; ``name`` names the bot in :class:`BotExited`."""

    def __init__(self, stream: trio.abc.ReceiveStream, name: str,
                 on_dropped: Callable[[int, str], None] | None = None) -> None:
        self._stream = stream
        fileno = getattr(stream, "fileno", None)
        self._fd: int | None = fileno() if callable(fileno) else None
        """The pipe's own descriptor when there is one (trio's FdStream): read directly, one
        scheduler pass per read instead of two (the stream checkpoints before each read)."""
        self._name = name
        self._on_dropped = on_dropped
        self._buffer = bytearray()
        self._ready: deque[str | BadLine] = deque()
        """Lines cut from the buffer already (:meth:`_cut`), handed out first."""
        self._scan_from = 0
        self._dropping = False
        self._eof = False
        self._line_dropped = 0
        self.dropped_lines = 0
        """Overlong lines seen (each counted once, its bytes thrown away)."""
        self.dropped_bytes = 0
        """Bytes of overlong lines read and thrown away (counted, never stored)."""

    async def readline(self) -> str | BadLine:
        """The next line: text, or a :class:`BadLine` (not UTF-8, or longer than the cap).

        Raises :class:`BotExited` at end of output. Cancellation leaves the buffer intact.

        A read that brings several lines (an engine's ``info`` and ``bestmove`` come in one
        chunk) cuts them all at once (:meth:`_cut`); the next calls hand them out without
        scanning the buffer again or awaiting anything."""
        if self._ready:
            return self._ready.popleft()
        while True:
            newline = self._buffer.find(b"\n", self._scan_from)
            if newline >= 0:
                self._scan_from = 0
                if self._dropping:  # the end of an overlong line, reported when it overflowed
                    self.dropped_bytes += newline
                    self._line_dropped += newline
                    self._report_dropped("ended")
                    del self._buffer[: newline + 1]
                    self._dropping = False
                    continue
                raw = bytes(self._buffer[: min(newline, MAX_LINE_BYTES + 1)])
                del self._buffer[: newline + 1]
                if newline > MAX_LINE_BYTES:
                    self.dropped_lines += 1
                    self.dropped_bytes += newline
                    self._line_dropped = newline
                    self._report_dropped("ended")
                    return BadLine(b"", f"line longer than {MAX_LINE_BYTES} bytes")
                return decode_line(raw)
            if len(self._buffer) > MAX_LINE_BYTES:
                # Report an overlong line as soon as it overflows, not at its end: a flooding
                # bot may never end it. The rest of it is read and thrown away.
                self.dropped_bytes += len(self._buffer)
                self._line_dropped = self._line_dropped * self._dropping + len(self._buffer)
                self._buffer.clear()
                self._scan_from = 0
                if not self._dropping:
                    self._dropping = True
                    self.dropped_lines += 1
                    return BadLine(b"", f"line longer than {MAX_LINE_BYTES} bytes")
            self._scan_from = len(self._buffer)
            if self._eof:
                if self._buffer and not self._dropping:
                    raw = bytes(self._buffer)
                    self._buffer.clear()
                    self._scan_from = 0
                    return decode_line(raw)
                if self._dropping:
                    self.dropped_bytes += len(self._buffer)
                    self._line_dropped += len(self._buffer)
                    self._buffer.clear()
                    self._dropping = False
                    self._report_dropped("cut by the end of the output")
                raise BotExited(f"bot {self._name!r} closed its output")
            chunk = await self._receive()
            if chunk is None:
                continue
            if not chunk:
                self._eof = True
            self._buffer += chunk
            if not self._dropping and self._cut():
                return self._ready.popleft()

    def _cut(self) -> bool:
        """Every complete line of the buffer, decoded and queued; the unfinished tail stays
        (:meth:`readline` goes on with it). False when no line is complete yet, or when an
        overlong one is among them (the line-by-line path reports it, as it always has)."""
        buffer = self._buffer
        end = buffer.rfind(b"\n")
        if end < 0 or end > MAX_LINE_BYTES:
            return False
        lines = bytes(buffer[:end]).split(b"\n")
        del buffer[: end + 1]
        self._scan_from = 0
        ready = self._ready
        for raw in lines:  # each is at most ``end`` bytes, within the cap
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                ready.append(decode_line(raw))  # a BadLine, as line by line
                continue
            ready.append(text[:-1] if text.endswith("\r") else text)
        return True

    def detach(self) -> None:
        """The stream is about to be closed: its descriptor number may soon name another
        file, so nothing more is read (what is buffered can still be read; then the end)."""
        self._fd = None
        self._eof = True

    async def _receive(self) -> bytes | bytearray | None:
        """The next bytes; ``b""`` at the end of the output, None when there was nothing to
        read after all. Every read waits for the scheduler first, so a bot that floods its
        pipe cannot keep the referee from its deadlines."""
        if self._fd is None:
            try:
                return await self._stream.receive_some(READ_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return b""
        try:
            await trio.lowlevel.wait_readable(self._fd)
            return os.read(self._fd, READ_CHUNK)
        except BlockingIOError:
            return None
        except trio.ClosedResourceError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EINTR:
                return None
            return b""

    def _report_dropped(self, how: str) -> None:
        if self._on_dropped is not None:
            self._on_dropped(self._line_dropped, how)
        self._line_dropped = 0
