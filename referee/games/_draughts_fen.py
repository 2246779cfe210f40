"""PDN FEN for international draughts: reading (ranges, kings, either field order) and the
canonical writing, so that position texts round-trip.

Canonical output: ``W:W31-50:B1-20`` — side to move, then white's pieces, then black's, each
list in ascending square order; runs of three or more consecutive men as ``a-b``; kings one by
one with a ``K`` prefix.
"""

from __future__ import annotations

import re

from referee.games.base import PositionError

_ITEM = re.compile(r"^(K?)(\d+)(?:-(K?)(\d+))?$")


class Placement:
    """Pieces per side: ``men[side]`` and ``kings[side]`` are sets of squares 1-50."""

    __slots__ = ("kings", "men", "side_to_move")

    def __init__(self, side_to_move: int, men: tuple[set[int], set[int]],
                 kings: tuple[set[int], set[int]]) -> None:
        self.side_to_move = side_to_move
        self.men = men
        self.kings = kings


def parse_fen(text: str) -> Placement:
    """Read a PDN FEN such as ``W:W31-50:B1-20`` or ``B:BK17,K24:W6,9,10``."""

    def fail(why: str) -> PositionError:
        return PositionError(f"bad draughts position {text!r}: {why}")

    body = text.strip()
    if body.endswith("."):
        body = body[:-1]
    fields = [f.strip() for f in body.split(":")]
    if len(fields) < 1 or fields[0].upper() not in ("W", "B"):
        raise fail("it must start with the side to move, 'W' or 'B', then ':'")
    side_to_move = 0 if fields[0].upper() == "W" else 1
    men: tuple[set[int], set[int]] = (set(), set())
    kings: tuple[set[int], set[int]] = (set(), set())
    seen_fields: set[int] = set()
    where: dict[int, str] = {}
    for field in fields[1:]:
        if not field or field[0].upper() not in ("W", "B"):
            raise fail(f"field {field!r} must start with 'W' or 'B' (the colour of its pieces)")
        side = 0 if field[0].upper() == "W" else 1
        if side in seen_fields:
            raise fail(f"the {'white' if side == 0 else 'black'} pieces are listed twice")
        seen_fields.add(side)
        items = field[1:].strip()
        if not items:
            continue
        for raw in items.split(","):
            item = raw.strip()
            m = _ITEM.match(item.upper())
            if not m:
                raise fail(f"{item!r} is not a square, a king 'K<square>' or a range 'a-b'")
            king = bool(m.group(1))
            first = int(m.group(2))
            last = int(m.group(4)) if m.group(4) else first
            if m.group(3) and not king:
                raise fail(f"range {item!r} mixes men and kings")
            if not (1 <= first <= 50 and 1 <= last <= 50):
                raise fail(f"square in {item!r} is outside 1-50")
            if last < first:
                raise fail(f"range {item!r} runs backwards")
            for sq in range(first, last + 1):
                if sq in where:
                    raise fail(f"square {sq} is given twice ({where[sq]} and {item!r})")
                where[sq] = repr(item)
                (kings if king else men)[side].add(sq)
    return Placement(side_to_move, men, kings)


def _side_list(men: set[int], kings: set[int]) -> str:
    parts: list[str] = []
    squares = sorted(men | kings)
    i = 0
    while i < len(squares):
        sq = squares[i]
        if sq in kings:
            parts.append(f"K{sq}")
            i += 1
            continue
        j = i
        while j + 1 < len(squares) and squares[j + 1] == squares[j] + 1 \
                and squares[j + 1] not in kings:
            j += 1
        if j - i >= 2:
            parts.append(f"{sq}-{squares[j]}")
            i = j + 1
        else:
            parts.append(str(sq))
            i += 1
    return ",".join(parts)


def format_fen(placement: Placement) -> str:
    """The canonical text of a placement."""
    side = "W" if placement.side_to_move == 0 else "B"
    white = _side_list(placement.men[0], placement.kings[0])
    black = _side_list(placement.men[1], placement.kings[1])
    return f"{side}:W{white}:B{black}"
