"""The one line reader of a run's files: lines with their numbers and byte offsets, from any
offset on, with a named rule for a last line that has no newline (:class:`LastLine`).

Every reader of a journal goes through :func:`arena.rundir.journal.journal_lines`, which is
this reader with the journal's rule: resume, ``arena ratings``, the report (which reads on
from where it stopped, by byte offset) and the watcher of ``arena serve``. So they all see
the same games of a journal that a run is appending to. ``arena ratings`` reads PGN files
through it too, with the text rule. What a line holds (and what a bad one means) is the
caller's: the reader only frames lines.

A file anyone may hand over (``arena ratings FILE``) is read within :class:`Bounds`: a line
longer than the format allows is an error and so is the first binary byte, so memory stays
within a few times the cap whatever the file's size and a gigabyte of random bytes fails in
milliseconds instead of being decoded whole.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import msgspec

from arena.errors import UserError

SNIFF_BYTES: Final = 64 << 10
"""How much of a bounded file's start is checked for binary bytes before its lines are read."""

_BINARY = re.compile(rb"[\x00-\x08\x0e-\x19\x1b-\x1f\x7f]")
"""Bytes no text file holds: C0 controls other than tab, line and page breaks and ^Z (an old
DOS end-of-file mark), and DEL. Random data has one in every ten bytes."""


class LastLine(enum.Enum):
    """The rule for a file's last line when it does not end with a newline."""

    PENDING = "pending"
    """A record still being written: every record line ends with a newline, and a run appends
    one while others read. The reader stops before it (:attr:`LineReader.torn` says where it
    starts); a read from :attr:`LineReader.end` later picks it up once complete. Journals:
    the live readers leave it for later, resume (the only writer) cuts off the one a killed
    run left, with a warning."""
    TEXT = "text"
    """An ordinary last line: a text file (PGN) need not end with a newline."""


class Bounds(msgspec.Struct, frozen=True):
    """Limits for a file anyone may hand over; a breach is a :class:`UserError` naming the file,
    the line and the byte offset."""

    max_line: int
    """Longest line in bytes, newline included."""
    kind: str
    """What the file should be, for the message on a longer line (``not a <kind>``)."""
    expected: str
    """What a text file would have been, for the message on binary data."""


class Line(msgspec.Struct, frozen=True):
    """One line of a file, with its newline (if it has one)."""

    number: int
    """1-based, blank lines counted."""
    offset: int
    """Byte offset of its first byte."""
    data: bytes


class LineReader:
    """The lines of ``path`` from byte ``start`` (where ``before`` lines end) on; iterate once.

    Blank lines are counted but only yielded when ``blank``. After the iteration, :attr:`end`
    and :attr:`lines` say where the read stopped (at a line's end: reading on from there
    continues it) and :attr:`torn` holds a last line that :attr:`LastLine.PENDING` left out.
    Opening errors (``OSError``) are the caller's to word.
    """

    def __init__(self, path: Path, last_line: LastLine, *, start: int = 0, before: int = 0,
                 bounds: Bounds | None = None, blank: bool = False) -> None:
        self.path = path
        self.last_line = last_line
        self.bounds = bounds
        self.blank = blank
        self.end = start
        """Byte offset after the last line read (the start of :attr:`torn`, if any)."""
        self.lines = before
        """Lines read so far (blank ones included)."""
        self.torn: Line | None = None
        """The last line, without its newline, when the rule left it out."""

    def __iter__(self) -> Iterator[Line]:
        bounds = self.bounds
        with self.path.open("rb") as fh:
            fh.seek(self.end)
            if bounds is not None:
                self._refuse_binary(bounds, fh.read(SNIFF_BYTES), self.end, self.lines + 1)
                fh.seek(self.end)
                cap = bounds.max_line + 1
                raws: Iterator[bytes] = iter(lambda: fh.readline(cap), b"")
            else:
                raws = iter(fh)
            pending = self.last_line is LastLine.PENDING
            for raw in raws:
                number = self.lines + 1
                complete = raw.endswith(b"\n")
                if bounds is not None:
                    if len(raw) > bounds.max_line and not complete:
                        raise UserError(
                            f"{self.path}:{number}: line longer than {bounds.max_line} bytes "
                            f"(from byte offset {self.end}): not a {bounds.kind}")
                    self._refuse_binary(bounds, raw, self.end, number)
                if pending and not complete:
                    self.torn = Line(number, self.end, raw)
                    return
                offset = self.end
                self.end += len(raw)
                self.lines = number
                if self.blank or raw.strip():
                    yield Line(number, offset, raw)

    def _refuse_binary(self, bounds: Bounds, data: bytes, offset: int, number: int) -> None:
        """A :class:`UserError` at the first binary byte of ``data``, which starts at byte
        ``offset`` and line ``number`` of the file."""
        if binary := _BINARY.search(data):
            at = binary.start()
            line = number + data.count(b"\n", 0, at)
            raise UserError(
                f"{self.path}:{line}: binary data, not text (byte 0x{data[at]:02x} at offset "
                f"{offset + at}): expected {bounds.expected}")
