"""The one interface every game's rules implement, and the errors and outcomes they share.

A game module is pure rules: no I/O, no trio, no clocks. The referee, the sample bots and the
tournament runner only ever talk to a game through :class:`Game`, so the five games stay
interchangeable. The shape follows OpenSpiel's State (public methods wrapping small hooks) and
python-chess's Board (moves that round-trip through text, push/pop for search).

Conventions shared by every game:

* Sides are ``0`` (``p1``, always moves first) and ``1`` (``p2``).
* A move is a single space-free token in the game's own notation (``docs/rules.md``);
  ``format_move(parse_move(text)) == text`` for every legal move text.
* ``position()`` returns a text that ``Game.from_position`` accepts and that reproduces the
  same position (including side to move and, for Donkan, the round's score).
* ``outcome()`` only reports ends that the game's rules themselves define. Draws that the rules
  lack (repetition, move caps, FMJD counts) are the referee's adjudication, reported by
  ``adjudication()`` so that the referee can switch them off.

What every game used to write for itself lives here once: the side to move (``_side``), the
moves played (``_history``) and the repetition count (how often the key of each position reached
occurred since the game was built). A game calls
``_start_history`` when it is built, ``_record``/``_unrecord`` in push/pop, and
``_copy_history`` in copy; a game with a repetition draw sets ``REPETITION_COUNT``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

import msgspec

from referee.games.rounds import RoundState

P1: int = 0
P2: int = 1


class GameError(ValueError):
    """Base of every error the rules raise; always a human-readable message."""


class PositionError(GameError):
    """A position text could not be read; the message quotes the text and says why."""


class MoveSyntaxError(GameError):
    """A move text is not in the game's notation at all."""


class IllegalMove(GameError):
    """A well-formed move that is not legal here; the message names the move and the position."""

    def __init__(self, move: str, position: str, why: str = "not a legal move") -> None:
        super().__init__(f"illegal move {move!r} in position {position!r}: {why}")
        self.move = move
        self.position = position
        self.why = why


class CellView(msgspec.Struct, array_like=True, omit_defaults=True):
    """One board cell for pictures (report viewer, diagrams): what stands there and the terrain."""

    x: int
    """Column from p1's left, 0-based (for Dvonn: the letter index A=0)."""
    y: int
    """Row from p1's side, 0-based (for Dvonn: the row number minus one)."""
    piece: str = ""
    """Short label of the piece or stack (``"m"``, ``"K"``, ``"lion"``, ``"3"``); empty: none."""
    side: int | None = None
    """Owner of the piece (0 = p1, 1 = p2), None for neutral pieces (DVONN) or empty cells."""
    terrain: str = ""
    """``"dark"``, ``"water"``, ``"trap"``, ``"den"``, ``"castle"``... empty for plain cells."""
    extra: str = ""
    """Anything else worth drawing, e.g. ``"dvonn"`` for a stack holding a DVONN piece."""


class BoardView(msgspec.Struct, omit_defaults=True):
    """A game-independent picture of a position, so one viewer can draw all five games."""

    shape: str
    """``"square"`` or ``"hex"`` (Dvonn: axial coordinates, neighbours as in docs/rules.md)."""
    columns: int
    rows: int
    cells: list[CellView]
    """Every cell that exists on the board, empty or not."""
    hands: list[list[str]] = []
    """Pieces in hand per side (Dobutsu), as piece labels."""
    caption: str = ""
    """One line under the board: score, phase, side to move."""
    names: list[str] = []
    """Per cell, in the order of ``cells``, its name in the game's moves where the notation
    numbers squares instead of naming coordinates (draughts: 1-50 on the dark squares, "" on
    the others). Empty: moves name cells by column letter and row number, as the pictures'
    edges show."""


