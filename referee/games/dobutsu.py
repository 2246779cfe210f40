"""Dobutsu shogi (3x4 animal shogi): rules, Fairy-Stockfish FEN and UCI move notation.

docs/rules.md, section Dobutsu, is the authority; the notation is Fairy-Stockfish's
(``dobutsu`` variant) so that FSF can play against our bots unchanged.

Sides: ``SIDE_LABELS = ("white", "black")``, the names FSF's FEN uses (``w``/``b``); white is
p1 (sente), starts on ranks 1-2 and moves first.

Squares are ``a1``..``c4`` (files a-c, ranks 1-4, white's side is rank 1).

Position text (FSF FEN)::

    gle/1c1/1C1/ELG[] w - - 0 1
    ranks 4..1 / hands / side / castling / en passant / halfmove clock / fullmove number

* Pieces: ``L`` lion, ``G`` giraffe, ``E`` elephant, ``C`` chick, ``+C`` hen (promoted chick);
  uppercase white, lowercase black. ``H``/``h`` is also read as a hen.
* Hands in brackets, white's pieces then black's (``[GCEgce]``); ``[]`` or ``[-]`` for none.
* Accepted tails: ``w``, ``w 0 1`` (the rules' spelling of the start), ``w - - 4 3`` (what FSF
  writes). The written form is always ``<board>[<hands>] <w|b> - - <halfmove> <fullmove>``,
  which FSF reads back. The halfmove clock counts plies since the last capture, drop or
  promotion (as the Fairy-Stockfish of pyffish 0.0.90 counts it); neither counter affects the
  rules or repetition.
* A captured lion goes to the captor's hand, as FSF writes it (``[Lc]``): such a position is
  finished (``lion-captured``). The hand order is FSF's: L, G, C, E.

Moves (FSF UCI): ``b2b3``; a chick entering the far rank promotes, mandatorily, written
``b3b4+``; drops ``C@b2`` with an UPPERCASE letter for either side (FSF's convention: it
ignores lowercase drops). We also read ``c@b2`` as the same drop. ``b3b4`` where only ``b3b4+``
is legal is refused with a message saying that promotion is mandatory.

Ends, evaluated after every move (and for a position read from text):

* ``lion-captured``: the side that captured the enemy lion wins;
* ``try``: a lion on its far rank (white rank 4, black rank 1) on a square no enemy piece
  attacks wins, whoever just moved; ``both-try``: both lions qualify at once = draw;
* ``no-moves``: the side to move has no legal move and loses (docs/rules.md, common rules);
* ``repetition`` (adjudication, not the rules): the same board, hands and side to move for the
  third time since the position the game was built from is a draw. FSF uses a fourth time.

There is no check: a lion may move into attack and simply be captured.

Checked against Fairy-Stockfish as packaged in pyffish 0.0.90: same legal move lists, same FEN
(counters included) and same ends on every node of perft(4) from the start, perft(3) from
``g1e/1cL/lC1/E1G[] w - - 4 3`` and along 1000 random games. Debian's ``fairy-stockfish`` 11.1
is older and differs: it keeps its lion out of attack (a check rule: perft 4, 13, 69, ...), and
allows a chick to enter the far rank unpromoted (``b3b4`` beside ``b3b4+``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self, cast

from referee.games.base import IllegalMove, MoveSyntaxError, NoMovesLoses, Outcome, PositionError
from referee.games.grid import Grid, side_case

if TYPE_CHECKING:
    from referee.games.base import BoardView

FILES = 3
RANKS = 4
GRID = Grid(FILES, RANKS)
SQUARES = GRID.squares

# Piece types; a piece on the board is +type for white, -type for black, 0 for empty.
CHICK, ELEPHANT, GIRAFFE, LION, HEN = 1, 2, 3, 4, 5
HAND_TYPES = (LION, GIRAFFE, CHICK, ELEPHANT)
"""Pieces that can be in hand, in the order FSF writes them. A lion in hand is a captured lion:
the game is over (FSF writes it so, and so do we); it is never dropped."""
LETTERS = {CHICK: "C", ELEPHANT: "E", GIRAFFE: "G", LION: "L", HEN: "+C"}
NAMES = {CHICK: "chick", ELEPHANT: "elephant", GIRAFFE: "giraffe", LION: "lion", HEN: "hen"}
WHITE, BLACK = 0, 1

# Move encoding (ints: cheap to hash and compare in perft):
#   board move: from | to << 4 | PROMOTE (if promoting);  drop: DROP | type << 4 | to.
DROP = 1 << 12
PROMOTE = 1 << 8

_STEPS: dict[int, tuple[tuple[int, int], ...]] = {
    CHICK: ((0, 1),),
    ELEPHANT: ((1, 1), (1, -1), (-1, 1), (-1, -1)),
    GIRAFFE: ((0, 1), (0, -1), (1, 0), (-1, 0)),
    LION: ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)),
    HEN: ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1)),
}


def _targets(color: int, ptype: int, sq: int) -> tuple[int, ...]:
    """Squares a piece of ``color`` and ``ptype`` on ``sq`` reaches in one step."""
    sign = 1 if color == WHITE else -1
    return GRID.steps(sq, [(dx, dy * sign) for dx, dy in _STEPS[ptype]])


# TARGETS[color][ptype][sq]
TARGETS: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(_targets(c, t, s) for s in range(SQUARES)) if t in _STEPS else ()
        for t in range(HEN + 1)
    )
    for c in (WHITE, BLACK)
)
FAR_RANK = (range(9, 12), range(0, 3))
"""Squares of each side's far rank (promotion zone and try zone)."""


