"""Opening books: the one place an openings file is read, whatever its format, and its
openings checked with the real rules before any bot starts.

Formats (``[openings] format``, else from the file's suffix, as cutechess-cli's
``-openings file=... format=epd|pgn``):

* ``lines`` (any other suffix, e.g. ``openings.txt``): our own ``fen ...``/``moves ...`` lines
  (:mod:`arena.openings.linebook`);
* ``epd`` (``.epd``, ``.fen``): one position text per line (:mod:`arena.openings.epd`);
* ``pgn`` (``.pgn``) and ``pdn`` (``.pdn``, draughts only): game files
  (:mod:`arena.openings.pgnbook`), each game an opening: its ``FEN`` tag (else the start) and
  its moves, the first ``plies`` of them when ``plies`` is set.

An opening's position is read and its moves played by the game's rules here: a position the
game cannot read, a move that is not its notation or not legal, a book game of another game
(its ``Variant`` or PDN ``GameType`` tag) or an opening that ends the game is an error naming
the file, the line and the move. ``order`` then decides the sequence the schedule uses them in
(:func:`ordered`).

Reading and checking are two steps (:class:`Book`): the whole file is read and parsed at once
(a line no reader understands is an error whichever opening it holds), and an opening's moves
are played the first time it is asked for. A tournament's schedule asks for the openings its
games draw, in the order they play them, all before the first game; so a 2-game run of a
400-opening book replays one opening, not 400 (:func:`read_book` still checks them all).
"""

from __future__ import annotations

import codecs
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from arena.errors import UserError
from arena.openings import BookEntry, BookFormat, BookOrder, Opening
from arena.rundir.results import MAX_PGN_LINE_BYTES, pgn_lines
from arena.rundir.textlines import Bounds, LastLine, LineReader
from referee.games import Game, GameError, get_game

SUFFIX_FORMATS: Final[dict[str, BookFormat]] = {
    ".epd": "epd", ".fen": "epd", ".pgn": "pgn", ".pdn": "pdn"}
"""The format a book's suffix implies; any other suffix is our ``lines`` format."""

PDN_GAMES: Final = frozenset({"draughts"})
"""The games PDN, the draughts notation, can hold."""

PDN_GAME_TYPE: Final = "20"
"""PDN ``GameType`` of international draughts (its first field: ``20`` or ``20,W,10,10,...``)."""

MAX_BOOK_LINE_BYTES: Final = MAX_PGN_LINE_BYTES
"""Longest line of a book: a position text or one opening's moves are far shorter."""

_TEXT_BOUNDS: Final = Bounds(MAX_BOOK_LINE_BYTES, "openings file", "a text file of openings")
_PGN_BOUNDS: Final = Bounds(MAX_BOOK_LINE_BYTES, "PGN/PDN file", "a PGN or PDN book")


def book_format(path: str | Path, declared: BookFormat | None = None) -> BookFormat:
    """The format of the book at ``path``: ``declared`` if given, else its suffix's."""
    if declared is not None:
        return declared
    return SUFFIX_FORMATS.get(Path(path).suffix.lower(), "lines")


def format_problem(fmt: BookFormat, game: str, plies: int | None) -> str | None:
    """Why a book of format ``fmt`` cannot serve ``game`` (with ``plies``), or None."""
    if fmt == "pdn" and game not in PDN_GAMES:
        return (f"PDN is the draughts notation: a {game} book is a .pgn file (or .epd for "
                "positions)")
    if fmt == "epd" and plies is not None:
        return "an EPD book holds positions, not moves: plies has nothing to cut"
    return None


class Book:
    """A book's openings as its file holds them, each played through the rules the first time
    it is asked for (then kept): whoever draws an opening gets it checked, and an opening
    nobody draws costs no replay."""

    def __init__(self, path: Path, rules: type[Game], options: dict[str, str],
                 entries: list[BookEntry], plies: int | None) -> None:
        self.path = path
        self.rules = rules
        self.options = options
        self.entries = entries
        self.plies = plies
        self._checked: dict[int, Opening] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def opening(self, index: int) -> Opening:
        """The ``index``-th opening (0-based, file order), its moves played by the rules the
        first time; a bad one raises :class:`UserError` naming the file, line, ply and move."""
        if (known := self._checked.get(index)) is not None:
            return known
        opening = _checked(self.entries[index], self.rules, self.options, self.path,
                           self.path.name, self.plies)
        self._checked[index] = opening
        return opening

    def openings(self) -> list[Opening]:
        """Every opening, in file order, each checked."""
        return [self.opening(index) for index in range(len(self))]


def open_book(path: Path, game: str, options: dict[str, str], *,
              fmt: BookFormat | None = None, plies: int | None = None) -> Book:
    """The book at ``path`` for ``game`` (``options``: its game options), read and parsed
    whole, its openings not yet played (:meth:`Book.opening` does that). A file that cannot be
    read, a line of no opening, or a book without openings is an error here."""
    fmt = book_format(path, fmt)
    if (problem := format_problem(fmt, game, plies)) is not None:
        raise UserError(f"{path}: {problem}")
    rules = get_game(game)
    try:
        entries = list(_entries(path, fmt, rules, options, plies))
    except OSError as exc:
        raise UserError(f"cannot read openings file {path}: {exc.strerror or exc}") from None
    if not entries:
        raise UserError(f"{path}: no openings in the file ({_WHAT[fmt]})")
    return Book(path, rules, options, entries, plies)


