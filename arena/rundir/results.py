"""Reading results for the ratings from files: a run directory, a ``games.jsonl`` journal or a
PGN file, as ``arena ratings`` takes them (and ``arena run`` for its closing table).

The files are read here; what a record or a PGN game counts for is the ratings' rule
(:mod:`ratings.sources`), whose :class:`~ratings.sources.SourceError` becomes a
:class:`UserError` with the same message. A game recorded twice is refused by the journal's
own rule (:class:`~arena.rundir.journal.GameIds`), for PGN files as for journals.

Any file may be handed to ``arena ratings``, so reading is bounded (:class:`Bounds`): files
are read one line at a time, a line longer than the format allows is an error (memory stays
within a few times the cap, whatever the file's size), and the first line with binary bytes
(NUL or other control characters no text has) or a PGN whose first line is no tag pair stops
the read at once, so a gigabyte of random bytes fails in milliseconds instead of being
decoded whole. A journal's last line without its newline is a game still being written: it
is left out (:func:`~arena.rundir.journal.journal_lines`), as the report and ``arena serve``
leave it.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from arena.errors import UserError
from arena.rundir.journal import GameIds, journal_lines
from arena.rundir.layout import JOURNAL_FILE, RunDir
from arena.rundir.textlines import Bounds, LastLine, LineReader
from arena.say import Say
from referee.record import decode_record

if TYPE_CHECKING:  # the ratings package loads numpy: only the readers of results need it
    from ratings.sources import GameResult

MAX_JOURNAL_LINE_BYTES: Final = 64 << 20
"""Longest journal line read: a record of tens of thousands of moves, each with its capped
search info (``protocol.bounds``), fits many times over."""
MAX_PGN_LINE_BYTES: Final = 1 << 20
"""Longest PGN line read: exporters wrap at 80 characters, and a whole game's movetext with
clock comments on one line (as some sites export) is a few tens of KB."""

_EXPECTED = f"a {JOURNAL_FILE} journal or a PGN file"
JOURNAL_BOUNDS: Final = Bounds(MAX_JOURNAL_LINE_BYTES, f"{JOURNAL_FILE} journal", _EXPECTED)
PGN_BOUNDS: Final = Bounds(MAX_PGN_LINE_BYTES, "PGN file", _EXPECTED)



def read_results(path: str | Path, warn: Say | None = None) -> list[GameResult]:
    """Every finished game of a run directory, a ``.jsonl`` journal or a PGN file.

    ``warn`` hears of a journal's last line that is still being written (left out)."""
    p = Path(path)
    if p.is_dir():
        journal = RunDir(p).journal
        if not journal.is_file():
            raise UserError(f"{p}: not a run directory (no {JOURNAL_FILE} in it)")
        return _rated(journal_results(journal, warn))
    if not p.exists():
        raise UserError(f"{p}: no such file or directory")
    if not p.is_file():
        raise UserError(f"{p}: not a regular file (give a run directory, a {JOURNAL_FILE} "
                        "journal or a PGN file)")
    if p.suffix in (".jsonl", ".json"):
        return _rated(journal_results(p, warn))
    return _rated(pgn_results(p))


def _rated(results: Iterator[GameResult]) -> list[GameResult]:
    """The results, with the ratings' rules' errors as the person's: a :class:`UserError`."""
    from ratings.sources import SourceError

    try:
        return list(results)
    except SourceError as exc:
        raise UserError(str(exc)) from None


def journal_results(path: Path, warn: Say | None = None) -> Iterator[GameResult]:
    """Games of a ``games.jsonl`` journal: one ``referee.record.GameRecord`` per line."""
    from ratings.sources import record_result

    ids = GameIds()
    lines = journal_lines(path, bounds=JOURNAL_BOUNDS)
    try:
        for line in lines:
            where = f"{path}:{line.number}"
            try:
                record = decode_record(line.data)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                raise UserError(f"{where}: not a game record: {exc}") from None
            ids.check(record.id, where)
            result = record_result(record, where)
            if result is not None:
                yield result
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if lines.torn is not None and warn is not None:
        warn(f"{path}:{lines.torn.number}: the last line has no newline yet (a game still "
             "being written); left out")


def pgn_results(path: Path) -> Iterator[GameResult]:
    """Games of a PGN file, from the tag pairs only (White, Black, Result); move text is ignored.

    A game starts at its first tag line after move text (or at the top of the file). A game
    without White, Black or Result is an error naming the line where its tags began.
    """
    from ratings.sources import pgn_tags, tags_result

    ids = GameIds()
    try:
        for game in pgn_tags(pgn_lines(path), str(path)):
            ids.check(game.tags.get("GameId", ""), game.where)
            result = tags_result(game)
            if result is not None:
                yield result
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None


def pgn_lines(path: Path, bounds: Bounds = PGN_BOUNDS) -> Iterator[str]:
    """The lines of a PGN file as text (every line, blank ones included, so that the n-th is
    line n), checked as they are read: the first line that is not blank or an escape (``%``)
    must be a tag pair, or the file is no PGN. A line that is not UTF-8 is read as Latin-1,
    the PGN standard's own character set. Also the reader of PGN and PDN opening books."""
    started = False
    for line in LineReader(path, LastLine.TEXT, bounds=bounds, blank=True):
        raw = line.data
        if line.number == 1:
            raw = raw.removeprefix(codecs.BOM_UTF8)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        if not started:
            stripped = text.strip()
            if stripped and not stripped.startswith(("%", ";")):
                if not stripped.startswith("["):
                    hint = (f" (it looks like a {JOURNAL_FILE} journal: name it *.jsonl)"
                            if stripped.startswith('{"') else "")
                    raise UserError(
                        f"{path}:{line.number}: not a PGN file: a game starts with a tag pair "
                        f"such as [White \"name\"], found {stripped[:40]!r}{hint}")
                started = True
        yield text.rstrip("\r\n")