def _attackers(color: int, sq: int) -> tuple[tuple[int, frozenset[int]], ...]:
    """The squares from which a piece of ``color`` reaches ``sq`` in one step, each with the
    pieces that do (as signed board values: negative for black)."""
    sign = 1 if color == WHITE else -1
    found = []
    for frm in range(SQUARES):
        pieces = frozenset(t * sign for t in _STEPS if sq in TARGETS[color][t][frm])
        if pieces:
            found.append((frm, pieces))
    return tuple(found)


# ATTACKERS[color][sq]: at most the eight neighbours, each with the pieces that attack from it
ATTACKERS = tuple(tuple(_attackers(c, s) for s in range(SQUARES)) for c in (WHITE, BLACK))

_rng = random.Random(20091001)  # fixed seed: hashes are reproducible across runs
_Z_PIECE = [[_rng.getrandbits(64) for _ in range(11)] for _ in range(SQUARES)]  # index piece+5
_Z_HAND = [[[_rng.getrandbits(64) for _ in range(3)] for _ in range(HEN)] for _ in range(2)]
_Z_BLACK = _rng.getrandbits(64)

_MOVE_RE = re.compile(r"^([a-c][1-4])([a-c][1-4])(\+?)$")
_DROP_RE = re.compile(r"^([CEGceg])@([a-c][1-4])$")


_MOVE_TEXT: dict[int, str] = {}
"""Move -> its text, filled by :meth:`Dobutsu.format_move` (a few hundred moves at most)."""


square_name = GRID.square_name
square_index = GRID.square_index


def _zkey(board: Sequence[int], hands: Sequence[Sequence[int]], side: int) -> int:
    key = _Z_BLACK if side == BLACK else 0
    for sq, piece in enumerate(board):
        if piece:
            key ^= _Z_PIECE[sq][piece + 5]
    for color in (WHITE, BLACK):
        for ptype in HAND_TYPES:
            for n in range(hands[color][ptype]):
                key ^= _Z_HAND[color][ptype][n]
    return key


