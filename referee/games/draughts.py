"""International draughts 10x10 (FMJD rules, docs/rules.md, section Draughts): ``draughts``.

Owns the public face of the rules: squares 1-50, PDN notation, PDN FEN, push/pop with history,
the end of the game (no legal move loses) and the FMJD draw rules as default adjudication.
Move generation and perft run on bitboards in ``_draughts_bits``; position text lives in
``_draughts_fen``.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any, NamedTuple, Self

from referee.games import _draughts_bits as bits
from referee.games._draughts_fen import Placement, format_fen, parse_fen
from referee.games.base import (
    BoardView,
    CellView,
    Game,
    IllegalMove,
    MoveSyntaxError,
    Outcome,
    PositionError,
)

_MOVE_TEXT = re.compile(r"^\d{1,2}(?:-\d{1,2}|(?:x\d{1,2})+)$")

_CELL_NAMES: list[str] = [
    "" if (sq := bits._square_at(9 - y, x)) is None else str(sq)
    for y in range(10) for x in range(10)
]
"""The square numbers of :meth:`Draughts.board_view`'s cells (in its order: rows from p1's
side, columns from its left): what the board pictures write on the dark squares."""

KINGS_ONLY_PLIES = 50
"""FMJD: 25 successive moves by each side with only kings moved and no capture = draw."""
ENDGAME_PLIES = {16: 32, 5: 10}
"""FMJD endgame counts: group -> plies (16 or 5 moves by each side) before the draw. A count
starts when the group's material appears and restarts after every capture."""


class DraughtsMove(NamedTuple):
    """A move as the start square, every landing square (``path``), and the captured squares.

    Two capture sequences with the same start, end and captured set are one move; ``path`` is
    then one representative (the first the generator found), used only for the long notation.
    """

    path: tuple[int, ...]
    captured: tuple[int, ...] = ()

    @property
    def start(self) -> int:
        return self.path[0]

    @property
    def end(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)


