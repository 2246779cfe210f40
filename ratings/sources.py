"""What a game counts for in the ratings: :class:`GameResult`, and the rules that turn a game
record or a PGN game's tags into one.

Ratings need only who moved first, who moved second and how it ended, so every source is
reduced to a list of :class:`GameResult`. Unfinished games (``*``) carry no information and are
skipped; anything else that cannot be rated is a :class:`SourceError` naming the file and the
line, because a silently dropped game would bias every rating computed from it.

Reading the files (run directories, journals, PGN files; bounded, line by line) belongs to
arena's data layer (:mod:`arena.rundir.results`), which hands records and tag sections to
these rules and turns a :class:`SourceError` into the person's error; so does the rule for a
game recorded twice, which resume applies too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from referee.record import P1_POINTS, GameRecord

PAIR_TAGS = ("pair", "pair_id")
"""Record tags that may name the colour pair a game belongs to (same opening, colours swapped)."""

class SourceError(ValueError):
    """A game that cannot be rated; the message names the file and line (``file:line: ...``)."""


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
        return P1_POINTS[result]
    except KeyError:
        raise ValueError(f"unknown result {result!r} (expected 1-0, 0-1, 1/2-1/2 or *)") from None


def record_result(record: GameRecord, where: str) -> GameResult | None:
    """The result of a journal's game record found at ``where`` (``file:line``); None for an
    unfinished game."""
    try:
        score = first_mover_points(record.result)
    except ValueError as exc:
        raise SourceError(f"{where}: field 'result': {exc}") from None
    if score is None:
        return None
    if record.p1 == record.p2:
        raise SourceError(f"{where}: player {record.p1!r} plays against itself")
    pair = next((record.tags[t] for t in PAIR_TAGS if record.tags.get(t)), None)
    return GameResult(record.p1, record.p2, score, pair, where)


@dataclass(frozen=True, slots=True)
class PgnTags:
    """The tag pairs of one PGN game, and ``where`` they began (``file:line``)."""

    tags: dict[str, str]
    where: str


def tags_result(game: PgnTags) -> GameResult | None:
    """The result of a PGN game from its tag pairs (White, Black, Result); None for an
    unfinished game. A game without one of those three is an error."""
    tags, where = game.tags, game.where
    missing = [t for t in ("White", "Black", "Result") if t not in tags]
    if missing:
        raise SourceError(f"{where}: game without tag {', '.join(missing)}")
    try:
        score = first_mover_points(tags["Result"])
    except ValueError as exc:
        raise SourceError(f"{where}: tag Result: {exc}") from None
    if score is None:
        return None
    if tags["White"] == tags["Black"]:
        raise SourceError(f"{where}: player {tags['White']!r} plays against itself")
    pair = next((tags[t] for t in ("PairId", "Pair") if tags.get(t)), None)
    return GameResult(tags["White"], tags["Black"], score, pair, where)


_TAG = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\\\", "\\")


def pgn_tags(lines: Iterable[str], name: str = "<pgn>") -> Iterator[PgnTags]:
    """The tag sections of PGN text, one per game (``name`` is used in messages); move text is
    ignored.

    A game starts at its first tag line after move text (or at the top of the file); its
    ``where`` is that line. A tag-looking line inside a multi-line ``{comment}`` is no tag.
    """
    tags: dict[str, str] = {}
    start = 0
    in_tags = False
    in_comment = False
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
                raise SourceError(f"{name}:{number}: malformed tag line {stripped[:60]!r}")
            if not in_tags:
                if tags:
                    yield PgnTags(tags, f"{name}:{start}")
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
        yield PgnTags(tags, f"{name}:{start}")