class Outcome(msgspec.Struct, frozen=True):
    """How a game ended: ``winner`` is 0 (p1), 1 (p2) or None for a draw; ``reason`` is a short
    machine-friendly word such as ``"den"``, ``"no-moves"``, ``"try"``, ``"score"``,
    ``"repetition"``; ``detail`` is a sentence for humans."""

    winner: int | None
    reason: str
    detail: str = ""

    @property
    def result(self) -> str:
        """PGN-style result from p1's point of view: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == P1 else "0-1"


M = TypeVar("M")


class Game(ABC, Generic[M]):
    """A position with its history, in one game's rules.

    Subclasses set the class constants, implement the abstract hooks, and register themselves
    in :mod:`referee.games` by ``NAME``. ``M`` is the game's internal move type (anything
    hashable and cheap); only strings cross the module's boundary in the public helpers.
    """

    NAME: ClassVar[str]
    """Registry name, e.g. ``"draughts"``."""
    DESCRIPTION: ClassVar[str]
    """One line shown by ``arena games``."""
    SIDE_LABELS: ClassVar[tuple[str, str]] = ("p1", "p2")
    """The game's own names for p1 and p2 (``white``/``black``, ``south``/``north``)."""
    START_POSITION: ClassVar[str]
    """The position text of the standard start."""
    OPTIONS: ClassVar[tuple[str, ...]] = ()
    """Names of the game options ``start``/``from_position`` accept (values may be strings,
    as they come from configs); the referee rejects any other name before a game starts."""
    REPETITION_COUNT: ClassVar[int | None] = None
    """How many occurrences of one position make the default repetition draw (3 in the games
    that have one); None for a game without one, whose positions are then not tracked."""

    _side: int
    """0 or 1: the side to move. Games update it in push/pop."""
    _history: list[M]
    _keys: list[Hashable]
    """``repetition_key()`` (or the game's cheaper equivalent) of every position since
    construction, oldest first; empty when ``REPETITION_COUNT`` is None."""
    _seen: dict[Hashable, int]
    """How often each key occurs in ``_keys`` (so a count costs one look-up)."""

    # ----- construction -------------------------------------------------------------------
    @classmethod
    @abstractmethod
    def from_position(cls, text: str, **options: Any) -> Self:
        """Build a game from a position text; raise :class:`PositionError` naming the fault."""

    @classmethod
    def _optionless_text(cls, text: str, options: Mapping[str, Any]) -> str:
        """For :meth:`from_position` of a game that takes no options: the position text to
        read (``startpos`` stands for :attr:`START_POSITION`); an option is a
        :class:`PositionError` naming it."""
        if options:
            raise PositionError(f"{cls.NAME} takes no options, got {sorted(options)}")
        return cls.START_POSITION if text.strip() == "startpos" else text

    @classmethod
    def start(cls, **options: Any) -> Self:
        """The standard start position (``options`` are game options such as Donkan's target)."""
        return cls.from_position(cls.START_POSITION, **options)

    @classmethod
    def new(cls, position: str | None = None, moves: Sequence[str] = (), **options: Any) -> Self:
        """Start position or ``position``, then play ``moves`` (strings), checking each."""
        game = cls.start(**options) if position in (None, "", "startpos") else cls.from_position(
            position, **options  # type: ignore[arg-type]
        )
        for move in moves:
            game.play(move)
        return game

    @abstractmethod
    def copy(self) -> Self:
        """An independent copy (history included, so repetition keys still work)."""

    # ----- state --------------------------------------------------------------------------
    @property
    def side_to_move(self) -> int:
        """0 for p1, 1 for p2."""
        return self._side

    @property
    def ply(self) -> int:
        """Moves played since the position this game was built from."""
        return len(self.history)

    @property
    def history(self) -> Sequence[M]:
        """The moves played since construction, oldest first."""
        return self._history

    # ----- side, history and repetitions: the bookkeeping every game shares ----------------
    def _start_history(self, side: int, key: Hashable = None) -> None:
        """Set the side to move and an empty history; call once the board is set up. ``key``
        is the start position's repetition key when the game computes a cheaper one itself
        (an incremental hash); by default ``repetition_key()``."""
        self._side = side
        self._history = []
        if self.REPETITION_COUNT is None:
            self._keys = []
            self._seen = {}
        else:
            first = self.repetition_key() if key is None else key
            self._keys = [first]
            self._seen = {first: 1}

    def _record(self, move: M, key: Hashable = None) -> None:
        """Note a move just pushed and the position it reached (same ``key`` rule as above)."""
        self._history.append(move)
        keys = self._keys
        if keys:  # empty only in a game without a repetition rule
            if key is None:
                key = self.repetition_key()
            keys.append(key)
            seen = self._seen
            seen[key] = seen.get(key, 0) + 1

    def _rekey_last(self, key: Hashable) -> None:
        """Replace the key recorded for the position just reached (Donkan: the move's board
        was reset for the next partie)."""
        keys, seen = self._keys, self._seen
        if not keys:
            return
        old = keys[-1]
        count = seen[old] - 1
        if count:
            seen[old] = count
        else:
            del seen[old]
        keys[-1] = key
        seen[key] = seen.get(key, 0) + 1

    def _unrecord(self) -> M:
        """Forget the last recorded move (and its position); return the move."""
        move = self._history.pop()
        keys = self._keys
        if keys:
            key = keys.pop()
            seen = self._seen  # written out, not a call: this is every search's pop
            count = seen[key] - 1
            if count:
                seen[key] = count
            else:
                del seen[key]
        return move

    def _copy_history(self, other: Game[M]) -> None:
        """Give ``other`` (a fresh copy of this position) the same side, history and keys."""
        other._side = self._side
        other._history = list(self._history)
        other._keys = list(self._keys)
        other._seen = dict(self._seen)

    def repetitions(self) -> int:
        """How often the current position has occurred since the game was built, this time
        included (0 for a game without a repetition rule). Positions that play can never
        bring back (before a man move in draughts) simply never match: the count needs no
        window, as long as ``repetition_key`` tells such positions apart."""
        keys = self._keys
        return self._seen[keys[-1]] if keys else 0

    def repetition_draw(self) -> Outcome | None:
        """The default repetition draw: the same position (same side to move) for the
        ``REPETITION_COUNT``-th time; None otherwise or for a game without the rule."""
        count = self.REPETITION_COUNT
        if count is None or self.repetitions() < count:
            return None
        return Outcome(None, "repetition",
                       f"the same position occurred {count} times with the same side to move")

    @abstractmethod
    def position(self) -> str:
        """The position text (round-trips through ``from_position``)."""

    @abstractmethod
    def diagram(self) -> str:
        """A multi-line ASCII picture of the board for terminals and logs."""

    @abstractmethod
    def board_view(self) -> BoardView:
        """The position as a :class:`BoardView`, for the report's game viewer."""

    @abstractmethod
    def repetition_key(self) -> Hashable:
        """Everything that makes two positions 'the same' for repetition: board, hands, side to
        move (and whatever else the game's rule counts: Donkan's score and partie). It must
        follow from the position text alone."""

    # ----- moves --------------------------------------------------------------------------
    @abstractmethod
    def moves(self) -> list[M]:
        """Legal moves in the internal type; empty when the game is over by its own rules."""

    @abstractmethod
    def push(self, move: M) -> None:
        """Play a move known to be legal (no checking: the hot path of search and perft)."""

    @abstractmethod
    def pop(self) -> M:
        """Take back the last pushed move and return it."""

    @abstractmethod
    def format_move(self, move: M) -> str:
        """The move in the game's notation, in this position."""

    @abstractmethod
    def parse_move(self, text: str) -> M:
        """Read a move text in this position: :class:`MoveSyntaxError` if it is not notation,
        :class:`IllegalMove` if it is notation but not legal here."""

    def format_moves(self, moves: Sequence[M]) -> list[str]:
        """Each of ``moves`` (legal here) in the game's notation, in order: the referee writes
        a position's whole legal list at once, every turn, so a game may override this with
        one pass (Dobutsu: one table look-up per move) instead of a call per move."""
        format_move = self.format_move
        return [format_move(m) for m in moves]

    def legal_moves(self) -> list[str]:
        """Legal moves as notation strings, in a stable order."""
        return self.format_moves(self.moves())

    def play(self, text: str) -> M:
        """Check and play a move text; return the internal move. Raises on illegal moves."""
        move = self.parse_move(text)
        self.push(move)
        return move

    # ----- ends ---------------------------------------------------------------------------
    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The end of the game by its own rules, or None while it goes on."""

    def adjudication(self) -> Outcome | None:
        """The default draw adjudication of docs/rules.md for this game (repetition, FMJD
        counts...) for the position reached; None when none applies. The referee calls it only
        when the game's draw rules are switched on. By default: the repetition draw."""
        return self.repetition_draw()

    def is_over(self) -> bool:
        return self.outcome() is not None

    def outcome_given(self, moves: list[M]) -> Outcome | None:
        """:meth:`outcome`, for a caller that has just generated this position's legal moves
        (the referee, every ply): a game whose end test is "no legal move" answers from them
        instead of generating them a second time. By default :meth:`outcome`."""
        return self.outcome()

    def wins_at_once(self) -> bool:
        """Does the side to move have a move that ends the game in its favour right away?

        The UCI dialect asks this of every position (where a stricter engine may have dropped
        a move), so games override it with a faster exact test; this default tries every move."""
        mover = self.side_to_move
        for move in self.moves():
            self.push(move)
            try:
                outcome = self.outcome()
            finally:
                self.pop()
            if outcome is not None and outcome.winner == mover:
                return True
        return False

    # ----- rounds (optional) --------------------------------------------------------------
    def round_state(self) -> RoundState | None:
        """For a game whose one game is a round of several parties (Donkan): the parties
        finished since this object was built and the round's score. The referee records them
        in the game record and sends both bots a ``partie`` line after each one. None, the
        default: the game has no rounds."""
        return None

    # ----- counting -----------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Leaf count ``depth`` moves deep (docs/rules.md's convention: finished positions have no
        children; repetition and move caps ignored). Games override this for speed."""
        if depth == 0:
            return 1
        moves = self.moves()
        if depth == 1:
            return len(moves)
        total = 0
        push, pop, perft = self.push, self.pop, self.perft  # bound once: this loop is hot
        for move in moves:
            push(move)
            total += perft(depth - 1)
            pop()
        return total

    def divide(self, depth: int) -> Iterator[tuple[str, int]]:
        """Perft split by first move: ``(move text, leaf count)`` pairs."""
        for move in self.moves():
            text = self.format_move(move)
            self.push(move)
            count = self.perft(depth - 1) if depth > 1 else 1
            self.pop()
            yield text, count

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.position()!r}>"


class NoMovesLoses(Game[M]):
    """A game whose side to move loses when it has no legal move (``no-moves``), and whose
    other ends are found as each move is played and kept in ``_outcome`` (jungle's den,
    dobutsu's try). The end without moves is looked for only when asked: it costs a move
    generation, which the referee has just done (:meth:`outcome_given`)."""

    _outcome: Outcome | None
    """The end the last move made by the rules (None: none yet); push and pop keep it."""
    _undo: list[Any]
    """What each move played took or changed, for :meth:`pop`."""
    _key: int
    """The position's incremental hash (its repetition key)."""

    def _copy_kept(self, other: NoMovesLoses[M]) -> None:
        """Give ``other`` (a fresh copy of this position, its board copied) what these games
        keep beside the board: the undo records, the hash, the history and the outcome."""
        other._undo = self._undo[:]
        other._key = self._key
        self._copy_history(other)
        other._outcome = self._outcome

    def outcome_given(self, moves: list[M]) -> Outcome | None:
        if self._outcome is not None or moves:
            return self._outcome
        return self.outcome()

    def outcome(self) -> Outcome | None:
        if self._outcome is not None:
            return self._outcome
        if not self.moves():
            loser = self._side
            return Outcome(1 - loser, "no-moves", f"{self.SIDE_LABELS[loser]} has no legal move")
        return None
