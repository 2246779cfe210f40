"""The Hub protocol's text (version 2, as Scan 3.1 speaks it): lines, positions and moves.

Every Hub line is ``<command> <name>=<value> <name>=<value> ...``; a value with a space, an
``=`` or a quote, or an empty one, is written in double quotes; a name without ``=value`` is a
flag (its value is the empty string). Readers ignore names they do not know.

Positions are one letter for the side to move (``W``/``B``) and one per square 1-50 (``w``,
``b`` men, ``W``, ``B`` kings, ``e`` empty). Moves are ``32-28`` for a quiet move and ``from x
to x captured x captured ...`` for a capture (``28x19x23``: the captured squares, not the
landing squares, in any order). This module only handles the text; the referee's rules say
which legal move a Hub move is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from protocol.lines import ProtocolError

SQUARES = 50
_PIECES = "wbWBe"
_MOVE = re.compile(r"^(\d{1,2})([-x])(\d{1,2})((?:x\d{1,2})*)$")


class HubLine(NamedTuple):
    """One parsed line: the command and its arguments in order (a flag's value is "")."""

    command: str
    args: dict[str, str]

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.args.get(name, default)


def _is_bare(value: str) -> bool:
    return bool(value) and not any(c.isspace() or c in '="' or ord(c) < 32 for c in value)


def quote(value: str) -> str:
    """A value as Hub writes it: bare when it can be, else in double quotes."""
    return value if _is_bare(value) else f'"{value}"'


def format_line(command: str, args: Mapping[str, object] | Iterable[tuple[str, object]] = (),
                *flags: str) -> str:
    """``command name=value ... flag ...``; None values are left out."""
    items = args.items() if isinstance(args, Mapping) else args
    parts = [command]
    for name, value in items:
        if value is None:
            continue
        parts.append(f"{name}={quote(_text(value))}")
    parts.extend(flags)
    return " ".join(parts)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def parse_line(line: str) -> HubLine | None:
    """A line as a :class:`HubLine`; None for a blank line. :class:`ProtocolError` for an
    unterminated quote or a value with no name."""
    i, n = 0, len(line)
    words: list[str] = []
    args: dict[str, str] = {}

    def skip_blank(i: int) -> int:
        while i < n and line[i].isspace():
            i += 1
        return i

    def name_at(i: int) -> tuple[str, int]:
        start = i
        while i < n and not line[i].isspace() and line[i] not in '="':
            i += 1
        return line[start:i], i

    i = skip_blank(i)
    if i >= n:
        return None
    command, i = name_at(i)
    if not command:
        raise ProtocolError(line, "a Hub line must start with a command word")
    while True:
        i = skip_blank(i)
        if i >= n:
            break
        name, i = name_at(i)
        if not name:
            raise ProtocolError(line, f"expected an argument name at column {i + 1}")
        words.append(name)
        i = skip_blank(i)
        value = ""
        if i < n and line[i] == "=":
            i = skip_blank(i + 1)
            if i < n and line[i] == '"':
                end = line.find('"', i + 1)
                if end < 0:
                    raise ProtocolError(line, f"unterminated quote after {name}=")
                value, i = line[i + 1 : end], end + 1
            else:
                value, i = name_at(i)
        args[name] = value
    return HubLine(command, args)


# ----- positions ---------------------------------------------------------------------------


def position_to_fen(text: str) -> str:
    """A Hub position (``W`` + 50 squares) as a PDN FEN (``W:W31-50:B1-20``, kings ``K``)."""
    if len(text) != SQUARES + 1 or text[0] not in "WB" or any(c not in _PIECES
                                                                for c in text[1:]):
        raise ValueError(f"bad Hub position {text!r}: expected W or B, then 50 of 'wbWBe'")
    white = [("K" if c == "W" else "") + str(sq) for sq, c in enumerate(text[1:], 1)
             if c in "wW"]
    black = [("K" if c == "B" else "") + str(sq) for sq, c in enumerate(text[1:], 1)
             if c in "bB"]
    return f"{text[0]}:W{','.join(white)}:B{','.join(black)}"


def position_text(white_to_move: bool, squares: Mapping[int, str]) -> str:
    """A Hub position from ``square -> piece letter`` (``w``, ``b``, ``W``, ``B``)."""
    return ("W" if white_to_move else "B") + "".join(
        squares.get(sq, "e") for sq in range(1, SQUARES + 1))


# ----- moves -------------------------------------------------------------------------------


class HubMove(NamedTuple):
    start: int
    end: int
    captured: frozenset[int]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)


def parse_move(text: str) -> HubMove:
    """``32-28`` or ``28x19x23`` as its start, end and captured squares; ValueError if not.

    A capture written without its captured squares (``28x19``) parses with none: the reader
    accepts it only when a single legal capture goes from 28 to 19."""
    m = _MOVE.match(text.strip())
    if not m:
        raise ValueError(f"{text!r} is not a Hub move (expected '32-28' or '28x19x23')")
    start, kind, end, rest = int(m[1]), m[2], int(m[3]), m[4]
    captured = [int(s) for s in rest.split("x")[1:]]
    for sq in (start, end, *captured):
        if not 1 <= sq <= SQUARES:
            raise ValueError(f"Hub move {text!r}: square {sq} is outside 1-50")
    if kind == "-" and captured:
        raise ValueError(f"Hub move {text!r}: a quiet move captures nothing")
    if len(set(captured)) != len(captured):
        raise ValueError(f"Hub move {text!r}: a captured square is listed twice")
    return HubMove(start, end, frozenset(captured))


def format_move(start: int, end: int, captured: Iterable[int] = ()) -> str:
    """A move in Hub form: ``32-28``, or ``28x19x23`` with the captured squares sorted."""
    taken = sorted(captured)
    if not taken:
        return f"{start}-{end}"
    return f"{start}x{end}" + "".join(f"x{sq}" for sq in taken)
