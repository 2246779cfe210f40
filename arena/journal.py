"""The journal: the append-only file of finished games (``games.jsonl``) that makes a run resumable.

A game counts as played only once its record is one complete JSON line on disk: the line is
written, flushed and fsync'd before anything else (PGN, progress, report) hears of the game.
A run killed mid-write leaves at most one torn last line; opening the journal detects it and
truncates it away with a warning, and that game is simply played again. A bad line anywhere
else means the file was edited or damaged: that is an error naming the file and line, never a
silent skip, because dropping a finished game from the middle would go unnoticed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import msgspec
import trio

from arena.errors import UserError
from referee.record import GameRecord, decode_record, encode_record

Warn = Callable[[str], None]


class Journal:
    """An open journal; ``records`` holds every game already in it, in file order."""

    def __init__(self, path: Path, records: list[GameRecord]) -> None:
        self.path = path
        self.records = records
        self._lock = trio.Lock()

    @classmethod
    def open(cls, path: Path, warn: Warn) -> Journal:
        """Read (and if needed repair) the journal at ``path``; create it when missing."""
        records = load(path, warn, repair=True)
        if not path.exists():
            path.touch()
            _fsync_dir(path.parent)  # the new file's name must survive a crash too
        return cls(path, records)

    def ids(self) -> set[str]:
        return {r.id for r in self.records}

    def append_sync(self, record: GameRecord) -> None:
        """Write one record as a line and make it durable before returning."""
        line = encode_record(record) + b"\n"
        with open(self.path, "ab") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self.records.append(record)

    async def append(self, record: GameRecord) -> None:
        """:meth:`append_sync` off the event loop (fsync can take a while), one writer at a time."""
        async with self._lock:
            await trio.to_thread.run_sync(self.append_sync, record)


def load(path: Path, warn: Warn, *, repair: bool = False) -> list[GameRecord]:
    """Every record of a journal file, in order; [] when the file does not exist.

    A torn or undecodable *last* line is dropped with a warning (and truncated from the file
    when ``repair``); an undecodable line elsewhere raises :class:`UserError` naming file and
    line. Later duplicates of a game id are ignored with a warning.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UserError(f"cannot read journal {path}: {exc.strerror or exc}") from None
    records: list[GameRecord] = []
    seen: set[str] = set()
    lines = data.split(b"\n")
    # A file ending in "\n" splits into [..., b""]: the empty tail is not a line.
    tail = lines.pop()
    offset = 0
    good_end = 0
    for number, line in enumerate(lines, start=1):
        end = offset + len(line) + 1
        is_last = number == len(lines) and not tail
        try:
            if not line.strip():
                raise ValueError("empty line")
            record = decode_record(line)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
            if is_last:
                _drop_tail(path, good_end, number, f"corrupt last line ({exc})", warn, repair)
                return records
            raise UserError(
                f"{path}:{number}: corrupt journal line ({exc}); the journal is append-only, "
                "so this line was damaged or edited: restore the line or delete it by hand"
            ) from None
        if record.id and record.id in seen:
            warn(f"{path}:{number}: game {record.id} is in the journal twice; keeping the first")
        else:
            seen.add(record.id)
            records.append(record)
        offset = good_end = end
    if tail:
        _drop_tail(path, good_end, len(lines) + 1, "torn last line (no newline)", warn, repair)
    return records


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
