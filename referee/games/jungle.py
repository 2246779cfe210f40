"""Dou Shou Qi (jungle, 7x9): rules, our FEN-like position text and ``a3a4`` move notation.

docs/rules.md, section Jungle, is the authority (strengths: rat 1, cat 2, dog 3, wolf 4,
leopard 5, tiger 6, lion 7, elephant 8).

Sides: ``SIDE_LABELS = ("south", "north")``; south is p1, owns den d1 and moves first.
Squares ``a1``..``g9``: files a-g, ranks 1-9 from south's side.

Position text (our design, FEN-like)::

    l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L s

* nine ranks separated by ``/``, rank 9 (north's back rank) first, each rank from file a to g;
* a piece is a letter, UPPERCASE for south and lowercase for north: ``R`` rat, ``C`` cat,
  ``D`` dog, ``W`` wolf, ``P`` leopard (panther), ``T`` tiger, ``L`` lion, ``E`` elephant;
* a digit 1-7 is a run of empty squares (water, traps and dens are fixed, never written);
* then one space and the side to move: ``s`` (south) or ``n`` (north).

``startpos`` is accepted for the start. A position must be one that play could reach in
shape: at most one animal of each kind per side, only rats in water, nobody in its own den,
the side to move not already in the enemy den and the other side not without animals (a piece
of the other side in its enemy den, or a side to move without animals, is fine: the game is
then over).

Ends (``Outcome.reason``): ``den`` (an animal entered the enemy den), ``no-pieces`` (the side to
move has no animal left), ``no-moves`` (the side to move has animals but no legal move): the
side to move loses the last two. ``repetition`` is the referee's adjudication: the same board
and side to move for the third time since the position the game was built from is a draw.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self, cast

from referee.games.base import IllegalMove, MoveSyntaxError, NoMovesLoses, Outcome, PositionError
from referee.games.grid import Grid, side_case

if TYPE_CHECKING:
    from referee.games.base import BoardView

FILES = 7
RANKS = 9
GRID = Grid(FILES, RANKS)
SQUARES = GRID.squares
SOUTH, NORTH = 0, 1

RAT, CAT, DOG, WOLF, LEOPARD, TIGER, LION, ELEPHANT = range(1, 9)
"""Piece types are their strengths. On the board: +strength for south, -strength for north."""
LETTERS = "?RCDWPTLE"
NAMES = ("", "rat", "cat", "dog", "wolf", "leopard", "tiger", "lion", "elephant")


square_name = GRID.square_name
square_index = GRID.square_index


WATER: tuple[bool, ...] = tuple(
    (sq % FILES in (1, 2, 4, 5)) and (3 <= sq // FILES <= 5) for sq in range(SQUARES)
)
DEN = (square_index("d1"), square_index("d9"))
"""DEN[side] is that side's own den."""
TRAP_OWNER: tuple[int, ...] = tuple(
    SOUTH if square_name(sq) in ("c1", "e1", "d2")
    else NORTH if square_name(sq) in ("c9", "e9", "d8")
    else -1
    for sq in range(SQUARES)
)
"""The side whose traps these are (its enemies are weakened there), -1 for other squares."""


_ORTHOGONAL = ((0, 1), (0, -1), (1, 0), (-1, 0))


