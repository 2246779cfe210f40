"""Our own openings format: one opening per line, ``fen <position text>`` or ``moves m1 m2 ...``.

``#`` starts a comment (no position text or move of the five games holds one); blank lines
are skipped. It is the format any text editor writes and any game's position text fits in,
whatever its number of fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from arena.errors import UserError
from arena.openings import BookEntry, BookMove


def read_lines(lines: Iterable[str], name: str) -> Iterator[BookEntry]:
    """The openings of the text ``lines``; a line of neither kind is an error naming
    ``name:LINE``."""
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        kind, _, rest = line.partition(" ")
        rest = rest.strip()
        if kind == "fen" and rest:
            yield BookEntry(line=number, position=rest)
        elif kind == "moves" and rest:
            yield BookEntry(line=number,
                            moves=tuple(BookMove(m, number) for m in rest.split()))
        else:
            raise UserError(
                f"{name}:{number}: expected 'fen <position>' or 'moves m1 m2 ...', "
                f"got {raw.strip()[:80]!r}"
            )