class Dobutsu(NoMovesLoses[int]):
    """A Dobutsu position with its history (moves, undo records, outcomes, repetition hashes)."""

    NAME: ClassVar[str] = "dobutsu"
    DESCRIPTION: ClassVar[str] = "Dobutsu shogi, 3x4 animal shogi with drops and the try rule"
    SIDE_LABELS: ClassVar[tuple[str, str]] = ("white", "black")
    START_POSITION: ClassVar[str] = "gle/1c1/1C1/ELG[] w - - 0 1"
    REPETITION_COUNT: ClassVar[int] = 3

    def __init__(
        self,
        board: list[int],
        hands: list[list[int]],
        side: int,
        halfmove: int = 0,
        fullmove: int = 1,
    ) -> None:
        self._board = board
        self._hands = hands  # hands[color][ptype] for ptype in CHICK, ELEPHANT, GIRAFFE
        self._halfmove = halfmove
        self._fullmove = fullmove
        self._undo: list[tuple[int, int, Outcome | None]] = []  # captured, halfmove, outcome
        self._key = _zkey(board, hands, side)
        self._start_history(side, self._key)
        self._outcome = self._evaluate(captured=0)

    # ----- construction -------------------------------------------------------------------
    @classmethod
    def from_position(cls, text: str, **options: Any) -> Self:
        text = cls._optionless_text(text, options)
        fields = text.split()
        if not fields:
            raise PositionError("empty dobutsu position text")
        placement = fields[0]
        match = re.fullmatch(r"([^\[\]]*)(?:\[([^\[\]]*)\])?", placement)
        if match is None:
            raise PositionError(
                f"dobutsu position {text!r}: cannot read board and hand {placement!r}"
            )
        board = _parse_board(match.group(1), text)
        hands = _parse_hands(match.group(2) or "", text)
        if len(fields) < 2 or fields[1] not in ("w", "b"):
            raise PositionError(f"dobutsu position {text!r}: side to move must be 'w' or 'b'")
        side = WHITE if fields[1] == "w" else BLACK
        rest = [f for f in fields[2:] if f != "-"]
        if len(rest) not in (0, 2) or not all(f.isdigit() for f in rest):
            raise PositionError(
                f"dobutsu position {text!r}: after the side expected '- -' and/or two counters "
                f"(halfmove fullmove), got {' '.join(fields[2:])!r}"
            )
        halfmove, fullmove = (int(rest[0]), int(rest[1])) if rest else (0, 1)
        if fullmove < 1:
            raise PositionError(f"dobutsu position {text!r}: fullmove number must be >= 1")
        _check_material(board, hands, side, text)
        return cls(board, hands, side, halfmove, fullmove)

    def copy(self) -> Self:
        other = type(self).__new__(type(self))
        other._board = self._board[:]
        other._hands = [h[:] for h in self._hands]
        other._halfmove = self._halfmove
        other._fullmove = self._fullmove
        self._copy_kept(other)
        return other

    # ----- state --------------------------------------------------------------------------
    def piece_at(self, square: str) -> str:
        """The FEN letter on ``square`` (``"+C"`` for a white hen), ``""`` when empty."""
        return _piece_text(self._board[square_index(square)])

    def hand(self, side: int) -> dict[str, int]:
        """Pieces in ``side``'s hand as ``{"C": 1, ...}`` (only non-zero counts)."""
        return {LETTERS[t]: self._hands[side][t] for t in HAND_TYPES if self._hands[side][t]}

    def position(self) -> str:
        board = GRID.board_text(self._board, _piece_text)
        side = "w" if self._side == WHITE else "b"
        return f"{board}[{self._hand_text()}] {side} - - {self._halfmove} {self._fullmove}"

    def _hand_text(self) -> str:
        text = ""
        for color in (WHITE, BLACK):
            for ptype in HAND_TYPES:
                letter = LETTERS[ptype]
                text += (letter if color == WHITE else letter.lower()) * self._hands[color][ptype]
        return text

    def diagram(self) -> str:
        lines = [f"  black hand: [{self._hand_text_of(BLACK)}]", "   +----+----+----+"]
        for rank in range(RANKS - 1, -1, -1):
            cells = []
            for file in range(FILES):
                piece = self._board[rank * FILES + file]
                cells.append(f"{_piece_text(piece):>3} " if piece else "  . ")
            lines.append(f" {rank + 1} |" + "|".join(cells) + "|")
            lines.append("   +----+----+----+")
        lines.append("     a    b    c")
        lines.append(f"  white hand: [{self._hand_text_of(WHITE)}]")
        lines.append(f"  {self.SIDE_LABELS[self._side]} to move")
        return "\n".join(lines)

    def _hand_text_of(self, color: int) -> str:
        letters = "".join(LETTERS[t] * self._hands[color][t] for t in HAND_TYPES)
        return letters if color == WHITE else letters.lower()

    def board_view(self) -> BoardView:
        def cell(sq: int) -> tuple[str, int | None, str, str]:
            piece = self._board[sq]
            if not piece:
                return "", None, "", ""
            return NAMES[abs(piece)], WHITE if piece > 0 else BLACK, "", ""

        hands = [
            [NAMES[t] for t in HAND_TYPES for _ in range(self._hands[color][t])]
            for color in (WHITE, BLACK)
        ]
        caption = f"{self.SIDE_LABELS[self._side]} to move"
        return GRID.view(cell, hands=hands, caption=caption)

    def repetition_key(self) -> Hashable:
        return (
            tuple(self._board),
            tuple(tuple(self._hands[c][t] for t in HAND_TYPES) for c in (WHITE, BLACK)),
            self._side,
        )

    # ----- moves --------------------------------------------------------------------------
    def moves(self) -> list[int]:
        if self._outcome is not None:
            return []
        board = self._board
        side = self._side
        sign = 1 if side == WHITE else -1
        targets = TARGETS[side]
        far = FAR_RANK[side]
        out: list[int] = []
        empties: list[int] = []
        for sq, value in enumerate(board):
            if not value:
                empties.append(sq)
                continue
            piece = value * sign
            if piece < 0:
                continue
            for to in targets[piece][sq]:
                if board[to] * sign > 0:
                    continue
                if piece == CHICK and to in far:
                    out.append(sq | to << 4 | PROMOTE)
                else:
                    out.append(sq | to << 4)
        hand = self._hands[side]
        for ptype in (CHICK, ELEPHANT, GIRAFFE):
            if hand[ptype]:
                base = DROP | ptype << 4
                out.extend(base | sq for sq in empties)
        return out

    def push(self, move: int) -> None:
        board = self._board
        side = self._side
        key = self._key ^ _Z_BLACK
        captured = 0
        if move & DROP:
            ptype = move >> 4 & 0xF
            to = move & 0xF
            piece = ptype if side == WHITE else -ptype
            count = self._hands[side][ptype] - 1
            self._hands[side][ptype] = count
            key ^= _Z_HAND[side][ptype][count] ^ _Z_PIECE[to][piece + 5]
            board[to] = piece
            halfmove = 0
        else:
            frm = move & 0xF
            to = move >> 4 & 0xF
            piece = board[frm]
            captured = board[to]
            key ^= _Z_PIECE[frm][piece + 5]
            if captured:
                key ^= _Z_PIECE[to][captured + 5]
                ctype = abs(captured)
                if ctype == HEN:
                    ctype = CHICK
                count = self._hands[side][ctype]
                self._hands[side][ctype] = count + 1
                key ^= _Z_HAND[side][ctype][count]
                halfmove = 0
            else:
                halfmove = self._halfmove + 1
            if move & PROMOTE:
                piece = HEN if piece > 0 else -HEN
                halfmove = 0
            board[frm] = 0
            board[to] = piece
            key ^= _Z_PIECE[to][piece + 5]
        self._undo.append((captured, self._halfmove, self._outcome))
        self._halfmove = halfmove
        if side == BLACK:
            self._fullmove += 1
        self._side = 1 - side
        self._key = key
        self._record(move, key)
        self._outcome = self._evaluate(captured)

    def pop(self) -> int:
        move = self._unrecord()
        captured, halfmove, outcome = self._undo.pop()
        self._key = cast(int, self._keys[-1])  # the incremental hash pushed by _record
        self._outcome = outcome
        self._halfmove = halfmove
        side = 1 - self._side
        self._side = side
        if side == BLACK:
            self._fullmove -= 1
        board = self._board
        if move & DROP:
            to = move & 0xF
            board[to] = 0
            self._hands[side][move >> 4 & 0xF] += 1
            return move
        frm = move & 0xF
        to = move >> 4 & 0xF
        piece = board[to]
        if move & PROMOTE:
            piece = CHICK if piece > 0 else -CHICK
        board[frm] = piece
        board[to] = captured
        if captured:
            ctype = abs(captured)
            if ctype == HEN:
                ctype = CHICK
            self._hands[side][ctype] -= 1
        return move

    def format_move(self, move: int) -> str:
        text = _MOVE_TEXT.get(move)
        if text is None:  # a move's text depends on the move alone: made once per process
            if move & DROP:
                text = f"{LETTERS[move >> 4 & 0xF]}@{square_name(move & 0xF)}"
            else:
                text = square_name(move & 0xF) + square_name(move >> 4 & 0xF)
                text = text + "+" if move & PROMOTE else text
            _MOVE_TEXT[move] = text
        return text

    def format_moves(self, moves: Sequence[int]) -> list[str]:
        """The whole list from the table at once; a move not made before falls back to
        :meth:`format_move` (which fills the table)."""
        try:
            return [_MOVE_TEXT[move] for move in moves]
        except KeyError:
            return [self.format_move(move) for move in moves]

    def parse_move(self, text: str) -> int:
        drop = _DROP_RE.match(text)
        if drop:
            ptype = "CEG".index(drop.group(1).upper()) + 1
            move = DROP | ptype << 4 | square_index(drop.group(2))
        else:
            plain = _MOVE_RE.match(text)
            if plain is None:
                raise MoveSyntaxError(
                    f"dobutsu move {text!r} is not notation: expected e.g. 'b2b3', 'b3b4+' or "
                    f"'C@b2'"
                )
            frm = square_index(plain.group(1))
            to = square_index(plain.group(2))
            move = frm | to << 4 | (PROMOTE if plain.group(3) else 0)
        legal = self.moves()
        if move in legal:
            return move
        raise IllegalMove(text, self.position(), self._why_illegal(move, legal))

    def _why_illegal(self, move: int, legal: list[int]) -> str:
        if self._outcome is not None:
            return f"the game is over ({self._outcome.reason})"
        side_name = self.SIDE_LABELS[self._side]
        if move & DROP:
            ptype = move >> 4 & 0xF
            if not self._hands[self._side][ptype]:
                return f"{side_name} has no {NAMES[ptype]} in hand"
            return f"{square_name(move & 0xF)} is not empty"
        if move ^ PROMOTE in legal:
            if move & PROMOTE:
                return "only a chick entering the far rank promotes"
            return "promotion is mandatory: write the move with a trailing '+'"
        frm = move & 0xF
        piece = self._board[frm]
        if piece == 0 or (piece > 0) != (self._side == WHITE):
            return f"no {side_name} piece on {square_name(frm)}"
        return f"the {NAMES[abs(piece)]} on {square_name(frm)} cannot go there"

    # ----- ends ---------------------------------------------------------------------------
    def _attacked_by(self, sq: int, color: int) -> bool:
        """Whether any piece of ``color`` could move to ``sq`` (captures included): a look at
        the few squares an attacker can stand on (:data:`ATTACKERS`), not at the whole board
        (the referee asks it of every position, see :meth:`wins_at_once`)."""
        board = self._board
        for frm, pieces in ATTACKERS[color][sq]:  # noqa: SIM110 - a loop: any() of a
            if board[frm] in pieces:  # generator costs a third more, every position
                return True
        return False

    def _evaluate(self, captured: int) -> Outcome | None:
        """The rules' end after the last move (``captured`` = what it took), or None."""
        board = self._board
        lions = [-1, -1]
        for color, lion in ((WHITE, LION), (BLACK, -LION)):
            try:
                lions[color] = board.index(lion)
            except ValueError:
                winner = 1 - color
                return Outcome(winner, "lion-captured",
                               f"{self.SIDE_LABELS[winner]} captured the lion")
        tries = [
            color
            for color in (WHITE, BLACK)
            if lions[color] in FAR_RANK[color] and not self._attacked_by(lions[color], 1 - color)
        ]
        if len(tries) == 2:
            return Outcome(None, "both-try", "both lions stand safely on their far ranks")
        if tries:
            winner = tries[0]
            return Outcome(
                winner, "try",
                f"{self.SIDE_LABELS[winner]}'s lion reached {square_name(lions[winner])} "
                f"and no enemy piece attacks it",
            )
        return None

    def wins_at_once(self) -> bool:
        """Exact, mostly without playing the moves: the enemy lion can be captured, or our lion
        can step onto the far rank where no enemy piece attacks it. No piece slides, so a move
        never opens or blocks an attack; the rare rest (our lion already on the far rank under
        attack, the enemy lion walled in by its own pieces) tries the moves."""
        if self._outcome is not None:
            return False
        board = self._board
        mover = self._side
        enemy = 1 - mover
        sign = 1 if mover == WHITE else -1
        enemy_lion = board.index(-LION * sign)
        if self._attacked_by(enemy_lion, mover):
            return True
        own_lion = board.index(LION * sign)
        if own_lion in FAR_RANK[mover]:  # capturing its attacker would win: try them all
            return super().wins_at_once()
        for to in TARGETS[mover][LION][own_lion]:
            # The enemy lion is not on its far rank unattacked (that game would be over), and
            # not attacked (see above), so this is a plain win, never a both-try draw.
            if to in FAR_RANK[mover] and board[to] * sign <= 0 \
                    and not self._attacked_by(to, enemy):
                return True
        # Left without a move? Never while the enemy lion can step to a square its own side
        # does not hold: no move of ours adds an enemy piece, and ours on it are captures.
        for to in TARGETS[enemy][LION][enemy_lion]:
            if board[to] * sign >= 0:
                return False
        return super().wins_at_once()


