"""Tic-tac-toe as an arena game: the throwaway sixth game that docs/adding-a-game.md builds.

It lives outside the project's packages on purpose: tests/test_game_plugin.py registers it at
run time (``register_game``) and, for bot processes, as an installed plug-in (an
``arena.games`` entry point), then puts it through everything a real game goes through.

Squares ``a1``..``c3`` (files a-c, ranks 1-3, rank 1 at the bottom); ``x`` (p1) moves first.
A move is the square a mark goes on: ``b2``. Position text: ranks 3 down to 1 separated by
``/``, each three of ``x``, ``o`` or ``.``, then a space and the side to move::

    .../.../... x        the start
    x.o/.x./..o x        x to move
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar, Self

from referee.games.base import (
    BoardView,
    CellView,
    Game,
    IllegalMove,
    MoveSyntaxError,
    Outcome,
    PositionError,
)

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
"""The eight rows, columns and diagonals, as square indices (a1 = 0, b1 = 1, ..., c3 = 8)."""
MARKS = "xo"
NAMES = tuple(f"{file}{rank}" for rank in "123" for file in "abc")


class TicTacToe(Game[int]):
    """Three in a row wins; a full board without one is a draw."""

    NAME: ClassVar[str] = "tictactoe"
    DESCRIPTION: ClassVar[str] = "Tic-tac-toe, 3x3: three in a row"
    SIDE_LABELS: ClassVar[tuple[str, str]] = ("x", "o")
    START_POSITION: ClassVar[str] = ".../.../... x"

    def __init__(self, board: list[int], side: int) -> None:
        self._board = board  # -1 empty, 0 x, 1 o
        self._start_history(side)

    @classmethod
    def from_position(cls, text: str, **options: Any) -> Self:
        if options:
            raise PositionError(f"tictactoe takes no options, got {sorted(options)}")
        fields = text.split()
        if len(fields) != 2 or fields[1] not in MARKS:
            raise PositionError(f"tictactoe position {text!r}: expected '<ranks 3..1> <x|o>'")
        ranks = fields[0].split("/")
        if len(ranks) != 3 or any(len(r) != 3 or set(r) - set("xo.") for r in ranks):
            raise PositionError(
                f"tictactoe position {text!r}: three ranks of three 'x', 'o' or '.' expected"
            )
        board = [-1 if ch == "." else MARKS.index(ch) for rank in reversed(ranks) for ch in rank]
        xs, os_ = board.count(0), board.count(1)
        side = MARKS.index(fields[1])
        if xs - os_ not in (0, 1):
            raise PositionError(
                f"tictactoe position {text!r}: {xs} x and {os_} o, but x moves first, so it has "
                "as many marks as o or one more"
            )
        if xs - os_ != side:
            raise PositionError(
                f"tictactoe position {text!r}: {xs} x and {os_} o, so "
                f"{MARKS[0] if xs == os_ else MARKS[1]} is to move"
            )
        return cls(board, side)

    def copy(self) -> Self:
        twin = type(self)(list(self._board), self._side)
        self._copy_history(twin)
        return twin

    def position(self) -> str:
        cells = ["." if v < 0 else MARKS[v] for v in self._board]
        ranks = ["".join(cells[r * 3:r * 3 + 3]) for r in (2, 1, 0)]
        return "/".join(ranks) + " " + MARKS[self._side]

    def diagram(self) -> str:
        rows = self.position().split()[0].split("/")
        lines = [f"{3 - i} {' '.join(row)}" for i, row in enumerate(rows)]
        return "\n".join([*lines, "  a b c", f"{MARKS[self._side]} to move"])

    def board_view(self) -> BoardView:
        cells = [CellView(sq % 3, sq // 3, MARKS[v] if v >= 0 else "", v if v >= 0 else None)
                 for sq, v in enumerate(self._board)]
        return BoardView("square", 3, 3, cells, caption=f"{MARKS[self._side]} to move")

    def repetition_key(self) -> Hashable:
        return (tuple(self._board), self._side)

    def _winner(self) -> int | None:
        for a, b, c in LINES:
            if self._board[a] >= 0 and self._board[a] == self._board[b] == self._board[c]:
                return self._board[a]
        return None

    def moves(self) -> list[int]:
        if self._winner() is not None:
            return []
        return [sq for sq, v in enumerate(self._board) if v < 0]

    def push(self, move: int) -> None:
        self._board[move] = self._side
        self._side ^= 1
        self._record(move)

    def pop(self) -> int:
        move = self._unrecord()
        self._board[move] = -1
        self._side ^= 1
        return move

    def format_move(self, move: int) -> str:
        return NAMES[move]

    def parse_move(self, text: str) -> int:
        if text not in NAMES:
            raise MoveSyntaxError(f"bad tictactoe move {text!r}: expected a square a1..c3")
        move = NAMES.index(text)
        if move not in self.moves():
            why = "the game is over" if self._winner() is not None else f"{text} is taken"
            raise IllegalMove(text, self.position(), why)
        return move

    def outcome(self) -> Outcome | None:
        winner = self._winner()
        if winner is not None:
            return Outcome(winner, "line", f"{MARKS[winner]} has three in a row")
        if -1 not in self._board:
            return Outcome(None, "full", "the board is full")
        return None