def _jumps(sq: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Lion/tiger jumps from ``sq``: (landing square, water squares crossed) per direction."""
    if WATER[sq]:
        return ()
    x, y = sq % FILES, sq // FILES
    out = []
    for dx, dy in _ORTHOGONAL:
        path: list[int] = []
        nx, ny = x + dx, y + dy
        while 0 <= nx < FILES and 0 <= ny < RANKS and WATER[ny * FILES + nx]:
            path.append(ny * FILES + nx)
            nx, ny = nx + dx, ny + dy
        if path and 0 <= nx < FILES and 0 <= ny < RANKS:
            out.append((ny * FILES + nx, tuple(path)))
    return tuple(out)


NEIGHBOURS = tuple(GRID.steps(sq, _ORTHOGONAL) for sq in range(SQUARES))
JUMPS = tuple(_jumps(sq) for sq in range(SQUARES))

_rng = random.Random(19850101)  # fixed seed: hashes are reproducible across runs
_Z_PIECE = [[_rng.getrandbits(64) for _ in range(17)] for _ in range(SQUARES)]  # piece + 8
_Z_NORTH = _rng.getrandbits(64)
_MOVE_RE = re.compile(r"^([a-g][1-9])([a-g][1-9])$")


def can_capture(frm: int, to: int, attacker: int, defender: int, side: int) -> bool:
    """Whether ``side``'s animal of strength ``attacker`` on ``frm`` may take the enemy of
    strength ``defender`` on ``to`` (the move itself being otherwise allowed)."""
    if WATER[to]:
        # Only a rat goes there and only a rat is there: rat takes rat, from the water only.
        return WATER[frm]
    if WATER[frm]:
        return False  # a rat leaving the water never captures
    if TRAP_OWNER[frm] == 1 - side:
        return False  # on an enemy trap: strength 0, captures nothing
    if TRAP_OWNER[to] == side:
        return True  # the defender stands on our trap: strength 0
    if attacker == RAT and defender == ELEPHANT:
        return True
    if attacker == ELEPHANT and defender == RAT:
        return False
    return attacker >= defender


class Jungle(NoMovesLoses[int]):
    """A jungle position with its history (moves, undo records, outcomes, repetition hashes)."""

    NAME: ClassVar[str] = "jungle"
    DESCRIPTION: ClassVar[str] = "Dou Shou Qi (jungle), 7x9: reach the enemy den"
    SIDE_LABELS: ClassVar[tuple[str, str]] = ("south", "north")
    START_POSITION: ClassVar[str] = "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L s"
    REPETITION_COUNT: ClassVar[int] = 3

    def __init__(self, board: list[int], side: int) -> None:
        self._board = board
        self._counts = [sum(1 for p in board if p > 0), sum(1 for p in board if p < 0)]
        self._undo: list[tuple[int, Outcome | None]] = []  # captured, outcome before
        self._key = _zkey(board, side)
        self._start_history(side, self._key)
        self._outcome = self._evaluate()

    # ----- construction -------------------------------------------------------------------
    @classmethod
    def from_position(cls, text: str, **options: Any) -> Self:
        text = cls._optionless_text(text, options)
        fields = text.split()
        if len(fields) != 2:
            raise PositionError(
                f"jungle position {text!r}: expected '<ranks 9..1> <s|n>', got {len(fields)} fields"
            )
        if fields[1] not in ("s", "n"):
            raise PositionError(f"jungle position {text!r}: side to move must be 's' or 'n'")
        side = SOUTH if fields[1] == "s" else NORTH
        board = _parse_board(fields[0], text)
        for sq, piece in enumerate(board):
            if not piece:
                continue
            owner = SOUTH if piece > 0 else NORTH
            where = f"{NAMES[abs(piece)]} of {cls.SIDE_LABELS[owner]} on {square_name(sq)}"
            if WATER[sq] and abs(piece) != RAT:
                raise PositionError(f"jungle position {text!r}: {where} is in the water")
            if sq == DEN[owner]:
                raise PositionError(f"jungle position {text!r}: {where} is in its own den")
            if sq == DEN[1 - owner] and owner == side:
                raise PositionError(
                    f"jungle position {text!r}: {where} is in the enemy den but it is "
                    f"{cls.SIDE_LABELS[side]}'s turn"
                )
        if not any(piece > 0 if side == NORTH else piece < 0 for piece in board):
            raise PositionError(
                f"jungle position {text!r}: {cls.SIDE_LABELS[1 - side]} has no animals but "
                f"has just moved"
            )
        return cls(board, side)

    def copy(self) -> Self:
        other = type(self).__new__(type(self))
        other._board = self._board[:]
        other._counts = self._counts[:]
        self._copy_kept(other)
        return other

    # ----- state --------------------------------------------------------------------------
    def piece_at(self, square: str) -> str:
        """The position-text letter on ``square``, ``""`` when empty."""
        piece = self._board[square_index(square)]
        return _letter(piece) if piece else ""

    def position(self) -> str:
        return GRID.board_text(self._board, _letter) + (" s" if self._side == SOUTH else " n")

    def diagram(self) -> str:
        lines = ["    a b c d e f g"]
        for rank in range(RANKS - 1, -1, -1):
            cells = []
            for file in range(FILES):
                sq = rank * FILES + file
                piece = self._board[sq]
                if piece:
                    cells.append(_letter(piece))
                elif WATER[sq]:
                    cells.append("~")
                elif sq in DEN:
                    cells.append("*")
                elif TRAP_OWNER[sq] >= 0:
                    cells.append("#")
                else:
                    cells.append(".")
            lines.append(f" {rank + 1}  " + " ".join(cells))
        lines.append(f"    {self.SIDE_LABELS[self._side]} to move  (~ water, # trap, * den)")
        return "\n".join(lines)

    def board_view(self) -> BoardView:
        def cell(sq: int) -> tuple[str, int | None, str, str]:
            piece = self._board[sq]
            side = (SOUTH if piece > 0 else NORTH) if piece else None
            if WATER[sq]:
                return NAMES[abs(piece)], side, "water", ""
            if sq in DEN:
                return NAMES[abs(piece)], side, "den", self.SIDE_LABELS[DEN.index(sq)]
            if TRAP_OWNER[sq] >= 0:
                return NAMES[abs(piece)], side, "trap", self.SIDE_LABELS[TRAP_OWNER[sq]]
            return NAMES[abs(piece)], side, "", ""

        return GRID.view(cell, caption=f"{self.SIDE_LABELS[self._side]} to move")

    def repetition_key(self) -> Hashable:
        return (tuple(self._board), self._side)

    # ----- moves --------------------------------------------------------------------------
    def moves(self) -> list[int]:
        if self._outcome is not None:
            return []
        board = self._board
        side = self._side
        sign = 1 if side == SOUTH else -1
        own_den = DEN[side]
        out: list[int] = []
        for sq in range(SQUARES):
            strength = board[sq] * sign
            if strength <= 0:
                continue
            for to in NEIGHBOURS[sq]:
                if to == own_den or (WATER[to] and strength != RAT):
                    continue
                target = board[to] * sign
                if target == 0 or (target < 0 and can_capture(sq, to, strength, -target, side)):
                    out.append(sq | to << 6)
            if strength in (LION, TIGER):
                for to, path in JUMPS[sq]:
                    if any(board[w] for w in path):
                        continue  # a rat in the water blocks the jump
                    target = board[to] * sign
                    if target == 0 or (
                        target < 0 and can_capture(sq, to, strength, -target, side)
                    ):
                        out.append(sq | to << 6)
        return out

    def push(self, move: int) -> None:
        board = self._board
        frm = move & 63
        to = move >> 6
        piece = board[frm]
        captured = board[to]
        key = self._key ^ _Z_NORTH ^ _Z_PIECE[frm][piece + 8] ^ _Z_PIECE[to][piece + 8]
        if captured:
            key ^= _Z_PIECE[to][captured + 8]
            self._counts[1 - self._side] -= 1
        board[frm] = 0
        board[to] = piece
        self._undo.append((captured, self._outcome))
        self._side = 1 - self._side
        self._key = key
        self._record(move, key)
        self._outcome = self._evaluate()

    def pop(self) -> int:
        move = self._unrecord()
        captured, self._outcome = self._undo.pop()
        self._key = cast(int, self._keys[-1])  # the incremental hash pushed by _record
        self._side = 1 - self._side
        frm = move & 63
        to = move >> 6
        self._board[frm] = self._board[to]
        self._board[to] = captured
        if captured:
            self._counts[1 - self._side] += 1
        return move

    def format_move(self, move: int) -> str:
        return square_name(move & 63) + square_name(move >> 6)

    def parse_move(self, text: str) -> int:
        match = _MOVE_RE.match(text)
        if match is None:
            raise MoveSyntaxError(
                f"jungle move {text!r} is not notation: expected from and to squares, e.g. 'a3a4'"
            )
        move = square_index(match.group(1)) | square_index(match.group(2)) << 6
        if move in self.moves():
            return move
        raise IllegalMove(text, self.position(), self._why_illegal(move))

    def _why_illegal(self, move: int) -> str:
        if self._outcome is not None:
            return f"the game is over ({self._outcome.reason})"
        frm, to = move & 63, move >> 6
        side_name = self.SIDE_LABELS[self._side]
        piece = self._board[frm]
        if piece == 0 or (piece > 0) != (self._side == SOUTH):
            return f"no {side_name} animal on {square_name(frm)}"
        name = NAMES[abs(piece)]
        if to == DEN[self._side]:
            return "an animal may not enter its own den"
        if WATER[to] and abs(piece) != RAT:
            return "only rats enter the water"
        target = self._board[to]
        if target and (target > 0) == (piece > 0):
            return f"{square_name(to)} holds an animal of {side_name}"
        if target:
            return f"the {name} may not capture the {NAMES[abs(target)]} on {square_name(to)}"
        return f"the {name} on {square_name(frm)} cannot reach {square_name(to)}"

    # ----- ends ---------------------------------------------------------------------------
    def _evaluate(self) -> Outcome | None:
        """The end by the rules that needs no move generation: den entered, no animals."""
        mover = 1 - self._side
        den_piece = self._board[DEN[self._side]]
        if den_piece and (den_piece > 0) == (mover == SOUTH):
            return Outcome(
                mover, "den",
                f"{self.SIDE_LABELS[mover]} entered the {self.SIDE_LABELS[self._side]} den",
            )
        if self._counts[self._side] == 0:
            return Outcome(mover, "no-pieces",
                           f"{self.SIDE_LABELS[self._side]} has no animals left")
        return None


def _letter(piece: int) -> str:
    return side_case(LETTERS[abs(piece)], piece)


def _zkey(board: Sequence[int], side: int) -> int:
    key = _Z_NORTH if side == NORTH else 0
    for sq, piece in enumerate(board):
        if piece:
            key ^= _Z_PIECE[sq][piece + 8]
    return key


def _parse_board(text: str, whole: str) -> list[int]:
    def piece_of(ch: str, rank: int) -> int:
        strength = LETTERS.find(ch.upper())
        if strength < 1:
            raise PositionError(
                f"jungle position {whole!r}: unknown piece {ch!r} on rank {rank + 1} "
                f"(letters: R C D W P T L E, uppercase south)"
            )
        return strength if ch.isupper() else -strength

    return GRID.read_board(text, whole, "jungle", piece_of, unique=True)
