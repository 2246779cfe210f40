"""Square boards: square names, the board field of a position text, one-step tables.

What the square-board games (jungle, dobutsu, donkan) would otherwise each write for
themselves: pure helpers over a :class:`Grid` of ``files`` x ``ranks``, no I/O, no state
beyond the board's size. Squares are numbered ``rank * files + file`` from p1's side
(``a1`` = 0, files a.. left to right, ranks 1..9 upwards), the numbering every one of those
games uses in its move generator. None of this runs in a move generator: the games build
their step tables with it once, at import, and name squares and read and write positions with
it, so perft costs what it did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from referee.games.base import BoardView, CellView, PositionError

FILE_LETTERS: Final = "abcdefghi"
"""File names; a rank is one digit, 1..9 (every square board here has at most nine)."""


def side_case(letter: str, piece: int) -> str:
    """A piece's letter as a position text writes it: as given (upper case) for p1's
    (``piece > 0``), lower case for p2's."""
    return letter if piece > 0 else letter.lower()


class Grid:
    """A board of ``files`` x ``ranks`` squares (at most 9 x 9)."""

    __slots__ = ("files", "letters", "ranks", "squares")

    def __init__(self, files: int, ranks: int) -> None:
        if not (0 < files <= len(FILE_LETTERS) and 0 < ranks <= 9):
            raise ValueError(f"a grid has 1 to 9 files and ranks, not {files} x {ranks}")
        self.files = files
        self.ranks = ranks
        self.squares = files * ranks
        self.letters = FILE_LETTERS[:files]

    def square_name(self, sq: int) -> str:
        """``a1`` for square 0."""
        return self.letters[sq % self.files] + str(sq // self.files + 1)

    def square_index(self, name: str) -> int:
        """The square of a name such as ``b3`` (a file letter outside the board: ValueError)."""
        return (int(name[1]) - 1) * self.files + self.letters.index(name[0])

    def steps(self, sq: int, steps: Iterable[tuple[int, int]]) -> tuple[int, ...]:
        """The squares one step ``(dx, dy)`` away from ``sq`` that are on the board, in the
        order of ``steps`` (for the games' tables, built at import)."""
        x, y = sq % self.files, sq // self.files
        return tuple((y + dy) * self.files + x + dx for dx, dy in steps
                     if 0 <= x + dx < self.files and 0 <= y + dy < self.ranks)

    def board_text(self, board: Sequence[int], piece_text: Callable[[int], str]) -> str:
        """The board field of a position text: ranks from the last down to 1 separated by
        ``/``, each from file a, a run of empty squares (0) written as its length."""
        files = self.files
        ranks = []
        for rank in range(self.ranks - 1, -1, -1):
            row, empty = "", 0
            for file in range(files):
                piece = board[rank * files + file]
                if piece == 0:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += piece_text(piece)
            if empty:
                row += str(empty)
            ranks.append(row)
        return "/".join(ranks)

    def read_board(self, text: str, whole: str, game: str,
                   piece_of: Callable[[str, int], int],
                   tokens: Callable[[str, int], Iterable[str]] | None = None,
                   unique: bool = False) -> list[int]:
        """The board of a board field written as :meth:`board_text` writes it.

        ``tokens(row, rank)`` splits a rank's text into digits and piece tokens (by default
        its characters; dobutsu's ``+C`` is one token); ``piece_of(token, rank)`` gives a
        token's piece (not 0) or raises :class:`PositionError`; with ``unique`` a piece may
        stand on one square only. Errors name ``game`` and quote ``whole``, the whole
        position text, and are raised in the order the text is read."""
        files = self.files
        rows = text.split("/")
        if len(rows) != self.ranks:
            raise PositionError(f"{game} position {whole!r}: expected {self.ranks} ranks, "
                                f"got {len(rows)}")
        board = [0] * self.squares
        seen: set[int] = set()
        for i, row in enumerate(rows):
            rank = self.ranks - 1 - i
            file = 0
            for token in (iter(row) if tokens is None else tokens(row, rank)):
                if token.isdigit():
                    file += int(token)
                    continue
                piece = piece_of(token, rank)
                if file >= files:
                    raise PositionError(f"{game} position {whole!r}: rank {rank + 1} is too long")
                if unique:
                    if piece in seen:
                        raise PositionError(f"{game} position {whole!r}: two {token!r} pieces")
                    seen.add(piece)
                board[rank * files + file] = piece
                file += 1
            if file != files:
                raise PositionError(f"{game} position {whole!r}: rank {rank + 1} has {file} "
                                    f"squares, not {files}")
        return board

    def view(self, cell: Callable[[int], tuple[str, int | None, str, str]], *,
             hands: list[list[str]] | None = None, caption: str = "") -> BoardView:
        """The picture of a position (:meth:`Game.board_view`): ``cell(sq)`` gives each
        square's piece label, owner (None: empty or neutral), terrain and extra."""
        files = self.files
        cells = []
        for sq in range(self.squares):
            piece, side, terrain, extra = cell(sq)
            cells.append(CellView(sq % files, sq // files, piece, side, terrain, extra))
        return BoardView("square", files, self.ranks, cells, hands or [], caption)
