"""Where results come from: run directories, ``games.jsonl`` journals and PGN files.

Ratings need only who moved first, who moved second and how it ended, so every source is
reduced to a list of :class:`GameResult`. Unfinished games (``*``) carry no information and are
skipped; anything else that cannot be read is an error naming the file and the line, because a
silently dropped game would bias every rating computed from it. So is a second record of one
game id (the rule resume applies to a journal): counted twice, it would bias them as much.

Any file may be handed to ``arena ratings``, so reading is bounded: files are read one line at
a time, a line longer than the format allows is an error (memory stays within a few times the
cap, whatever the file's size), and the first line with binary bytes (NUL or other control
characters no text has) or a PGN whose first line is no tag pair stops the read at once, so a
gigabyte of random bytes fails in milliseconds instead of being decoded whole.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

import msgspec

from arena.errors import DuplicateGameError, UserError
from referee.record import decode_record

JOURNAL_NAME = "games.jsonl"
"""The journal file a run directory holds, one ``GameRecord`` JSON line per game."""

PAIR_TAGS = ("pair", "pair_id")
"""Record tags that may name the colour pair a game belongs to (same opening, colours swapped)."""

MAX_JOURNAL_LINE_BYTES: Final = 64 << 20
"""Longest journal line read: a record of tens of thousands of moves, each with its capped
search info (``protocol.bounds``), fits many times over."""
MAX_PGN_LINE_BYTES: Final = 1 << 20
"""Longest PGN line read: exporters wrap at 80 characters, and a whole game's movetext with
clock comments on one line (as some sites export) is a few tens of KB."""

SNIFF_BYTES: Final = 64 << 10
"""How much of a file's start is checked for binary bytes before its lines are read."""

_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
_BINARY = re.compile(rb"[\x00-\x08\x0e-\x19\x1b-\x1f\x7f]")
"""Bytes no text file holds: C0 controls other than tab, line and page breaks and ^Z (an old
DOS end-of-file mark), and DEL. Random data has one in every ten bytes."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game as ratings see it.

    ``first`` moved first (White in chess, ``p1`` in the arena). ``score`` is the first mover's
    points: 1, 0.5 or 0. ``pair`` names the colour pair when the source says so (else None).
    ``where`` says where the game came from (``file:line``) for messages.
    """

    first: str
    second: str
    score: float
    pair: str | None = None
    where: str = ""


def first_mover_points(result: str) -> float | None:
    """The first mover's points for a result string, None for ``*``; ValueError otherwise."""
    if result == "*":
        return None
    try:
        return _SCORES[result]
    except KeyError:
        raise ValueError(f"unknown result {result!r} (expected 1-0, 0-1, 1/2-1/2 or *)") from None


def read_results(path: str | Path) -> list[GameResult]:
    """Read every finished game from a run directory, a ``.jsonl`` journal or a PGN file."""
    p = Path(path)
    if p.is_dir():
        journal = p / JOURNAL_NAME
        if not journal.is_file():
            raise UserError(f"{p}: not a run directory (no {JOURNAL_NAME} in it)")
        return list(read_journal(journal))
    if not p.exists():
        raise UserError(f"{p}: no such file or directory")
    if not p.is_file():
        raise UserError(f"{p}: not a regular file (give a run directory, a games.jsonl "
                        "journal or a PGN file)")
    if p.suffix in (".jsonl", ".json"):
        return list(read_journal(p))
    return list(read_pgn(p))


def _lines(path: Path, fh: BinaryIO, cap: int, kind: str) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of an open file, each line at most ``cap`` bytes; a longer line
    or one with binary bytes is a :class:`UserError` naming the file, line and byte offset.
    The file's first block is checked for binary bytes before any line is parsed (as grep
    does), so binary data is reported as such even where a short first line looks like text."""
    _refuse_binary(path, fh.read(SNIFF_BYTES), 0, 1)
    fh.seek(0)
    offset = 0
    number = 0
    while raw := fh.readline(cap + 1):
        number += 1
        if len(raw) > cap and not raw.endswith(b"\n"):
            raise UserError(f"{path}:{number}: line longer than {cap} bytes (from byte offset "
                            f"{offset}): not a {kind}")
        _refuse_binary(path, raw, offset, number)
        yield number, raw
        offset += len(raw)


def _refuse_binary(path: Path, data: bytes, offset: int, number: int) -> None:
    """A :class:`UserError` at the first binary byte of ``data``, which starts at byte
    ``offset`` and line ``number`` of the file."""
    if binary := _BINARY.search(data):
        at = binary.start()
        line = number + data.count(b"\n", 0, at)
        raise UserError(
            f"{path}:{line}: binary data, not text (byte "
            f"0x{data[at]:02x} at offset {offset + at}): expected a games.jsonl journal or a "
            "PGN file")


class _Ids:
    """Where each game id was first seen, to refuse a second record of it as resume does."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}

    def check(self, game_id: str, where: str) -> None:
        if not game_id:
            return
        if game_id in self.first:
            raise DuplicateGameError(where, game_id, self.first[game_id])
        self.first[game_id] = where


