"""PGN and PDN text as our two writers write it: a played game (:mod:`reports.pgn`) and an
opening book (:mod:`arena.openings.writer`). One home for the rules both must follow, so that
a book and a game export escape and wrap alike and any PGN reader takes both."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

LINE_WIDTH: Final = 79
"""PGN's export format keeps movetext lines under 80 characters."""


def tag_value(value: object) -> str:
    """A tag pair's value, with its backslashes and quotes escaped as the standard says."""
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def comment(text: str) -> str:
    """A movetext comment: ``{text}``, with braces inside turned into parentheses (a PGN
    comment ends at the first ``}``, and nests nothing)."""
    return "{" + text.replace("}", ")").replace("{", "(").strip() + "}"


def wrap(tokens: Iterable[str]) -> list[str]:
    """Movetext tokens joined into lines of at most :data:`LINE_WIDTH` characters (a longer
    token stands alone on its line)."""
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return lines