def _piece_text(piece: int) -> str:
    return side_case(LETTERS[abs(piece)], piece)


def _parse_board(text: str, whole: str) -> list[int]:
    def tokens(row: str, rank: int) -> Iterator[str]:
        """Digits and pieces, a hen's ``+`` with the letter after it."""
        promoted = False
        for ch in row:
            if ch == "+":
                promoted = True
                continue
            if ch.isdigit() and promoted:
                raise PositionError(f"dobutsu position {whole!r}: '+' before a digit")
            yield "+" + ch if promoted else ch
            promoted = False
        if promoted:
            raise PositionError(f"dobutsu position {whole!r}: dangling '+' on rank {rank + 1}")

    def piece_of(token: str, rank: int) -> int:
        ch = token[-1]
        ptype = {"C": CHICK, "E": ELEPHANT, "G": GIRAFFE, "L": LION, "H": HEN}.get(ch.upper())
        if ptype is None:
            raise PositionError(
                f"dobutsu position {whole!r}: unknown piece {ch!r} on rank {rank + 1}"
            )
        if token[0] == "+":
            if ptype != CHICK:
                raise PositionError(f"dobutsu position {whole!r}: only a chick promotes "
                                    f"(got '+{ch}')")
            ptype = HEN
        return ptype if ch.isupper() else -ptype

    return GRID.read_board(text, whole, "dobutsu", piece_of, tokens)


