"""The journal: the append-only file of finished games (``games.jsonl``) that makes a run resumable.

A game counts as played only once its record is one complete JSON line on disk: the line is
written, flushed and fsync'd before anything else (PGN, progress, report) hears of the game.
A run killed mid-write leaves at most one torn last line; opening the journal detects it and
truncates it away with a warning, and that game is simply played again. A write that fails
(disk full) is undone on the spot: the file is cut back to its last complete line and the
failure is a :class:`JournalWriteError`, which stops the run cleanly. A bad line anywhere else
means the file was edited or damaged: that is an error naming the file and line, never a
silent skip, because dropping a finished game from the middle would go unnoticed; so are two
records of one game (one of them was forged or written twice).

The journal is read one line at a time and only each game's summary (the record without its
moves) stays in memory, so resuming a run of 100,000 games costs little;
:func:`iter_records` streams the full records for the few readers that need them (the PGN).
While a run appends, the journal keeps only the ids and the count of its games, never the
records: memory stays flat however many games an overnight run plays.

trio is imported by the first :meth:`Journal.append`, not with this module: ``arena run`` opens
the journal before it imports trio (it starts its first bots in between).
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from arena.errors import DuplicateGameError, UserError
from referee.record import GameRecord, decode_record, encode_record

if TYPE_CHECKING:
    import trio

Warn = Callable[[str], None]

APPEND_RETRIES: Final = 5
"""Attempts at one append when the failure may pass (too many open files, no memory)."""
APPEND_BACKOFF_S: Final = 0.2
"""First wait between those attempts; doubled each time."""
_PASSING_ERRNOS: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM,
                                    errno.EINTR})


class JournalWriteError(UserError):
    """A record could not be made durable (disk full, read-only, I/O error); the journal was cut
    back to its last complete line, so a resume plays that game again."""


def summary(record: GameRecord) -> GameRecord:
    """The record without its moves: what the runner keeps in memory of a journaled game."""
    return msgspec.structs.replace(record, moves=[]) if record.moves else record


class Journal:
    """An open journal: the ids and count of its games, and ``summaries``, the games it held
    when opened (in file order, without their moves; :func:`iter_records` reads the full
    records back). Appends add to the ids and the count only; a caller done with the
    summaries drops them with :meth:`forget_summaries`."""

    def __init__(self, path: Path, summaries: list[GameRecord]) -> None:
        self.path = path
        self.summaries = summaries
        self._ids = {r.id for r in summaries}
        self.count = len(summaries)
        """Games in the journal now (those at opening plus those appended)."""
        self._lock: trio.Lock | None = None
        """One writer at a time, made by the first :meth:`append` (see the module's doc)."""

    @classmethod
    def open(cls, path: Path, warn: Warn) -> Journal:
        """Read (and if needed repair) the journal at ``path``; create it when missing."""
        summaries = load(path, warn, repair=True)
        if not path.exists():
            path.touch()
            _fsync_dir(path.parent)  # the new file's name must survive a crash too
        return cls(path, summaries)

    def ids(self) -> set[str]:
        """The ids of every game in the journal now (a copy)."""
        return set(self._ids)

    def forget_summaries(self) -> None:
        """Drop the summaries read at opening (the ids and the count stay)."""
        self.summaries = []

    def append_sync(self, record: GameRecord) -> None:
        """Write one record as a line and make it durable before returning.

        A failure that may pass (EMFILE, ENOMEM...) is retried a few times with a growing wait;
        any other, or the last, raises :class:`JournalWriteError` after cutting the file back
        to its last complete line (a torn line would hide the games appended after it)."""
        line = encode_record(record) + b"\n"
        wait = APPEND_BACKOFF_S
        for attempt in range(APPEND_RETRIES):
            try:
                self._write(line)
                break
            except OSError as exc:
                if exc.errno not in _PASSING_ERRNOS or attempt == APPEND_RETRIES - 1:
                    raise JournalWriteError(
                        f"cannot write game {record.id or '?'} to the journal {self.path}: "
                        f"{exc.strerror or exc}; the run stops here. Free some space (or fix "
                        "the cause) and run the same command again: that game and the ones not "
                        "played yet will be played then"
                    ) from None
                time.sleep(wait)
                wait *= 2
        self._ids.add(record.id)
        self.count += 1

    def _write(self, line: bytes) -> None:
        """One unbuffered append and fsync; on failure the file is cut back to its old size
        (nothing buffered is left to be flushed later)."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        try:
            size = os.lseek(fd, 0, os.SEEK_END)
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            except OSError:
                with contextlib.suppress(OSError):  # best effort; load() repairs the rest
                    os.ftruncate(fd, size)
                raise
        finally:
            os.close(fd)

    async def append(self, record: GameRecord) -> None:
        """:meth:`append_sync` off the event loop (fsync can take a while), one writer at a time."""
        import trio

        if self._lock is None:
            self._lock = trio.Lock()
        async with self._lock:
            try:
                await trio.to_thread.run_sync(self.append_sync, record)
            except RuntimeError as exc:  # no thread to be had (a fork bomb took them all)
                if "can't start new thread" not in str(exc):
                    raise
                self.append_sync(record)


def load(path: Path, warn: Warn, *, repair: bool = False) -> list[GameRecord]:
    """Every record of a journal file in order, as summaries (no moves); [] when it is missing.

    A torn or undecodable *last* line is dropped with a warning (and truncated from the file
    when ``repair``); an undecodable line elsewhere, or a second record of a game id, raises
    :class:`UserError` naming file and lines.
    """
    summaries: list[GameRecord] = []
    seen: dict[str, int] = {}
    bad: tuple[int, int, str] | None = None
    """(line number, offset, why) of an undecodable line: an error unless it is the last."""
    offset = 0
    try:
        with open(path, "rb") as f:
            for number, line in enumerate(f, start=1):
                if bad is not None:
                    raise _corrupt(path, bad[0], bad[2])
                start, offset = offset, offset + len(line)
                if not line.endswith(b"\n"):
                    _drop_tail(path, start, number, "torn last line (no newline)", warn, repair)
                    return summaries
                try:
                    if not line.strip():
                        raise ValueError("empty line")
                    record = decode_record(line)
                except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
                    bad = (number, start, str(exc))
                    continue
                if record.id and record.id in seen:
                    raise DuplicateGameError(f"{path}:{number}", record.id,
                                             f"{path}:{seen[record.id]}")
                seen[record.id] = number
                summaries.append(summary(record))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UserError(f"cannot read journal {path}: {exc.strerror or exc}") from None
    if bad is not None:
        _drop_tail(path, bad[1], bad[0], f"corrupt last line ({bad[2]})", warn, repair)
    return summaries


def iter_records(path: Path) -> Iterator[GameRecord]:
    """The full records of a journal :func:`load` has checked, one line at a time (a torn or
    corrupt last line, which ``load`` reports, is skipped here)."""
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, also when the caller stops early
    except FileNotFoundError:
        return
    with f:
        for line in f:
            if not line.endswith(b"\n"):
                return
            try:
                yield decode_record(line)
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue


def _corrupt(path: Path, number: int, why: str) -> UserError:
    return UserError(
        f"{path}:{number}: corrupt journal line ({why}); the journal is append-only, "
        "so this line was damaged or edited: restore the line or delete it by hand"
    )


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _drop_tail(path: Path, keep: int, number: int, why: str, warn: Warn, repair: bool) -> None:
    if repair:
        with open(path, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
        warn(f"{path}:{number}: {why}; truncated it, that game will be played again")
    else:
        warn(f"{path}:{number}: {why}; ignored")
