"""Writing a book: openings with a comment each, in any format the book reader reads.

``arena openings make`` and ``arena openings prune`` write their books here, so what one
writes the other (and every tournament) reads with :func:`arena.openings.book.read_book`.
The header (the command that made the book, what was kept) goes where each format keeps a
file's comments: ``#`` lines in our lines format and in EPD, ``%`` escape lines in PGN and
PDN (the standard's escape mechanism, which every reader skips). Each opening's own comment
(its evaluation, its results) goes after it:

* lines: ``moves m1 m2 ...  # comment`` (``fen <position>`` for an opening that has no moves);
* EPD: the position after the opening, then ``c0 "comment"; c1 "moves m1 m2 ...";``;
* PGN/PDN: one game per opening, its ``Event``, ``Variant`` (PDN: ``GameType``), ``FEN``
  when it does not start at the start, the numbered moves, ``{comment}`` and ``*``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.openings import BookFormat, Opening
from arena.openings.pgntext import comment, tag_value, wrap
from referee.games import get_game

PDN_GAME_TYPE: Final = "20"


@dataclass(frozen=True)
class BookLine:
    """One opening to write and the comment that goes with it."""

    opening: Opening
    comment: str = ""


def write_book(path: Path, fmt: BookFormat, game: str, options: Mapping[str, str],
               header: Sequence[str], lines: Iterable[BookLine]) -> None:
    """Write the book at ``path`` whole or not at all (a temporary file renamed over it)."""
    text = book_text(fmt, game, options, header, lines)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def book_text(fmt: BookFormat, game: str, options: Mapping[str, str],
              header: Sequence[str], lines: Iterable[BookLine]) -> str:
    """The text of a book of ``game`` in format ``fmt``."""
    mark = "%" if fmt in ("pgn", "pdn") else "#"
    out = [f"{mark} {line}".rstrip() for line in header]
    if fmt in ("pgn", "pdn") and out:
        out.append("")
    for number, line in enumerate(lines, start=1):
        if fmt == "lines":
            out.append(_lines_entry(line))
        elif fmt == "epd":
            out.append(_epd_entry(game, options, line))
        else:
            out.extend(_pgn_entry(fmt, game, number, line))
    return "\n".join(out) + "\n"


def _lines_entry(line: BookLine) -> str:
    opening = line.opening
    if opening.start_position and opening.moves:
        raise ValueError("our lines format holds a position or moves from the start, not both; "
                         "write such an opening as EPD or PGN")
    body = f"fen {opening.start_position}" if opening.start_position else \
        f"moves {' '.join(opening.moves)}"
    comment = line.comment.replace("\n", " ")
    return f"{body}  # {comment}" if comment else body


def _epd_entry(game: str, options: Mapping[str, str], line: BookLine) -> str:
    opening = line.opening
    board = get_game(game).new(opening.start_position or None, opening.moves, **options)
    ops = []
    if line.comment:
        ops.append(f"c0 {_epd_string(line.comment)};")
    if opening.moves:
        ops.append(f"c1 {_epd_string('moves ' + ' '.join(opening.moves))};")
    return " ".join([board.position(), *ops])


def _epd_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', "'").replace("\n", " ") + '"'


def _pgn_entry(fmt: BookFormat, game: str, number: int, line: BookLine) -> list[str]:
    opening = line.opening
    tags = [("Event", f"opening {number}")]
    tags.append(("GameType", PDN_GAME_TYPE) if fmt == "pdn" else ("Variant", game))
    first = 0
    if opening.start_position:
        tags += [("SetUp", "1"), ("FEN", opening.start_position)]
        first = int(get_game(game).from_position(opening.start_position).side_to_move)
    tags.append(("Result", "*"))
    out = [f'[{name} "{tag_value(value)}"]' for name, value in tags]
    out.append("")
    tokens = _numbered(opening.moves, first)
    if line.comment:
        tokens.append(comment(line.comment))
    tokens.append("*")
    out.extend(wrap(tokens))
    out.append("")
    return out


def _numbered(moves: Sequence[str], first: int) -> list[str]:
    """Movetext tokens with move numbers: ``1. a b 2. c``; ``1... a`` when p2 moves first."""
    tokens: list[str] = []
    for ply, move in enumerate(moves):
        side = (first + ply) % 2
        number = (first + ply) // 2 + 1
        if side == 0:
            tokens.append(f"{number}.")
        elif ply == 0:
            tokens.append(f"{number}...")
        tokens.append(move)
    return tokens