def _parse_hands(text: str, whole: str) -> list[list[int]]:
    hands = [[0] * (HEN + 1) for _ in range(2)]
    if text in ("", "-"):
        return hands
    for ch in text:
        ptype = {"C": CHICK, "E": ELEPHANT, "G": GIRAFFE, "L": LION}.get(ch.upper())
        if ptype is None:
            raise PositionError(
                f"dobutsu position {whole!r}: {ch!r} cannot be in hand (only C, E, G, L)"
            )
        hands[WHITE if ch.isupper() else BLACK][ptype] += 1
    return hands


def _check_material(board: list[int], hands: list[list[int]], side: int, whole: str) -> None:
    """At most two of each animal in the game and one lion per side; a missing lion must be
    the side to move's (it was just captured)."""
    counts = {CHICK: 0, ELEPHANT: 0, GIRAFFE: 0}
    lions = [0, 0]  # on the board
    for piece in board:
        ptype = abs(piece)
        if ptype == LION:
            lions[WHITE if piece > 0 else BLACK] += 1
        elif ptype:
            counts[CHICK if ptype == HEN else ptype] += 1
    for color in (WHITE, BLACK):
        for ptype in counts:
            counts[ptype] += hands[color][ptype]
    for ptype, n in counts.items():
        if n > 2:
            raise PositionError(f"dobutsu position {whole!r}: {n} {NAMES[ptype]}s, at most 2")
    for color in (WHITE, BLACK):
        if lions[color] + hands[1 - color][LION] > 1:
            raise PositionError(
                f"dobutsu position {whole!r}: {('white', 'black')[color]} has more than one lion"
            )
    if hands[side][LION]:
        raise PositionError(
            f"dobutsu position {whole!r}: the side to move holds a captured lion; it is the "
            f"other side's lion that can be missing"
        )
    if lions[1 - side] == 0:
        raise PositionError(
            f"dobutsu position {whole!r}: the side that just moved has no lion"
        )
