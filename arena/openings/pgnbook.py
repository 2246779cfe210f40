"""PGN and PDN books: the games of a PGN (or PDN, its draughts form) file as book entries.

The reader follows the PGN standard's import format (sections 7 and 8) and PDN 3.0, which
shares it: tag pairs ``[Name "value"]`` (``\\"`` and ``\\\\`` escaped), then movetext of move
number indications (``12.``, ``12...``, also glued to the move: ``1.32-28``), moves, comments
(``{...}`` over lines, ``;`` to the end of the line), recursive variations ``( ... )``
(skipped: a book takes the main line), numeric annotation glyphs (``$14``) and a result
(``1-0``, ``0-1``, ``1/2-1/2``, ``*``, and PDN's ``2-0``, ``0-2``, ``1-1``, ``0-0``). Lines
starting with ``%`` are escapes, skipped. A move's trailing ``!``/``?`` marks are dropped (no
notation of the five games uses them; dobutsu's promotion ``+`` is kept). A game whose
result is missing ends where the next game's tags begin, or at the end of the file.

Why our own tokenizer rather than a library: python-chess's PGN reader, the well-kept one,
reads every move as chess SAN on a chess board and every FEN tag as a chess FEN, so a jungle
or dvonn move never reaches a visitor as text; the PDN libraries are draughts-only. The
grammar is small and documented, and our moves are single tokens in each game's notation,
checked afterwards by the real rules (:mod:`arena.openings.book`).

Files are read a line at a time within the bounds ``arena ratings`` uses for PGN
(:func:`arena.rundir.results.pgn_lines`), and only the first ``keep`` moves of a game are
kept, so a large book of whole games costs memory for its openings only; once a game has
them, its lines of plain moves are only searched for a result, not tokenized.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

from arena.errors import UserError
from arena.openings import BookEntry, BookMove

RESULTS: Final = frozenset({"1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"})
"""Game termination markers: PGN's, and PDN's (2 points for a win, 1 each for a draw)."""

_TOKEN = re.compile(r"""
    \s+
  | (?P<tag>\[\s*(?P<name>[A-Za-z0-9_+#=:-]+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
  | (?P<comment>\{[^}]*(?P<closed>\})?)
  | (?P<rest>;.*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<word>[^\s{}();\[\]"$]+)
  | (?P<other>.)
""", re.VERBOSE)
_SYNTAX = re.compile(r'[{}();\[\]"$]')
"""Characters of anything but moves, numbers and results: comments, variations, tags, glyphs."""
_NUMBER = re.compile(r"(\d+)(\.*)(.*)")
_UNESCAPE = re.compile(r"\\(.)")


class _Game:
    """The game being read."""

    def __init__(self, line: int) -> None:
        self.line = line
        self.tags: dict[str, str] = {}
        self.moves: list[BookMove] = []
        self.movetext = False
        """Has movetext (a move, a number, a comment...) begun? A tag then starts a new game."""

    def entry(self) -> BookEntry:
        return BookEntry(line=self.line, tags=self.tags, moves=tuple(self.moves))


def read_pgn(lines: Iterable[str], name: str, keep: int | None = None) -> Iterator[BookEntry]:
    """The games of PGN/PDN text, the first ``keep`` moves of each (all when None); a fault of
    the text is a :class:`UserError` naming ``name:LINE``."""
    game: _Game | None = None
    depth = 0  # variations open
    variation_line = 0
    comment_line = 0  # where an open multi-line {comment} began, 0: none
    number = 0
    for number, text in enumerate(lines, start=1):
        at = 0
        if comment_line:
            close = text.find("}")
            if close < 0:
                continue
            comment_line, at = 0, close + 1
        elif text.startswith("%"):
            continue
        # The rest of a game whose opening is complete: only its result matters. A line of
        # plain words is skipped whole unless one is a result (then it is read as usual).
        if (game is not None and keep is not None and len(game.moves) >= keep and not depth
                and not at and not _SYNTAX.search(text) and RESULTS.isdisjoint(text.split())):
            continue
        for token in _TOKEN.finditer(text, at):
            kind = token.lastgroup
            if kind is None:  # whitespace
                continue
            if kind == "tag":
                if depth:
                    raise UserError(f"{name}:{number}: a tag pair inside a variation "
                                    f"(opened at line {variation_line}) that was never closed")
                if game is not None and game.movetext:
                    yield game.entry()
                    game = None
                if game is None:
                    game = _Game(number)
                game.tags[token["name"]] = _UNESCAPE.sub(r"\1", token["value"])
                continue
            if kind == "rest":
                break
            if kind == "other":
                shown = text[token.start():token.start() + 40].strip()
                what = "a tag pair that does not read as [Name \"value\"]" \
                    if shown.startswith("[") else f"unexpected {shown[:1]!r}"
                raise UserError(f"{name}:{number}: {what}: {shown!r}")
            if game is None:
                game = _Game(number)
            game.movetext = True
            if kind == "comment":
                if token["closed"] is None:
                    comment_line = number
                continue
            if kind == "open":
                depth += 1
                variation_line = variation_line if depth > 1 else number
                continue
            if kind == "close":
                if not depth:
                    raise UserError(f"{name}:{number}: ')' closes no variation")
                depth -= 1
                continue
            if kind == "nag" or depth:
                continue
            word = token["word"]
            if word in RESULTS:
                yield game.entry()
                game = None
                continue
            numbered = _NUMBER.fullmatch(word)
            if numbered and (numbered[2] or not numbered[3]):
                word = numbered[3]  # "12." or "12..." (or "12"), maybe glued to a move
                if not word:
                    continue
                if word in RESULTS:
                    yield game.entry()
                    game = None
                    continue
            word = word.rstrip("!?")
            if not word:
                continue
            if keep is None or len(game.moves) < keep:
                game.moves.append(BookMove(word, number))
    if comment_line:
        raise UserError(f"{name}:{comment_line}: a comment '{{' that is never closed")
    if depth:
        raise UserError(f"{name}:{variation_line}: a variation '(' that is never closed")
    if game is not None:
        yield game.entry()
