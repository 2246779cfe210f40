"""Where results come from: run directories, ``games.jsonl`` journals and PGN files.

Ratings need only who moved first, who moved second and how it ended, so every source is
reduced to a list of :class:`GameResult`. Unfinished games (``*``) carry no information and are
skipped; anything else that cannot be read is an error naming the file and the line, because a
silently dropped game would bias every rating computed from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from arena.errors import UserError
from referee.record import decode_record

JOURNAL_NAME = "games.jsonl"
"""The journal file a run directory holds, one ``GameRecord`` JSON line per game."""

PAIR_TAGS = ("pair", "pair_id")
"""Record tags that may name the colour pair a game belongs to (same opening, colours swapped)."""

_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


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


def score_of(result: str) -> float | None:
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
    if not p.is_file():
        raise UserError(f"{p}: no such file or directory")
    if p.suffix in (".jsonl", ".json"):
        return list(read_journal(p))
    return list(read_pgn(p))


def read_journal(path: Path) -> Iterator[GameResult]:
    """Games of a ``games.jsonl`` journal: one ``referee.record.GameRecord`` per line."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            line = raw.strip()
            if not line:
                continue
            where = f"{path}:{number}"
            try:
                record = decode_record(line)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                raise UserError(f"{where}: not a game record: {exc}") from None
            try:
                score = score_of(record.result)
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
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    yield from parse_pgn(text.splitlines(), str(path))


def parse_pgn(lines: Iterable[str], name: str = "<pgn>") -> Iterator[GameResult]:
    """The tag reader behind :func:`read_pgn`, on lines of text (``name`` is used in messages)."""
    tags: dict[str, str] = {}
    start = 0
    in_tags = False
    in_comment = False

    def finish() -> GameResult | None:
        where = f"{name}:{start}"
        missing = [t for t in ("White", "Black", "Result") if t not in tags]
        if missing:
            raise UserError(f"{where}: game without tag {', '.join(missing)}")
        try:
            score = score_of(tags["Result"])
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
