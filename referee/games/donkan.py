"""Donkan's rules (docs/rules.md, section Donkan): the 7x7 board, its castle, parties, round.

One :class:`Donkan` object is a whole round ("manche"): a partie ends when a king is taken
(+1 for the capturer) or a king enters the castle d4 (+2), then ``push`` resets the board and
the loser moves first. The round is over when a side reaches ``target`` points. The partie-level
draw rules (no score in 200 plies, or a threefold repetition inside the partie: no point, and
the side that did not start that partie starts the next) also live in ``push``, because they
are part of the round's flow; they are switched off with ``draw_rules=False``. The round's own
ply cap (2000) is the referee's adjudication (:meth:`Donkan.adjudication`, reason
``"ply-cap"``).

Position text (our own design, FEN-like), seven fields separated by single spaces::

    <board> <side> <score> <target> <starter> <partie-plies> <round-plies>

* ``board``: ranks 7 down to 1 separated by ``/``, files a..g, digits for runs of empty
  squares; ``K``/``S`` south's king and soldiers, ``k``/``s`` north's.
* ``side``: ``s`` or ``n``, the side to move.
* ``score``: south's and north's points, ``3-2``.
* ``target``: points that win the round (the ``target`` option overrides it).
* ``starter``: ``s`` or ``n``, who moved first in the current partie.
* ``partie-plies`` / ``round-plies``: plies played in this partie / in the whole round.

The start is ``1s1ks2/7/7/7/7/7/2SK1S1 s 0-0 10 s 0 0``. After the move that wins the round
the board is left as that move made it (a king missing, or a king on the castle).

Moves are ints ``from * 64 + to`` with squares ``(rank - 1) * 7 + file``; notation ``c1c4``.
Squares hold 0 (empty), 1 (south king), 2 (south soldier), 3 (north king), 4 (north soldier):
a piece's owner is ``(p - 1) >> 1`` and it is a king when ``p & 1``.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator
from typing import Any, ClassVar, Self

from referee.games.base import (
    P1,
    P2,
    BoardView,
    Game,
    GameError,
    IllegalMove,
    MoveSyntaxError,
    Outcome,
    PositionError,
)
from referee.games.grid import Grid
from referee.games.rounds import PartieRecord, RoundState

SIZE = 7
GRID = Grid(SIZE, SIZE)
SQUARES = GRID.squares
CASTLE = 3 * SIZE + 3
"""d4, the centre square."""
DEFAULT_TARGET = 10
PARTIE_PLY_CAP = 200
"""A partie with no score after this many plies restarts (draw rules on)."""
REPETITIONS = 3
"""A position seen this many times in one partie restarts it (draw rules on)."""
ROUND_PLY_CAP = 2000
"""A round undecided after this many plies is adjudicated on points (draw rules on)."""

EMPTY, S_KING, S_SOLDIER, N_KING, N_SOLDIER = range(5)
KING = (S_KING, N_KING)
SOLDIER = (S_SOLDIER, N_SOLDIER)
_LETTERS = ".KSks"
_SIDE_CHARS = ("s", "n")
_START_BOARD = "1s1ks2/7/7/7/7/7/2SK1S1"
_MOVE_RE = re.compile(r"[a-g][1-7][a-g][1-7]")

_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


def _ray(sq: int, dx: int, dy: int) -> tuple[int, ...]:
    x, y = sq % SIZE, sq // SIZE
    out = []
    x, y = x + dx, y + dy
    while 0 <= x < SIZE and 0 <= y < SIZE:
        out.append(y * SIZE + x)
        x, y = x + dx, y + dy
    return tuple(out)


NAMES: tuple[str, ...] = tuple(GRID.square_name(sq) for sq in range(SQUARES))
NAME_INDEX: dict[str, int] = {n: i for i, n in enumerate(NAMES)}
KING_STEPS: tuple[tuple[int, ...], ...] = tuple(
    tuple(r[0] for dx, dy in _DIRECTIONS if (r := _ray(sq, dx, dy))) for sq in range(SQUARES)
)


def _soldier_ray(sq: int, dx: int, dy: int) -> tuple[int, ...]:
    ray = _ray(sq, dx, dy)
    return ray[: ray.index(CASTLE)] if CASTLE in ray else ray


SOLDIER_RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(r for dx, dy in _DIRECTIONS if (r := _soldier_ray(sq, dx, dy))) for sq in range(SQUARES)
)
"""A soldier's rays, each stopped before the castle: it may neither stop on nor cross it."""
CASTLE_RAYS: tuple[tuple[int, ...], ...] = tuple(_ray(CASTLE, dx, dy) for dx, dy in _DIRECTIONS)
"""The eight lines out of the castle: the first piece on one, if an enemy soldier, guards it."""