def read_journal(path: Path) -> Iterator[GameResult]:
    """Games of a ``games.jsonl`` journal: one ``referee.record.GameRecord`` per line."""
    ids = _Ids()
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    with fh:
        for number, raw in _lines(path, fh, MAX_JOURNAL_LINE_BYTES, "games.jsonl journal"):
            line = raw.strip()
            if not line:
                continue
            where = f"{path}:{number}"
            try:
                record = decode_record(line)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                raise UserError(f"{where}: not a game record: {exc}") from None
            ids.check(record.id, where)
            try:
                score = first_mover_points(record.result)
            except ValueError as exc:
                raise UserError(f"{where}: field 'result': {exc}") from None
            if score is None:
                continue
            if record.p1 == record.p2:
                raise UserError(f"{where}: player {record.p1!r} plays against itself")
            pair = next((record.tags[t] for t in PAIR_TAGS if record.tags.get(t)), None)
            yield GameResult(record.p1, record.p2, score, pair, where)


_TAG = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\\\", "\\")


def read_pgn(path: Path) -> Iterator[GameResult]:
    """Games of a PGN file, from the tag pairs only (White, Black, Result); move text is ignored.

    A game starts at its first tag line after move text (or at the top of the file). A game
    without White, Black or Result is an error naming the line where its tags began.
    """
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    with fh:
        yield from parse_pgn(_pgn_text(path, fh), str(path))


def _pgn_text(path: Path, fh: BinaryIO) -> Iterator[str]:
    """The lines of a PGN file as text, checked as they are read: the first line that is not
    blank or an escape (``%``) must be a tag pair, or the file is no PGN. A line that is not
    UTF-8 is read as Latin-1, the PGN standard's own character set."""
    started = False
    for number, raw in _lines(path, fh, MAX_PGN_LINE_BYTES, "PGN file"):
        if number == 1:
            raw = raw.removeprefix(codecs.BOM_UTF8)
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("latin-1")
        if not started:
            stripped = line.strip()
            if stripped and not stripped.startswith(("%", ";")):
                if not stripped.startswith("["):
                    hint = (" (it looks like a games.jsonl journal: name it *.jsonl)"
                            if stripped.startswith('{"') else "")
                    raise UserError(
                        f"{path}:{number}: not a PGN file: a game starts with a tag pair such "
                        f"as [White \"name\"], found {stripped[:40]!r}{hint}")
                started = True
        yield line.rstrip("\r\n")


def parse_pgn(lines: Iterable[str], name: str = "<pgn>") -> Iterator[GameResult]:
    """The tag reader behind :func:`read_pgn`, on lines of text (``name`` is used in messages)."""
    tags: dict[str, str] = {}
    start = 0
    in_tags = False
    in_comment = False
    ids = _Ids()

    def finish() -> GameResult | None:
        where = f"{name}:{start}"
        ids.check(tags.get("GameId", ""), where)
        missing = [t for t in ("White", "Black", "Result") if t not in tags]
        if missing:
            raise UserError(f"{where}: game without tag {', '.join(missing)}")
        try:
            score = first_mover_points(tags["Result"])
        except ValueError as exc:
            raise UserError(f"{where}: tag Result: {exc}") from None
        if score is None:
            return None
        if tags["White"] == tags["Black"]:
            raise UserError(f"{where}: player {tags['White']!r} plays against itself")
        pair = next((tags[t] for t in ("PairId", "Pair") if tags.get(t)), None)
        return GameResult(tags["White"], tags["Black"], score, pair, where)

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if in_comment:
            # Tag-looking lines inside a multi-line {comment} are not tags.
            if "}" in stripped:
                in_comment = False
            continue
        if stripped.startswith("["):
            match = _TAG.match(stripped)
            if match is None:
                raise UserError(f"{name}:{number}: malformed tag line {stripped[:60]!r}")
            if not in_tags:
                if tags:
                    game = finish()
                    if game is not None:
                        yield game
                tags = {}
                start = number
                in_tags = True
            tags[match.group(1)] = _unescape(match.group(2))
            continue
        # Any other line (blank, move text, comment) ends the tag section.
        in_tags = False
        if not stripped.startswith(("%", ";")) and stripped.count("{") > stripped.count("}"):
            in_comment = True
    if tags:
        game = finish()
        if game is not None:
            yield game