def read_book(path: Path, game: str, options: dict[str, str], *,
              fmt: BookFormat | None = None, plies: int | None = None) -> list[Opening]:
    """Every opening of the book at ``path``, in file order, checked with ``game``'s rules
    (``options``: its game options). Each opening's ``source`` is ``NAME:LINE``."""
    return open_book(path, game, options, fmt=fmt, plies=plies).openings()


_WHAT: Final[dict[str, str]] = {
    "lines": "lines 'fen <position>' or 'moves m1 m2 ...'",
    "epd": "one position text per line",
    "pgn": "PGN games: tag pairs, then moves",
    "pdn": "PDN games: tag pairs, then moves",
}


def _entries(path: Path, fmt: BookFormat, rules: type[Game], options: dict[str, str],
             plies: int | None) -> Iterator[BookEntry]:
    from arena.openings.epd import read_epd
    from arena.openings.linebook import read_lines
    from arena.openings.pgnbook import read_pgn

    shown = str(path)
    if fmt in ("pgn", "pdn"):
        return read_pgn(pgn_lines(path, _PGN_BOUNDS), shown, keep=plies)
    text = _text_lines(path)
    if fmt == "epd":
        def reads(position: str) -> str | None:
            try:
                rules.from_position(position, **options)
            except GameError as exc:
                return f"not a {rules.NAME} position: {exc}"
            return None

        return read_epd(text, shown, reads)
    return read_lines(text, shown)


def _text_lines(path: Path) -> Iterable[str]:
    """Every line of a text book as text (blank ones too, so the n-th is line n); a UTF-8
    byte order mark, as some Windows editors write, is skipped."""
    for line in LineReader(path, LastLine.TEXT, bounds=_TEXT_BOUNDS, blank=True):
        data = line.data.removeprefix(codecs.BOM_UTF8) if line.number == 1 else line.data
        try:
            yield data.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            raise UserError(f"{path}:{line.number}: not UTF-8 text") from None


def _checked(entry: BookEntry, rules: type[Game], options: dict[str, str], path: Path,
             name: str, plies: int | None) -> Opening:
    """``entry`` as an opening, after the rules have read its position and played its moves."""
    where = f"{path}:{entry.line}"
    _check_tags(entry, rules.NAME, where)
    position_text = entry.tags.get("FEN", entry.position).strip()
    try:
        position = rules.new(position_text or None, (), **options)
    except GameError as exc:
        raise UserError(f"{where}: not a {rules.NAME} position: {exc}") from None
    if position.is_over():
        raise UserError(f"{where}: the position already ends the game ({_ended(position)}); "
                        "choose an unfinished position")
    moves = entry.moves if plies is None else entry.moves[:plies]
    for ply, move in enumerate(moves, start=1):
        at = f"{path}:{move.line}: move {move.text!r} (ply {ply} of the opening at line " \
             f"{entry.line})"
        try:
            position.play(move.text)
        except GameError as exc:
            raise UserError(f"{at}: {exc}") from None
        if position.is_over():
            hint = "" if ply == 1 else f"; set [openings] plies = {ply - 1} (or fewer) to " \
                "stop before it"
            raise UserError(f"{at} ends the game ({_ended(position)}); a book opening must "
                            f"leave it unfinished{hint}")
    return Opening(start_position=position_text, moves=tuple(m.text for m in moves),
                   source=f"{name}:{entry.line}")


def _ended(position: Game) -> str:  # type: ignore[type-arg]
    """How a finished position ended, for an error: ``p1 wins (lion-captured)``."""
    outcome = position.outcome()
    if outcome is None:
        return "game over"
    who = "draw" if outcome.winner is None else f"p{outcome.winner + 1} wins"
    return f"{who}: {outcome.reason}"


def _check_tags(entry: BookEntry, game: str, where: str) -> None:
    """A book game that says it is of another game (``Variant``, PDN ``GameType``) is refused
    before its moves are tried."""
    variant = entry.tags.get("Variant", "").strip()
    if variant and variant.lower() != game:
        raise UserError(f"{where}: this book game is {variant!r} (its Variant tag); the "
                        f"tournament plays {game}")
    game_type = entry.tags.get("GameType", "").strip()
    if game_type:
        kind = game_type.split(",", 1)[0].strip()
        if game not in PDN_GAMES or kind != PDN_GAME_TYPE:
            raise UserError(f"{where}: GameType {game_type!r} is not international draughts "
                            f"(PDN GameType {PDN_GAME_TYPE}); the tournament plays {game}")


def ordered(count: int, order: BookOrder | None, seed: int) -> list[int]:
    """The indices of a book's ``count`` openings in the order they are used: file order
    (``sequential``, the default), or shuffled by the tournament's ``seed`` (``random``:
    deterministic, so a resumed run and its fingerprint see the same schedule). Every opening
    is used once before any is used again."""
    indices = list(range(count))
    if order == "random":
        random.Random(f"{seed}:openings").shuffle(indices)
    return indices