def _squares(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(bits.MASK_TO_SQ[low])
    return tuple(sorted(out))


def _endgame_group(white: int, black: int, kings: int) -> int:
    """16 for 3 pieces (with a king) against a lone king, 5 for 1-2 pieces (with a king)
    against a lone king, 0 otherwise (FMJD article on drawn endgames)."""
    for strong, weak in ((white, black), (black, white)):
        if weak.bit_count() == 1 and weak & kings and strong & kings:
            n = strong.bit_count()
            if n == 3:
                return 16
            if n <= 2:
                return 5
    return 0


class _Undo(NamedTuple):
    white: int
    black: int
    kings: int
    kings_only: int
    group: int
    group_plies: int


class Draughts(Game[DraughtsMove]):
    """International draughts on the 10x10 board; white (p1) moves first."""

    NAME = "draughts"
    DESCRIPTION = "International draughts 10x10 (FMJD): flying kings, majority capture"
    SIDE_LABELS = ("white", "black")
    START_POSITION = "W:W31-50:B1-20"
    REPETITION_COUNT = 3
    """FMJD: the same position with the same side to move for the third time. FMJD counts
    since the last man move or capture; counting since the start is the same, because men
    never move back and captured pieces never return, so no earlier position can recur."""

    def __init__(self, white: int, black: int, kings: int, side: int) -> None:
        self._white = white
        self._black = black
        self._kings = kings
        self._undo: list[_Undo] = []
        self._start_history(side)
        self._kings_only = 0
        """Successive plies with only kings moved and no capture."""
        self._group = _endgame_group(white, black, kings)
        self._group_plies = 0
        self._cache_key: tuple[int, int, int, int] | None = None
        self._cache_moves: list[DraughtsMove] = []

    # ----- construction -------------------------------------------------------------------
    @classmethod
    def from_position(cls, text: str, **options: Any) -> Self:
        if options:
            raise PositionError(f"draughts takes no options, got {sorted(options)}")
        p = parse_fen(text)
        masks = [0, 0]
        kings = 0
        for side in (0, 1):
            for sq in p.men[side] | p.kings[side]:
                masks[side] |= bits.SQ_TO_MASK[sq]
            for sq in p.kings[side]:
                kings |= bits.SQ_TO_MASK[sq]
        return cls(masks[0], masks[1], kings, p.side_to_move)

    def copy(self) -> Self:
        other = type(self)(self._white, self._black, self._kings, self._side)
        self._copy_history(other)
        other._undo = list(self._undo)
        other._kings_only = self._kings_only
        other._group = self._group
        other._group_plies = self._group_plies
        return other

    # ----- state --------------------------------------------------------------------------
    def _placement(self) -> Placement:
        men: tuple[set[int], set[int]] = (set(), set())
        kings: tuple[set[int], set[int]] = (set(), set())
        for side, mask in ((0, self._white), (1, self._black)):
            men[side].update(_squares(mask & ~self._kings))
            kings[side].update(_squares(mask & self._kings))
        return Placement(self._side, men, kings)

    def position(self) -> str:
        return format_fen(self._placement())

    def piece_at(self, square: int) -> tuple[int, str] | None:
        """``(side, "m" or "K")`` on a square 1-50, or None when it is empty."""
        mask = bits.SQ_TO_MASK[square]
        kind = "K" if mask & self._kings else "m"
        if mask & self._white:
            return 0, kind
        if mask & self._black:
            return 1, kind
        return None

    def diagram(self) -> str:
        letters = {(0, "m"): "w", (0, "K"): "W", (1, "m"): "b", (1, "K"): "B"}
        lines = []
        for row in range(10):
            cells = []
            for col in range(10):
                sq = bits._square_at(row, col)
                if sq is None:
                    cells.append("  ")
                else:
                    piece = self.piece_at(sq)
                    cells.append(" " + (letters[piece] if piece else "."))
            first = row * 5 + 1
            lines.append("".join(cells) + f"   {first:2d}-{first + 4:2d}")
        lines.append(f"{self.SIDE_LABELS[self._side]} to move")
        return "\n".join(lines)

    def board_view(self) -> BoardView:
        cells = []
        for y in range(10):
            row = 9 - y
            for x in range(10):
                sq = bits._square_at(row, x)
                if sq is None:
                    cells.append(CellView(x, y))
                    continue
                piece = self.piece_at(sq)
                if piece is None:
                    cells.append(CellView(x, y, terrain="dark"))
                else:
                    cells.append(CellView(x, y, piece[1], piece[0], terrain="dark"))
        return BoardView("square", 10, 10, cells, caption=f"{self.SIDE_LABELS[self._side]} to move",
                         names=_CELL_NAMES)

    def repetition_key(self) -> Hashable:
        return (self._white, self._black, self._kings, self._side)

    # ----- moves --------------------------------------------------------------------------
    def _own_opp(self) -> tuple[int, int]:
        return (self._white, self._black) if self._side == 0 else (self._black, self._white)

    def moves(self) -> list[DraughtsMove]:
        key = (self._white, self._black, self._kings, self._side)
        if key != self._cache_key:
            own, opp = self._own_opp()
            sq = bits.MASK_TO_SQ
            found = [
                DraughtsMove(tuple(sq[m] for m in path), _squares(cap))
                for _, _, cap, path in bits.legal_moves(own, opp, self._kings, self._side == 0)
            ]
            found.sort()
            self._cache_key = key
            self._cache_moves = found
        return list(self._cache_moves)

    def push(self, move: DraughtsMove) -> None:
        self._undo.append(_Undo(self._white, self._black, self._kings, self._kings_only,
                                self._group, self._group_plies))
        src = bits.SQ_TO_MASK[move.path[0]]
        dst = bits.SQ_TO_MASK[move.path[-1]]
        cap = 0
        for sq in move.captured:
            cap |= bits.SQ_TO_MASK[sq]
        was_king = bool(src & self._kings)
        own, opp = self._own_opp()
        own, opp, self._kings = bits.apply(own, opp, self._kings, self._side == 0,
                                           (src, dst, cap, ()))
        if self._side == 0:
            self._white, self._black = own, opp
        else:
            self._black, self._white = own, opp
        self._side ^= 1
        self._record(move)
        if cap or not was_king:
            self._kings_only = 0
        else:
            self._kings_only += 1
        group = _endgame_group(self._white, self._black, self._kings)
        if cap or group != self._group:
            # A capture makes a new material balance even inside the same group (two kings v
            # king becoming king v king): the 16- and 5-move counts start again from zero.
            self._group, self._group_plies = group, 0
        elif group:
            self._group_plies += 1

    def pop(self) -> DraughtsMove:
        if not self._history:
            raise IndexError("pop from a draughts game with no moves played")
        u = self._undo.pop()
        self._white, self._black, self._kings = u.white, u.black, u.kings
        self._kings_only, self._group, self._group_plies = u.kings_only, u.group, u.group_plies
        self._side ^= 1
        return self._unrecord()

    def _ambiguous(self, move: DraughtsMove, legal: list[DraughtsMove]) -> bool:
        return any(
            m.start == move.start and m.end == move.end and m != move for m in legal
        )

    def format_move(self, move: DraughtsMove) -> str:
        if not move.captured:
            return f"{move.start}-{move.end}"
        if self._ambiguous(move, self.moves()):
            return "x".join(map(str, move.path))
        return f"{move.start}x{move.end}"

    def legal_moves(self) -> list[str]:
        legal = self.moves()
        out = []
        for move in legal:
            if not move.captured:
                out.append(f"{move.start}-{move.end}")
            elif self._ambiguous(move, legal):
                out.append("x".join(map(str, move.path)))
            else:
                out.append(f"{move.start}x{move.end}")
        return out

    def parse_move(self, text: str) -> DraughtsMove:
        token = text.strip()
        if not _MOVE_TEXT.match(token):
            raise MoveSyntaxError(
                f"bad draughts move {text!r}: expected PDN like '32-28', '28x19' or "
                "'47x38x24x13x36'"
            )
        capture = "x" in token
        squares = [int(s) for s in re.split(r"[-x]", token)]
        for sq in squares:
            if not 1 <= sq <= 50:
                raise MoveSyntaxError(f"bad draughts move {text!r}: square {sq} is outside 1-50")
        legal = self.moves()
        start, end = squares[0], squares[-1]

        def illegal(why: str) -> IllegalMove:
            return IllegalMove(token, self.position(), why)

        piece = self.piece_at(start)
        if piece is None or piece[0] != self._side:
            raise illegal(f"no {self.SIDE_LABELS[self._side]} piece on square {start}")
        same_ends = [m for m in legal if m.start == start and m.end == end
                     and m.is_capture == capture]
        if not capture:
            if same_ends:
                return same_ends[0]
            if legal and legal[0].is_capture:
                raise illegal("capture is compulsory (the legal moves are "
                              f"{', '.join(self.legal_moves())})")
            raise illegal(f"the piece on {start} cannot move to {end}")
        if not same_ends:
            if legal and not legal[0].is_capture:
                raise illegal("there is no capture in this position")
            raise illegal(f"no legal capture from {start} to {end} (the majority rule allows "
                          f"only {', '.join(self.legal_moves())})")
        if len(squares) == 2:
            if len(same_ends) > 1:
                options = ", ".join("x".join(map(str, m.path)) for m in same_ends)
                raise illegal(f"ambiguous: name every landing square, one of {options}")
            return same_ends[0]
        captured = self._path_captures(squares)
        if captured is None:
            raise illegal("the landing squares do not form a capture sequence")
        for m in same_ends:
            if m.captured == captured:
                return m
        raise illegal("that capture sequence does not take the most pieces (majority rule)")

    def _path_captures(self, squares: list[int]) -> tuple[int, ...] | None:
        """The squares a capture along these landing squares takes, or None if the path is
        not a capture sequence for the piece on the first square (Turkish strike included)."""
        own, opp = self._own_opp()
        start = bits.SQ_TO_MASK[squares[0]]
        is_king = bool(start & self._kings)
        empty = (bits.BOARD & ~(own | opp)) | start
        captured = 0
        for a, b in zip(squares, squares[1:], strict=False):
            ma, mb = bits.SQ_TO_MASK[a], bits.SQ_TO_MASK[b]
            ray = next((r for r in bits.RAYS[ma] if mb in r), None)
            if ray is None or not mb & empty:
                return None
            between = ray[: ray.index(mb)]
            if not is_king and len(between) != 1:
                return None
            victims = [m for m in between if not m & empty]
            if len(victims) != 1 or not victims[0] & opp & ~captured:
                return None
            captured |= victims[0]
        return _squares(captured)

    # ----- ends ---------------------------------------------------------------------------
    def outcome_given(self, moves: list[DraughtsMove]) -> Outcome | None:
        return None if moves else self.outcome()

    def outcome(self) -> Outcome | None:
        if self.moves():
            return None
        loser = self.SIDE_LABELS[self._side]
        own, _ = self._own_opp()
        why = "has no pieces left" if not own else "has no legal move"
        return Outcome(1 - self._side, "no-moves", f"{loser} {why}")

    def adjudication(self) -> Outcome | None:
        repetition = self.repetition_draw()
        if repetition is not None:
            return repetition
        if self._kings_only >= KINGS_ONLY_PLIES:
            return Outcome(None, "25-move-rule", "25 moves each with only kings moved and no "
                           "capture")
        if self._group and self._group_plies >= ENDGAME_PLIES[self._group]:
            what = ("3 pieces against a lone king" if self._group == 16
                    else "2 pieces or fewer against a lone king")
            return Outcome(None, f"{self._group}-move-rule",
                           f"{self._group} moves each with {what}")
        return None

    # ----- counting -----------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        own, opp = self._own_opp()
        return bits.perft(own, opp, self._kings, self._side == 0, depth)
