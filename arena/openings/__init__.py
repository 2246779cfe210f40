"""Openings: where each game starts (:class:`Opening`), and the books they come from.

An opening is a position text (empty: the game's standard start) and moves forced on both
bots from there. The schedule gets them from an openings file (:mod:`arena.openings.book`,
which reads every format: our own ``fen``/``moves`` lines, EPD, PGN and PDN, and checks each
opening with the real rules), or draws random plies (:mod:`arena.formats.schedule`).
"""

from __future__ import annotations

from typing import Literal

import msgspec

BookFormat = Literal["lines", "epd", "pgn", "pdn"]
"""An openings file's format: our ``fen``/``moves`` lines, EPD positions, PGN or PDN games."""
BookOrder = Literal["sequential", "random"]
"""The order a book's openings are used in: the file's, or shuffled by the tournament seed."""


class Opening(msgspec.Struct, frozen=True, omit_defaults=True):
    """Where a game starts: a position text (empty = the game's start) and forced moves."""

    start_position: str = ""
    moves: tuple[str, ...] = ()
    source: str = ""
    """Where it came from, for humans: ``book.pgn:12`` (the file's name and the line where the
    opening begins) or ``random: m1 m2 ...``. The report's openings table groups by it."""


class BookMove(msgspec.Struct, frozen=True, array_like=True):
    """One move of a book as written, with the line it is on (for error messages)."""

    text: str
    line: int


class BookEntry(msgspec.Struct, frozen=True):
    """One opening as a reader found it, not yet checked with the rules."""

    line: int
    """Where it begins in its file (1-based): its first tag, or its line."""
    position: str = ""
    """Its position text as written (empty: the game's start)."""
    moves: tuple[BookMove, ...] = ()
    tags: dict[str, str] = {}
    """PGN/PDN tag pairs (``FEN``, ``Variant``, ``GameType``...); empty for other formats."""
