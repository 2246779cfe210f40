"""Static evaluations for the sample search bots: one small class per game, same interface.

Why this lives apart from the search: ``alphabeta.py`` and ``greedy.py`` share it, so their
strength difference comes from search depth alone (the README's ladder), and a newcomer can
tune one game's numbers without touching the search. Each evaluator reads the game's own
internals (``_board``, ``_stacks``...) because going through notation strings would cost more
than the evaluation itself; they stay read-only.

The registry drives the choice: a registered game without an evaluator of its own (a sixth
game, a plug-in) gets :class:`NeutralEval`, which scores every position 0, so the search still
plays it, finding wins, losses and draws within its depth; a name the registry does not know
is a ``KeyError`` naming it.

Scores are centipawn-like integers from the point of view of the side to move. Every
evaluator also says which moves are "forcing" (captures, den or castle entries, lion tries),
for move ordering and the quiescence search, and gives a cheap hashable key per position for
the transposition table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

from referee.games import Game, GameError, get_game
from referee.games import _draughts_bits as bits
from referee.games import dobutsu as dob
from referee.games import donkan as don
from referee.games import dvonn as dv
from referee.games import jungle as jun

WIN = 1_000_000
"""A won game's score before the distance-to-win correction; any eval stays far below it."""


class Evaluator:
    """The interface the search uses; subclasses override what their game needs."""

    NAME: ClassVar[str] = ""
    NEUTRAL: ClassVar[bool] = False
    """True for the stand-in of a game nobody wrote an evaluation for (bots say so)."""
    REPETITION: ClassVar[bool] = False
    """Whether a repeated position is a draw in this game (search scores a repeat as 0)."""
    FORCED_CAPTURES: ClassVar[bool] = False
    """Captures are compulsory (draughts): quiescence must not stand pat when one exists."""

    def evaluate(self, game: Any) -> int:
        """Static score for the side to move."""
        raise NotImplementedError

    def forcing_value(self, game: Any, move: Any) -> int:
        """How forcing ``move`` is (victim value for captures, > 0); 0 for a quiet move."""
        return 0

    def key(self, game: Any) -> Hashable:
        """A cheap key that identifies the position for the transposition table."""
        key: Hashable = game.repetition_key()
        return key

    def boundary(self, game: Any) -> bool:
        """True when the move just pushed closed a sub-game (a Donkan partie): score it there."""
        return False

    def move_key(self, move: Any) -> Hashable:
        """A hashable stand-in for ``move`` in history and killer tables."""
        key: Hashable = move
        return key


# ----- jungle ---------------------------------------------------------------------------------

JUNGLE_VALUE = (0, 450, 200, 300, 400, 500, 800, 900, 1000)
"""By strength: rat (it takes the elephant), cat, dog, wolf, leopard, tiger, lion, elephant."""

JUNGLE_PIECES = ("Rat", "Cat", "Dog", "Wolf", "Leopard", "Tiger", "Lion", "Elephant")
"""The pieces in :data:`JUNGLE_VALUE`'s order (its 0 is the empty square)."""


def option_lines() -> list[str]:
    """Every evaluation weight a bot may declare as an option (jungle's and dobutsu's piece
    values), for its handshake."""
    return jungle_option_lines() + dobutsu_option_lines()


def jungle_option_lines() -> list[str]:
    """The piece values as spin options (``JungleRat`` ...), for a bot's handshake: what
    ``arena tune`` moves. Their defaults are :data:`JUNGLE_VALUE`, so a bot that is not
    given them plays as before."""
    return [f"option name Jungle{name} type spin default {value} min 0 max 5000"
            for name, value in zip(JUNGLE_PIECES, JUNGLE_VALUE[1:], strict=True)]


def jungle_values(options: Mapping[str, str | None]) -> tuple[int, ...]:
    """The piece values set with ``setoption`` (``JungleRat`` ...), the defaults for the
    others; a value that is not an integer keeps the default."""
    values = list(JUNGLE_VALUE)
    for index, name in enumerate(JUNGLE_PIECES, start=1):
        text = options.get(f"Jungle{name}")
        if text is not None:
            with contextlib.suppress(ValueError):  # not a number: the default stays
                values[index] = int(float(text))
    return tuple(values)