def _guard(board: list[int], side: int) -> int | None:
    """The square of an enemy soldier guarding the castle against ``side``'s king, or None."""
    enemy = SOLDIER[1 - side]
    for ray in CASTLE_RAYS:
        for sq in ray:
            piece = board[sq]
            if piece:
                if piece == enemy:
                    return sq
                break
    return None


def _generate(board: list[int], side: int) -> list[int]:
    """Every legal move of ``side`` on a live partie board."""
    out: list[int] = []
    king, soldier = KING[side], SOLDIER[side]
    for sq in range(SQUARES):
        piece = board[sq]
        if piece == soldier:
            base = sq * 64
            for ray in SOLDIER_RAYS[sq]:
                for to in ray:
                    other = board[to]
                    if not other:
                        out.append(base + to)
                        continue
                    if (other - 1) >> 1 != side:
                        out.append(base + to)
                    break
        elif piece == king:
            base = sq * 64
            for to in KING_STEPS[sq]:
                other = board[to]
                if to == CASTLE:
                    if not other and _guard(board, side) is None:
                        out.append(base + to)
                elif not other or (other - 1) >> 1 != side:
                    out.append(base + to)
    return out


def _ends_partie(board: list[int], move: int) -> bool:
    """Whether ``move`` (not yet played) takes a king or brings a king into the castle."""
    origin, to = divmod(move, 64)
    return bool(board[to] & 1) or (to == CASTLE and bool(board[origin] & 1))


def _perft(board: list[int], side: int, depth: int) -> int:
    moves = _generate(board, side)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        origin, to = divmod(move, 64)
        piece, taken = board[origin], board[to]
        if taken & 1 or (to == CASTLE and piece & 1):
            continue  # a finished partie has no children
        board[to] = piece
        board[origin] = EMPTY
        total += _perft(board, side ^ 1, depth - 1)
        board[origin] = piece
        board[to] = taken
    return total


def _parse_board(text: str, board_text: str) -> list[int]:
    ranks = board_text.split("/")
    if len(ranks) != SIZE:
        raise PositionError(f"donkan position {text!r}: expected 7 ranks, got {len(ranks)}")
    board = [EMPTY] * SQUARES
    for n, rank_text in enumerate(ranks):
        rank = SIZE - 1 - n
        file = 0
        for ch in rank_text:
            if ch in "1234567":
                file += int(ch)
            elif ch in "KSks":
                if file < SIZE:
                    board[rank * SIZE + file] = _LETTERS.index(ch)
                file += 1
            else:
                raise PositionError(
                    f"donkan position {text!r}: rank {rank + 1} has unexpected {ch!r} "
                    "(pieces are K S k s, digits are empty squares)"
                )
        if file != SIZE:
            raise PositionError(
                f"donkan position {text!r}: rank {rank + 1} describes {file} squares, not 7"
            )
    return board


def _option_int(name: str, value: object) -> int:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        number = 0
    if isinstance(value, bool) or number < 1 or str(number) != str(value).strip():
        raise GameError(f"donkan option {name} must be a positive integer, got {value!r}")
    return number


def _option_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise GameError(f"donkan option {name} must be true or false, got {value!r}")


