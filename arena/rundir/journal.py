"""The journal: the append-only file of finished games (``games.jsonl``) that makes a run resumable.

A game counts as played only once its record is one complete JSON line in the file: the line is
written, in one unbuffered write, before anything else (PGN, progress, report) hears of the game,
so a runner that is killed loses no game it announced (the kernel has the line). The runner's
appends (:meth:`Journal.append`) are fsync'd by a thread of the journal's own at most once a
second, and once more when the run closes the journal: a machine that loses power loses at most
that second's games, which the resume then plays again; none is counted twice. (An fsync and
its thread hand-off per game cost the runner about half a millisecond of CPU a game, a tenth
of a ``nodes=1`` game.) The other writers (:func:`append_record`: ``arena play --out``, the web
seat) fsync each record before returning. A run killed mid-write leaves at most one torn last
line; opening the journal detects it and
truncates it away with a warning, and that game is simply played again. A write that fails
(disk full) is undone on the spot: the file is cut back to its last complete line and the
failure is a :class:`JournalWriteError`, which stops the run cleanly. A bad line anywhere else
means the file was edited or damaged: that is an error naming the file and line, never a
silent skip, because dropping a finished game from the middle would go unnoticed; so are two
records of one game (one of them was forged or written twice: :class:`GameIds`).

Every reader of a journal reads its lines with :func:`journal_lines`, one rule for all: a last
line without its newline is a game still being written (:attr:`LastLine.PENDING`). Readers
that follow a run (``arena ratings``, the report, ``arena serve``) stop before it and read it
once complete; resume, the only writer, cuts it off as above. Blank lines carry nothing and
are skipped.

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
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from arena.errors import DuplicateGameError, UserError
from arena.rundir.textlines import Bounds, LastLine, Line, LineReader
from arena.say import Say
from referee.record import GameRecord, decode_record, encode_record

if TYPE_CHECKING:
    import trio


APPEND_RETRIES: Final = 5
"""Attempts at one append when the failure may pass (too many open files, no memory)."""
APPEND_BACKOFF_S: Final = 0.2
"""First wait between those attempts; doubled each time."""
_PASSING_ERRNOS: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM,
                                    errno.EINTR})
SYNC_EVERY_S: Final = 1.0
"""The longest a runner's journaled game waits for its fsync (see the module's doc)."""


class JournalWriteError(UserError):
    """A record could not be made durable (disk full, read-only, I/O error); the journal was cut
    back to its last complete line, so a resume plays that game again."""


def summary(record: GameRecord) -> GameRecord:
    """The record without its moves: what the runner keeps in memory of a journaled game."""
    return msgspec.structs.replace(record, moves=[]) if record.moves else record


def journal_lines(path: Path, *, start: int = 0, before: int = 0,
                  bounds: Bounds | None = None) -> LineReader:
    """The lines of the journal at ``path`` from byte ``start`` (after ``before`` lines), as
    every reader of a journal reads them: blank lines skipped, a last line without its newline
    left out (:attr:`LastLine.PENDING`; see the module's doc)."""
    return LineReader(path, LastLine.PENDING, start=start, before=before, bounds=bounds)


class GameIds:
    """The rule for a game recorded twice, for journals and PGN files alike: where each game
    id was first seen, and a :class:`DuplicateGameError` naming both places for a second
    record. Records without an id (ad-hoc games, ``arena play --out``) are not the schedule's
    and fall under no rule."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}

    def check(self, game_id: str, where: str) -> None:
        """Note that ``where`` (``file:line``) records ``game_id``; raise if one did before."""
        if not game_id:
            return
        if game_id in self.first:
            raise DuplicateGameError(where, game_id, self.first[game_id])
        self.first[game_id] = where


class Journal:
    """An open journal: the ids and count of its games, and ``summaries``, the games it held
    when opened (in file order, without their moves; :func:`iter_records` reads the full
    records back). Appends add to the ids and the count only; a caller done with the
    summaries drops them with :meth:`forget_summaries`."""

    def __init__(self, path: Path, summaries: list[GameRecord], *,
                 created: bool = False) -> None:
        self.path = path
        self.summaries = summaries
        self._ids = {r.id for r in summaries}
        self.count = len(summaries)
        """Games in the journal now (those at opening plus those appended)."""
        self._lock: trio.Lock | None = None
        """One writer at a time, made by the first :meth:`append` (see the module's doc)."""
        self._name_synced = not created
        """Whether the file's name is durable in its folder: a journal this session created
        has its folder fsync'd by its first append, with the record (see :meth:`open`)."""
        self._syncer: _Syncer | None = None
        """The thread that fsyncs :meth:`append`'s lines, made by the first of them."""

    @classmethod
    def open(cls, path: Path, warn: Say) -> Journal:
        """Read (and if needed repair) the journal at ``path``; create it when missing.

        A new journal's name must survive a crash as its records do; its folder is fsync'd
        with the first record rather than here, where it cost the start of every fresh run a
        journal commit of the file system (5-15 ms on a busy disk) before its first game: until
        a record is in it, losing the empty file loses nothing (a resume makes it again)."""
        summaries = load(path, warn, repair=True)
        created = not path.exists()
        if created:
            path.touch()
        return cls(path, summaries, created=created)

    def ids(self) -> set[str]:
        """The ids of every game in the journal now (a copy)."""
        return set(self._ids)

    def forget_summaries(self) -> None:
        """Drop the summaries read at opening (the ids and the count stay)."""
        self.summaries = []

    def append_sync(self, record: GameRecord | list[GameRecord]) -> None:
        """Write one record (or several, finished at once: one write, one fsync) as lines and
        make them durable before returning (see :func:`append_record`); a failure stops the
        run, and the message says how to go on. A journal removed meanwhile is such a failure,
        never a new journal."""
        records = record if isinstance(record, list) else [record]
        try:
            if not self._name_synced:  # the new file's name must survive a crash too
                _fsync_dir_or_fail(self.path, records)
                self._name_synced = True
            append_record(self.path, records, create=False)
        except JournalWriteError as exc:
            raise _run_stops(exc) from None
        self._ids.update(r.id for r in records)
        self.count += len(records)

    async def append(self, record: GameRecord | list[GameRecord]) -> None:
        """The runner's append: the lines written at once in the event loop (a write to the
        page cache, some microseconds), their fsync left to the journal's thread (see the
        module's doc). One writer at a time; a failure stops the run as
        :meth:`append_sync`'s does, and so does an fsync that failed since the last append."""
        import trio

        records = record if isinstance(record, list) else [record]
        if self._lock is None:
            self._lock = trio.Lock()
        lock = self._lock
        try:  # the runner writes one batch at a time: the lock is free, taken without a pass
            lock.acquire_nowait()  # through the scheduler
        except trio.WouldBlock:
            await lock.acquire()
        try:
            syncer = self._syncer_now()
            line = _lines(records)
            wait = APPEND_BACKOFF_S
            for attempt in range(APPEND_RETRIES):
                try:
                    if syncer is not None and syncer.error is not None:
                        syncer.reported = True
                        raise syncer.error
                    _write(self.path, line, create=False, durable=syncer is None)
                    break
                except OSError as exc:
                    if exc.errno not in _PASSING_ERRNOS or attempt == APPEND_RETRIES - 1:
                        raise _run_stops(_write_error(self.path, records, exc)) from None
                    await trio.sleep(wait)
                    wait *= 2
        finally:
            lock.release()
        self._ids.update(r.id for r in records)
        self.count += len(records)
        if syncer is not None:
            syncer.due()

    def _syncer_now(self) -> _Syncer | None:
        """The fsync thread, started by the first :meth:`append`; None when no thread can be
        had (a fork bomb took them all): then each append is fsync'd before it returns."""
        if self._syncer is None:
            try:
                self._syncer = _Syncer(self.path, folder=not self._name_synced)
            except RuntimeError as exc:
                if "can't start new thread" not in str(exc):
                    raise
                if not self._name_synced:
                    _fsync_dir(self.path.parent)
                    self._name_synced = True
                return None
            self._name_synced = True  # the thread syncs the folder before the file's lines
        return self._syncer

    def close(self) -> None:
        """Make every line appended so far durable, now (the end of a run); raises
        :class:`JournalWriteError` when the disk refused an fsync that no append has reported
        yet (one that did has stopped the run already). Appends may follow (a new thread
        fsyncs them)."""
        syncer, self._syncer = self._syncer, None
        if syncer is None:
            return
        error = syncer.close()
        if error is not None and not syncer.reported:
            raise _run_stops(_write_error(self.path, [], error))


class _Syncer:
    """The thread that fsyncs a runner's journal: at most once every :data:`SYNC_EVERY_S`,
    and only after an append asked for it (:meth:`due`, a flag and at most one futex wake for
    the appender), so the event loop neither waits for the disk nor hands a thread a job per
    game. The first fsync of a new journal syncs its folder first (its name must survive a
    crash as its lines do). The first failure is kept for the next append to raise."""

    def __init__(self, path: Path, *, folder: bool) -> None:
        self.path = path
        self.error: OSError | None = None
        self.reported = False
        """Whether an append has raised :attr:`error` already."""
        self._folder = folder
        self._asked = threading.Event()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="journal fsync", daemon=True)
        self._thread.start()

    def due(self) -> None:
        self._asked.set()

    def _loop(self) -> None:
        while True:
            self._asked.wait()
            if self._closing.is_set():
                return
            self._asked.clear()
            self._sync()
            self._closing.wait(SYNC_EVERY_S)

    def _sync(self) -> None:
        try:
            if self._folder:
                _fsync_dir(self.path.parent)
                self._folder = False
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            if exc.errno in _PASSING_ERRNOS:  # out of file descriptors for now: next time
                self._asked.set()
            else:
                self.error = self.error or exc

    def close(self) -> OSError | None:
        """Stop the thread, fsync once more from here, and say what failed, if anything."""
        self._closing.set()
        self._asked.set()
        self._thread.join()
        self._sync()
        return self.error


def _run_stops(exc: JournalWriteError) -> JournalWriteError:
    """The failure of a run's append, with what to do about it."""
    return JournalWriteError(
        f"{exc}; the run stops here. Free some space (or fix the cause) and run the "
        "same command again: that game and the ones not played yet will be played then")


def _lines(records: list[GameRecord]) -> bytes:
    return b"".join(encode_record(r) + b"\n" for r in records)


def _write_error(path: Path, records: list[GameRecord], exc: OSError) -> JournalWriteError:
    ids = ", ".join(r.id or "?" for r in records) or "already written"
    return JournalWriteError(f"cannot write game {ids} to the journal {path}: "
                             f"{exc.strerror or exc}")


def append_record(path: Path, record: GameRecord | list[GameRecord], *,
                  create: bool = True) -> None:
    """Write one record (or several, with one write and one fsync) as lines at the end of the
    journal at ``path`` (made if missing, when ``create``) and make them durable before
    returning: :meth:`Journal.append_sync`, and the ad-hoc games of ``arena play --out`` and
    the web seat, which keep no journal open.

    A failure that may pass (EMFILE, ENOMEM...) is retried a few times with a growing wait;
    any other, or the last, raises :class:`JournalWriteError` after cutting the file back
    to its last complete line (a torn line would hide the games appended after it)."""
    records = record if isinstance(record, list) else [record]
    line = _lines(records)
    wait = APPEND_BACKOFF_S
    for attempt in range(APPEND_RETRIES):
        try:
            _write(path, line, create)
            return
        except OSError as exc:
            if exc.errno not in _PASSING_ERRNOS or attempt == APPEND_RETRIES - 1:
                raise _write_error(path, records, exc) from None
            time.sleep(wait)
            wait *= 2


def _write(path: Path, line: bytes, create: bool, *, durable: bool = True) -> None:
    """One unbuffered append, and its fsync when ``durable``; on failure the file is cut back
    to its old size (nothing buffered is left to be flushed later)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    fd = os.open(path, flags, 0o644)
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):  # best effort; load() repairs the rest
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def write_records(path: Path, records: Iterable[GameRecord]) -> int:
    """A whole journal at once, in the lines appends write (made-up runs: benchmarks); returns
    how many records it holds. Replaces any file at ``path``."""
    count = 0
    with path.open("wb") as fh:
        for record in records:
            fh.write(encode_record(record) + b"\n")
            count += 1
        fh.flush()
        os.fsync(fh.fileno())
    return count


def load(path: Path, warn: Say, *, repair: bool = False) -> list[GameRecord]:
    """Every record of a journal file in order, as summaries (no moves); [] when it is missing.

    A torn or undecodable *last* line is dropped with a warning (and truncated from the file
    when ``repair``); an undecodable line elsewhere, or a second record of a game id, raises
    :class:`UserError` naming file and lines.
    """
    summaries: list[GameRecord] = []
    ids = GameIds()
    bad: tuple[Line, str] | None = None
    """An undecodable line and why: an error unless it is the last."""
    lines = journal_lines(path)
    try:
        for line in lines:
            if bad is not None:
                raise _corrupt(path, bad[0].number, bad[1])
            try:
                record = decode_record(line.data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                bad = (line, str(exc))
                continue
            ids.check(record.id, f"{path}:{line.number}")
            summaries.append(summary(record))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UserError(f"cannot read journal {path}: {exc.strerror or exc}") from None
    torn = lines.torn
    if bad is not None:
        if torn is not None:  # a torn line after it: the bad one is not the last
            raise _corrupt(path, bad[0].number, bad[1])
        _drop_tail(path, bad[0].offset, bad[0].number, f"corrupt last line ({bad[1]})", warn,
                   repair)
    elif torn is not None:
        _drop_tail(path, torn.offset, torn.number, "torn last line (no newline)", warn, repair)
    return summaries


def iter_records(path: Path) -> Iterator[GameRecord]:
    """The full records of the journal at ``path``, one line at a time (nothing when it is
    missing); a bad line is a :class:`UserError` naming it, as in :func:`load`."""
    lines = journal_lines(path)
    try:
        for line in lines:
            try:
                yield decode_record(line.data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise _corrupt(path, line.number, str(exc)) from None
    except FileNotFoundError:
        return


def _corrupt(path: Path, number: int, why: str) -> UserError:
    return UserError(
        f"{path}:{number}: corrupt journal line ({why}); the journal is append-only, "
        "so this line was damaged or edited: restore the line or delete it by hand"
    )


def _fsync_dir_or_fail(path: Path, records: list[GameRecord]) -> None:
    """Make the journal's name durable in its folder; a failure is the append's."""
    try:
        _fsync_dir(path.parent)
    except OSError as exc:
        raise _write_error(path, records, exc) from None


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _drop_tail(path: Path, keep: int, number: int, why: str, warn: Say, repair: bool) -> None:
    if repair:
        with open(path, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
        warn(f"{path}:{number}: {why}; truncated it, that game will be played again")
    else:
        warn(f"{path}:{number}: {why}; ignored")