def _jungle_advance(side: int) -> tuple[int, ...]:
    enemy_den = jun.DEN[1 - side]
    ex, ey = enemy_den % jun.FILES, enemy_den // jun.FILES
    out = []
    for sq in range(jun.SQUARES):
        d = abs(sq % jun.FILES - ex) + abs(sq // jun.FILES - ey)
        bonus = 4 * (11 - d)
        if d <= 3:
            bonus += 25 * (4 - d)
        out.append(bonus)
    return tuple(out)


JUNGLE_ADVANCE = (_jungle_advance(jun.SOUTH), _jungle_advance(jun.NORTH))


def _jungle_guard(side: int) -> tuple[int, ...]:
    """Defenders near their own den (its three traps and around) keep intruders out."""
    den = jun.DEN[side]
    dx, dy = den % jun.FILES, den // jun.FILES
    return tuple(
        12 if abs(sq % jun.FILES - dx) + abs(sq // jun.FILES - dy) <= 2 else 0
        for sq in range(jun.SQUARES)
    )


JUNGLE_GUARD = (_jungle_guard(jun.SOUTH), _jungle_guard(jun.NORTH))


class JungleEval(Evaluator):
    """Material, advance towards the enemy den (steeper near it), a few den defenders."""

    NAME = "jungle"
    REPETITION = True

    def __init__(self, values: tuple[int, ...] = JUNGLE_VALUE) -> None:
        self.values = values
        """The piece values (:data:`JUNGLE_VALUE`'s shape), options of a bot that sets them."""

    def evaluate(self, game: Any) -> int:
        board = game._board
        values = self.values
        score = 0
        adv_s, adv_n = JUNGLE_ADVANCE
        guard_s, guard_n = JUNGLE_GUARD
        for sq, piece in enumerate(board):
            if piece > 0:
                score += values[piece] + adv_s[sq] + guard_s[sq]
            elif piece < 0:
                score -= values[-piece] + adv_n[sq] + guard_n[sq]
        return score if game._side == jun.SOUTH else -score

    def forcing_value(self, game: Any, move: int) -> int:
        to = move >> 6
        if to == jun.DEN[1 - game._side]:
            return WIN // 10
        victim = game._board[to]
        return self.values[abs(victim)] if victim else 0

    def key(self, game: Any) -> Hashable:
        key: int = game._key
        return key


# ----- dobutsu --------------------------------------------------------------------------------

DOBUTSU_BOARD = {dob.CHICK: 100, dob.ELEPHANT: 240, dob.GIRAFFE: 280, dob.HEN: 320, dob.LION: 0}
DOBUTSU_HAND = {dob.CHICK: 120, dob.ELEPHANT: 260, dob.GIRAFFE: 300}
DOBUTSU_PIECES = {"Chick": dob.CHICK, "Elephant": dob.ELEPHANT, "Giraffe": dob.GIRAFFE,
                  "Hen": dob.HEN}
"""The pieces whose value on the board is a spin option (``DobutsuChick`` ...)."""


def dobutsu_option_lines() -> list[str]:
    """The board values as spin options (``DobutsuChick`` ...), defaults as
    :data:`DOBUTSU_BOARD`: what ``arena tune`` moves in ``make demo-tune``."""
    return [f"option name Dobutsu{name} type spin default {DOBUTSU_BOARD[piece]} min 0 "
            "max 5000" for name, piece in DOBUTSU_PIECES.items()]


def dobutsu_values(options: Mapping[str, str | None]) -> dict[int, int]:
    """The board values set with ``setoption``, the defaults for the others (a value that
    is not a number keeps its default)."""
    values = dict(DOBUTSU_BOARD)
    for name, piece in DOBUTSU_PIECES.items():
        text = options.get(f"Dobutsu{name}")
        if text is not None:
            with contextlib.suppress(ValueError):
                values[piece] = int(float(text))
    return values
LION_RANK = (0, 30, 70, 150)
"""Bonus of a lion by ranks advanced (its far rank is the try)."""


class DobutsuEval(Evaluator):
    """Material on board and in hand, lion advance, and attacked pieces of the side to move."""

    NAME = "dobutsu"
    REPETITION = True

    def __init__(self, values: dict[int, int] = DOBUTSU_BOARD) -> None:
        self.values = values
        """The pieces' values on the board (:data:`DOBUTSU_BOARD`'s shape)."""

    def evaluate(self, game: Any) -> int:
        board = game._board
        hands = game._hands
        values = self.values
        score = 0
        for sq, piece in enumerate(board):
            if piece > 0:
                score += values[piece]
                if piece == dob.LION:
                    score += LION_RANK[sq // dob.FILES]
                elif piece == dob.CHICK:
                    score += 10 * (sq // dob.FILES)
            elif piece < 0:
                score -= values[-piece]
                if piece == -dob.LION:
                    score -= LION_RANK[3 - sq // dob.FILES]
                elif piece == -dob.CHICK:
                    score -= 10 * (3 - sq // dob.FILES)
        for ptype, value in DOBUTSU_HAND.items():
            score += value * (hands[0][ptype] - hands[1][ptype])
        return score if game._side == dob.WHITE else -score

    def forcing_value(self, game: Any, move: int) -> int:
        if move & dob.DROP:
            return 0
        frm = move & 0xF
        to = move >> 4 & 0xF
        victim = game._board[to]
        if victim:
            return WIN // 10 if abs(victim) == dob.LION else self.values[abs(victim)] + 50
        if abs(game._board[frm]) == dob.LION and to in dob.FAR_RANK[game._side]:
            return 5000  # a try: wins unless the square is attacked
        return 0

    def key(self, game: Any) -> Hashable:
        key: int = game._key
        return key


# ----- draughts -------------------------------------------------------------------------------

_ROW_MASKS = tuple(
    sum(bits.SQ_TO_MASK[s] for s in bits.SQUARES if bits.ROW_COL[s][0] == row) for row in range(10)
)
_CENTRE = sum(
    bits.SQ_TO_MASK[s] for s in bits.SQUARES
    if 3 <= bits.ROW_COL[s][0] <= 6 and 2 <= bits.ROW_COL[s][1] <= 7
)
MAN_ADVANCE = (0, 1, 3, 5, 8, 11, 15, 20, 26, 0)
"""Bonus of a man by rows advanced from its own back row (row 9 advanced = a king)."""
MAN, KING = 100, 320


class DraughtsEval(Evaluator):
    """Material (king = 3.2 men), men's advance, centre, back-row guard, tempo of kings."""

    NAME = "draughts"
    REPETITION = True
    FORCED_CAPTURES = True

    def evaluate(self, game: Any) -> int:
        white, black, kings = game._white, game._black, game._kings
        wm, bm = white & ~kings, black & ~kings
        score = MAN * (wm.bit_count() - bm.bit_count())
        score += KING * ((white & kings).bit_count() - (black & kings).bit_count())
        rows = _ROW_MASKS
        for row in range(10):
            mask = rows[row]
            score += MAN_ADVANCE[9 - row] * (wm & mask).bit_count()
            score -= MAN_ADVANCE[row] * (bm & mask).bit_count()
        score += 4 * ((wm & _CENTRE).bit_count() - (bm & _CENTRE).bit_count())
        score += 6 * ((wm & rows[9]).bit_count() - (bm & rows[0]).bit_count())
        return score if game._side == 0 else -score

    def forcing_value(self, game: Any, move: Any) -> int:
        return 100 * len(move.captured)

    def key(self, game: Any) -> Hashable:
        return (game._white, game._black, game._kings, game._side)


# ----- dvonn ----------------------------------------------------------------------------------

_DVONN_EDGE = tuple(len(n) < 6 for n in dv.NEIGHBOURS)


class DvonnEval(Evaluator):
    """Movement: controlled pieces, stacks touching a DVONN (safe from cut-offs), stacks that
    can still move. Placement: own pieces next to DVONN pieces and on the rim (mobile)."""

    NAME = "dvonn"

    def evaluate(self, game: Any) -> int:
        stacks: list[str] = game._stacks
        side = game._side
        if game._placed < dv.TOTAL:
            return self._placement(stacks, side)
        near = [False] * dv.TOTAL
        for i, s in enumerate(stacks):
            if "D" in s:
                near[i] = True
                for n in dv.NEIGHBOURS[i]:
                    near[n] = True
        score = [0, 0]
        jumps = dv.JUMPS
        neighbours = dv.NEIGHBOURS
        for i, s in enumerate(stacks):
            if not s:
                continue
            top = s[-1]
            if top == "D":
                continue
            owner = 0 if top == "W" else 1
            h = len(s)
            value = 10 * h
            if near[i]:
                value += 3 + h
            around = neighbours[i]
            free = len(around) < 6 or not all(stacks[n] for n in around)
            if free and any(stacks[t] for t in jumps[i][h]):
                value += 6
            score[owner] += value
        return score[side] - score[1 - side]

    @staticmethod
    def _placement(stacks: list[str], side: int) -> int:
        score = [0, 0]
        for i, s in enumerate(stacks):
            if not s or s == "D":
                continue
            owner = 0 if s == "W" else 1
            value = 2 if _DVONN_EDGE[i] else 0
            if any(stacks[n] == "D" for n in dv.NEIGHBOURS[i]):
                value += 4
            score[owner] += value
        return score[side] - score[1 - side]

    def key(self, game: Any) -> Hashable:
        return (tuple(game._stacks), game._side, game._placed)


# ----- donkan ---------------------------------------------------------------------------------

POINT = 1000
"""One round point in centipawns: a partie won outweighs any position inside a partie."""
SOLDIER_VALUE = 250


def _king_distance(sq: int) -> int:
    cx, cy = don.CASTLE % don.SIZE, don.CASTLE // don.SIZE
    return max(abs(sq % don.SIZE - cx), abs(sq // don.SIZE - cy))


KING_DISTANCE = tuple(_king_distance(sq) for sq in range(don.SQUARES))
KING_BONUS = (0, 140, 70, 30)
"""By a king's distance to the castle (1 = next to it)."""


class DonkanEval(Evaluator):
    """Round points first; inside a partie: soldiers, kings close to the castle, guards."""

    NAME = "donkan"

    def evaluate(self, game: Any) -> int:
        board: list[int] = game._board
        side = game._side
        score = [0, 0]
        for sq, piece in enumerate(board):
            if not piece:
                continue
            owner = (piece - 1) >> 1
            if piece & 1:
                score[owner] += KING_BONUS[KING_DISTANCE[sq]]
            else:
                score[owner] += SOLDIER_VALUE
        for s in (0, 1):
            if don._guard(board, s) is not None:
                score[s] -= 60  # the enemy keeps our king out of the castle
        points = game._score
        mine = POINT * (points[side] - points[1 - side])
        return mine + score[side] - score[1 - side] + 10

    def forcing_value(self, game: Any, move: int) -> int:
        origin, to = divmod(move, 64)
        board = game._board
        victim = board[to]
        if victim & 1 or (to == don.CASTLE and board[origin] & 1):
            return WIN // 10
        return SOLDIER_VALUE if victim else 0

    def key(self, game: Any) -> Hashable:
        return (tuple(game._board), game._side, game._score[0], game._score[1],
                game._starter)

    def boundary(self, game: Any) -> bool:
        # After a push, the partie clock is 0 only when the move ended the partie (reset).
        return bool(game._partie_plies == 0 or game.outcome() is not None)


class NeutralEval(Evaluator):
    """Every position scores 0: the search sees only the game's own ends (and, when the game
    has a repetition draw, repeats as draws). Made per game by :func:`neutral_evaluator`."""

    NEUTRAL = True

    def evaluate(self, game: Any) -> int:
        return 0


def neutral_evaluator(rules: type[Game[Any]]) -> type[Evaluator]:
    """The :class:`NeutralEval` of one registered game."""
    attributes = {"NAME": rules.NAME, "REPETITION": rules.REPETITION_COUNT is not None}
    return type(f"NeutralEval_{rules.NAME}", (NeutralEval,), attributes)


EVALUATORS: dict[str, type[Evaluator]] = {
    cls.NAME: cls for cls in (JungleEval, DobutsuEval, DraughtsEval, DvonnEval, DonkanEval)
}
"""The games someone wrote an evaluation for; other registered games get a neutral one."""


def get_evaluator(game: str, options: Mapping[str, str | None] | None = None) -> Evaluator:
    """The evaluator for a game name: its own, else the neutral one of a registered game;
    ``KeyError`` for a name the registry does not know (the message names it). ``options``
    are the bot's (``setoption``): jungle's piece values among them."""
    if game == JungleEval.NAME and options:
        return JungleEval(jungle_values(options))
    if game == DobutsuEval.NAME and options:
        return DobutsuEval(dobutsu_values(options))
    if game in EVALUATORS:
        return EVALUATORS[game]()
    try:
        rules = get_game(game)
    except GameError as exc:
        raise KeyError(f"no evaluation for game {game!r}: {exc}") from None
    return neutral_evaluator(rules)()