class Donkan(Game[int]):
    """A Donkan round: the current partie's board plus the score, with make/unmake history."""

    OPTIONS = ("target", "draw_rules")
    REPETITION_COUNT: ClassVar[int | None] = REPETITIONS
    """Counted inside the partie (the key holds the partie); ends the partie, not the round,
    so ``push`` applies it rather than :meth:`adjudication`."""

    NAME: ClassVar[str] = "donkan"
    DESCRIPTION: ClassVar[str] = "Donkan: 7x7, king and two soldiers each, race to the castle d4"
    SIDE_LABELS: ClassVar[tuple[str, str]] = ("south", "north")
    START_POSITION: ClassVar[str] = f"{_START_BOARD} s 0-0 {DEFAULT_TARGET} s 0 0"

    def __init__(
        self,
        board: list[int],
        side: int,
        score: list[int],
        target: int,
        starter: int,
        partie_plies: int,
        round_plies: int,
        draw_rules: bool,
    ) -> None:
        self._board = board
        self._score = score
        self._target = target
        self._starter = starter
        self._partie_plies = partie_plies
        self._round_plies = round_plies
        self._draw_rules = draw_rules
        self._parties: list[PartieRecord] = []
        self._undo: list[tuple[Any, ...]] = []
        self._start_history(side)

    # ----- construction -------------------------------------------------------------------
    @classmethod
    def from_position(cls, text: str, **options: Any) -> Self:
        unknown = set(options) - {"target", "draw_rules"}
        if unknown:
            raise GameError(f"donkan has no option(s) {sorted(unknown)}; known: target, draw_rules")
        fields = text.split(" ")
        if len(fields) != 7:
            raise PositionError(
                f"donkan position {text!r}: expected 7 fields '<board> <side> <score> <target> "
                f"<starter> <partie-plies> <round-plies>', got {len(fields)}"
            )
        board_text, side_text, score_text, target_text, starter_text, pp_text, rp_text = fields
        board = _parse_board(text, board_text)
        sides = {}
        for field, value in (("side", side_text), ("starter", starter_text)):
            if value not in _SIDE_CHARS:
                raise PositionError(
                    f"donkan position {text!r}: {field} must be 's' or 'n', got {value!r}"
                )
            sides[field] = _SIDE_CHARS.index(value)
        score_parts = score_text.split("-")
        if len(score_parts) != 2 or not all(p.isdigit() for p in score_parts):
            raise PositionError(
                f"donkan position {text!r}: score must be like '3-2', got {score_text!r}"
            )
        score = [int(p) for p in score_parts]
        if not target_text.isdigit() or int(target_text) < 1:
            raise PositionError(
                f"donkan position {text!r}: target must be a positive integer, got {target_text!r}"
            )
        target = int(target_text)
        if "target" in options:
            target = _option_int("target", options["target"])
        draw_rules = _option_bool("draw_rules", options.get("draw_rules", True))
        if not pp_text.isdigit() or not rp_text.isdigit() or int(pp_text) > int(rp_text):
            raise PositionError(
                f"donkan position {text!r}: partie and round plies must be counts with "
                f"partie <= round, got {pp_text!r} and {rp_text!r}"
            )
        partie_plies, round_plies = int(pp_text), int(rp_text)
        side, starter = sides["side"], sides["starter"]
        if side != starter ^ (partie_plies % 2):
            raise PositionError(
                f"donkan position {text!r}: {_SIDE_CHARS[starter]} started this partie "
                f"{partie_plies} plies ago, so {_SIDE_CHARS[starter ^ (partie_plies % 2)]} is to "
                "move"
            )
        cls._check_board(text, board, over=max(score) >= target)
        if min(score) >= target:
            raise PositionError(f"donkan position {text!r}: both sides cannot reach the target")
        return cls(board, side, score, target, starter, partie_plies, round_plies, draw_rules)

    @staticmethod
    def _check_board(text: str, board: list[int], over: bool) -> None:
        for side, label in enumerate(Donkan.SIDE_LABELS):
            kings = board.count(KING[side])
            soldiers = board.count(SOLDIER[side])
            if kings > 1 or soldiers > 2:
                raise PositionError(
                    f"donkan position {text!r}: {label} has {kings} king(s) and {soldiers} "
                    "soldier(s); at most 1 king and 2 soldiers"
                )
            if kings == 0 and not over:
                raise PositionError(
                    f"donkan position {text!r}: {label} has no king but the round is not over"
                )
        castle = board[CASTLE]
        if castle in SOLDIER:
            raise PositionError(f"donkan position {text!r}: a soldier stands on the castle d4")
        if castle and not over:
            raise PositionError(
                f"donkan position {text!r}: a king on the castle d4 ends the partie, but the "
                "round is not over"
            )

    def copy(self) -> Self:
        twin = type(self)(
            list(self._board),
            self._side,
            list(self._score),
            self._target,
            self._starter,
            self._partie_plies,
            self._round_plies,
            self._draw_rules,
        )
        twin._parties = list(self._parties)
        self._copy_history(twin)
        twin._undo = list(self._undo)
        return twin

    # ----- state --------------------------------------------------------------------------
    @property
    def score(self) -> tuple[int, int]:
        """Points of (south, north) in this round."""
        return self._score[0], self._score[1]

    @property
    def target(self) -> int:
        """Points that win the round."""
        return self._target

    @property
    def draw_rules(self) -> bool:
        return self._draw_rules

    @property
    def partie_starter(self) -> int:
        """Who moved first in the current partie (after a reset: who starts the new one)."""
        return self._starter

    @property
    def partie_plies(self) -> int:
        return self._partie_plies

    @property
    def round_plies(self) -> int:
        return self._round_plies

    @property
    def parties(self) -> list[PartieRecord]:
        """Parties finished since this game was built, oldest first (a copy)."""
        return list(self._parties)

    def round_state(self) -> RoundState:
        return RoundState(tuple(self._parties), (self._score[0], self._score[1]))

    def piece_at(self, square: str) -> str:
        """``"K"``/``"S"`` (south), ``"k"``/``"s"`` (north) or ``""`` on ``square`` (``"d4"``)."""
        return _LETTERS[self._board[NAME_INDEX[square]]].replace(".", "")

    def position(self) -> str:
        board = GRID.board_text(self._board, _LETTERS.__getitem__)
        return (
            f"{board} {_SIDE_CHARS[self._side]} {self._score[0]}-{self._score[1]} "
            f"{self._target} {_SIDE_CHARS[self._starter]} {self._partie_plies} {self._round_plies}"
        )

    def _caption(self) -> str:
        south, north = self._score
        return (
            f"south {south} - north {north} (target {self._target}), partie "
            f"{len(self._parties) + 1} ply {self._partie_plies}, "
            f"{self.SIDE_LABELS[self._side]} to move"
        )

    def diagram(self) -> str:
        """Ranks 7..1; ``K S`` south, ``k s`` north, ``#`` the empty castle, ``.`` empty."""
        lines = []
        for rank in range(SIZE - 1, -1, -1):
            row = []
            for file in range(SIZE):
                sq = rank * SIZE + file
                piece = self._board[sq]
                row.append(_LETTERS[piece] if piece else ("#" if sq == CASTLE else "."))
            lines.append(f"{rank + 1} {' '.join(row)}")
        lines.append("  a b c d e f g")
        lines.append(self._caption())
        return "\n".join(lines)

    def board_view(self) -> BoardView:
        def cell(sq: int) -> tuple[str, int | None, str, str]:
            piece = self._board[sq]
            terrain = "castle" if sq == CASTLE else ""
            if not piece:
                return "", None, terrain, ""
            return "K" if piece & 1 else "S", (piece - 1) >> 1, terrain, ""

        return GRID.view(cell, caption=self._caption())

    def repetition_key(self) -> Hashable:
        # The partie is part of the key (the round ply it began at): a position of an earlier
        # partie is never a repetition in this one. Bytes, not a tuple of 49 ints: built and
        # hashed in C at every push.
        return (bytes(self._board), self._side, self._score[0], self._score[1],
                self._round_plies - self._partie_plies)

    # ----- moves --------------------------------------------------------------------------
    def moves(self) -> list[int]:
        if self._score[0] >= self._target or self._score[1] >= self._target:
            return []
        return _generate(self._board, self._side)

    def push(self, move: int) -> None:
        board = self._board
        origin, to = divmod(move, 64)
        piece, taken = board[origin], board[to]
        mover = self._side
        board[to] = piece
        board[origin] = EMPTY
        self._side = mover ^ 1
        self._partie_plies += 1
        self._round_plies += 1
        self._record(move)
        if taken & 1:
            self._end_partie(piece, taken, mover, 1, "king")
        elif to == CASTLE and piece & 1:
            self._end_partie(piece, taken, mover, 2, "castle")
        elif self._draw_rules and self.repetitions() >= REPETITIONS:
            self._end_partie(piece, taken, None, 0, "repetition")
        elif self._draw_rules and self._partie_plies >= PARTIE_PLY_CAP:
            self._end_partie(piece, taken, None, 0, "ply-cap")
        else:
            self._undo.append((piece, taken, None))

    def _end_partie(
        self, piece: int, taken: int, winner: int | None, points: int, reason: str
    ) -> None:
        """Score the partie, then reset the board unless the round is over; keep what undo
        needs to rebuild the partie exactly. The reset position opens a new repetition window
        (it replaces, in the record of positions, the one the move reached)."""
        saved = (list(self._board), self._side, self._starter, self._partie_plies)
        self._parties.append(
            PartieRecord(
                starter=self._starter,
                winner=winner,
                points=points,
                plies=self._partie_plies,
                reason=reason,
            )
        )
        if winner is not None:
            self._score[winner] += points
            next_starter = winner ^ 1  # the loser starts the next partie
        else:
            next_starter = self._starter ^ 1  # no point: the other side starts
        self._undo.append((piece, taken, saved))
        if self._score[0] >= self._target or self._score[1] >= self._target:
            return  # the round is over: the board stays as the last move left it
        self._board[:] = _parse_board(self.START_POSITION, _START_BOARD)
        self._starter = next_starter
        self._side = next_starter
        self._partie_plies = 0
        self._rekey_last(self.repetition_key())

    def pop(self) -> int:
        move = self._unrecord()
        piece, taken, saved = self._undo.pop()
        if saved is not None:  # undo the partie's end (and the reset) first
            board, self._side, self._starter, self._partie_plies = saved
            self._board[:] = board
            last = self._parties.pop()
            if last.winner is not None:
                self._score[last.winner] -= last.points
        origin, to = divmod(move, 64)
        self._board[origin] = piece
        self._board[to] = taken
        self._side ^= 1
        self._partie_plies -= 1
        self._round_plies -= 1
        return move

    def format_move(self, move: int) -> str:
        origin, to = divmod(move, 64)
        return NAMES[origin] + NAMES[to]

    def parse_move(self, text: str) -> int:
        if not _MOVE_RE.fullmatch(text):
            raise MoveSyntaxError(
                f"donkan move {text!r} is not notation: expected from and to squares such as "
                "'c1c4' (files a-g, ranks 1-7)"
            )
        move = NAME_INDEX[text[:2]] * 64 + NAME_INDEX[text[2:]]
        if move not in self.moves():
            raise IllegalMove(text, self.position(), self._why_illegal(move))
        return move

    def _why_illegal(self, move: int) -> str:
        if self.outcome() is not None:
            return "the round is over"
        origin, to = divmod(move, 64)
        board = self._board
        piece, other = board[origin], board[to]
        if origin == to:
            return "a move must change square"
        if not piece:
            return f"there is no piece on {NAMES[origin]}"
        if (piece - 1) >> 1 != self._side:
            return f"the piece on {NAMES[origin]} belongs to {self.SIDE_LABELS[(piece - 1) >> 1]}"
        if other and (other - 1) >> 1 == self._side:
            return f"{NAMES[to]} holds your own piece"
        if piece & 1:
            if to not in KING_STEPS[origin]:
                return "a king moves one step"
            guard = _guard(board, self._side)
            if to == CASTLE and guard is not None:
                enemy = self.SIDE_LABELS[self._side ^ 1]
                return f"the castle d4 is guarded by {enemy}'s soldier on {NAMES[guard]}"
            return "not a legal move"
        if to == CASTLE:
            return "a soldier may never stop on the castle d4"
        for ray in (_ray(origin, dx, dy) for dx, dy in _DIRECTIONS):
            if to in ray:
                path = ray[: ray.index(to)]
                if CASTLE in path:
                    return "a soldier may never pass through the castle d4"
                blocked = [sq for sq in path if board[sq]]
                return f"the path is blocked on {NAMES[blocked[0]]}" if blocked else "not legal"
        return "a soldier moves along a straight line (like a chess queen)"

    # ----- ends ---------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        south, north = self._score
        for side in (P1, P2):
            if self._score[side] >= self._target:
                return Outcome(
                    side,
                    "score",
                    f"{self.SIDE_LABELS[side]} reaches {self._target} points: "
                    f"south {south} - north {north}",
                )
        return None

    def adjudication(self) -> Outcome | None:
        """A round still undecided after 2000 plies: more points wins, equal points draw."""
        if not self._draw_rules or self._round_plies < ROUND_PLY_CAP or self.outcome():
            return None
        south, north = self._score
        winner = None if south == north else (P1 if south > north else P2)
        return Outcome(
            winner,
            "ply-cap",
            f"round undecided after {ROUND_PLY_CAP} plies: south {south} - north {north}",
        )

    # ----- counting -----------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Leaves ``depth`` plies deep inside the current partie: a move that ends the partie
        is a leaf (no reset), repetition and caps are ignored."""
        if depth == 0:
            return 1
        if self.outcome() is not None:
            return 0
        return _perft(list(self._board), self._side, depth)

    def divide(self, depth: int) -> Iterator[tuple[str, int]]:
        board = list(self._board)
        for move in self.moves():
            if depth == 1:
                count = 1
            elif _ends_partie(board, move):
                count = 0
            else:
                origin, to = divmod(move, 64)
                piece, taken = board[origin], board[to]
                board[to], board[origin] = piece, EMPTY
                count = _perft(board, self._side ^ 1, depth - 1)
                board[origin], board[to] = piece, taken
            yield self.format_move(move), count
