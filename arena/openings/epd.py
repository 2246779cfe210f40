"""EPD books: one position per line, the game's own position text, then optional EPD operations.

EPD (Extended Position Description, the PGN standard's section 16) is a chess FEN without the
move counters followed by operations, each an opcode, its operands and a ``;``
(``id "Najdorf";``). Here a line holds the game's own position text as the arena writes it
(``docs/rules.md``: a PDN FEN for draughts, a FEN-like text with several fields for the
others), so the counters stay if the game has them. Operations are allowed and skipped.

Where the position ends and the first operation begins cannot be told from the text alone
(``s`` ends a jungle position and could be an opcode); the games' position readers are strict
about their number of fields, so the position is the longest run of leading tokens the game
reads as a position, provided the rest is well-formed operations. A line without ``;`` is a
position text and nothing else. Blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from arena.errors import UserError
from arena.openings import BookEntry

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|;|[^\s;"]+')
_OPCODE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,14}$")
"""EPD opcodes: a letter, then letters, digits and underscores, at most 15 characters."""


def read_epd(lines: Iterable[str], name: str, reads: Callable[[str], str | None]
             ) -> Iterator[BookEntry]:
    """The positions of EPD text. ``reads(text)`` is None when the game reads ``text`` as a
    position, else why not; a line that holds no position is an error naming ``name:LINE``
    and the game's reason."""
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        yield BookEntry(line=number, position=_position(line, f"{name}:{number}", reads))


def _position(line: str, where: str, reads: Callable[[str], str | None]) -> str:
    if ";" not in line:
        if (problem := reads(line)) is not None:
            raise UserError(f"{where}: {problem}")
        return line
    tokens = _TOKEN.findall(line)
    if _TOKEN.sub("", line).strip():
        raise UserError(f"{where}: an unterminated string (\") in the EPD operations")
    if tokens[-1] != ";":
        raise UserError(f"{where}: the last EPD operation does not end with ';'")
    first_end = tokens.index(";")
    why: str | None = None
    for split in range(first_end - 1, 0, -1):
        if not _OPCODE.match(tokens[split]) or not _operations(tokens[split:]):
            continue
        text = " ".join(tokens[:split])
        reason = reads(text)
        if reason is None:
            return text
        why = why or reason  # the longest candidate's reason is the telling one
    raise UserError(f"{where}: {why or 'no position text before the EPD operations'}")


def _operations(tokens: list[str]) -> bool:
    """Do ``tokens`` make well-formed EPD operations (``opcode operand* ;`` ...)?"""
    expect_opcode = True
    for token in tokens:
        if expect_opcode:
            if not _OPCODE.match(token):
                return False
            expect_opcode = False
        elif token == ";":
            expect_opcode = True
    return expect_opcode
