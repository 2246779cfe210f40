"""Dvonn's rules (docs/rules.md, section Dvonn): hex board, placement, stacking, disconnection.

The board is kept as 49 strings, one per space, each the stack from bottom to top in the
letters ``W`` (white), ``B`` (black) and ``D`` (DVONN); ``""`` is an empty space. Strings make
stacking a concatenation and undo a plain reassignment, which keeps push/pop cheap for perft.

Position text (our own design, FEN-like), three fields separated by single spaces::

    <rows> <side> <placed>

* ``rows``: the five rows from row 5 (top) down to row 1, separated by ``/``; each row lists
  its spaces from left to right (row 5: C..K, row 4: B..K, row 3: A..K, row 2: A..J,
  row 1: A..I). A number is a run of empty spaces. A stack is written bottom to top with its
  BOTTOM piece in upper case and the pieces above it in lower case, so ``Wbw`` is a white
  piece under a black one under a white one (white controls it), and ``D`` a lone DVONN.
* ``side``: ``w`` or ``b``, the side to move.
* ``placed``: how many pieces have been placed, 0..49; 49 means the movement phase.

The start is ``9/10/11/10/9 w 0``. During placement the board must be exactly what the
placement order produces (3 DVONN pieces first, then black and white alternately) and the side
is fixed by the count; in the movement phase every stack must still touch a DVONN piece.

Moves are ints: ``PASS`` (-1), a placement is the space index 0..48, a movement is
``(from + 1) * 64 + to``. Notation: ``E3``, ``I1J2``, ``pass``.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any, ClassVar, Self

from referee.games.base import (
    P1,
    P2,
    BoardView,
    CellView,
    Game,
    IllegalMove,
    MoveSyntaxError,
    Outcome,
    PositionError,
)

LETTERS = "ABCDEFGHIJK"
ROWS = 5
COLUMNS = 11
TOTAL = 49
N_DVONN = 3
N_EACH = 23
PASS = -1
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))
"""Neighbour offsets (dx, dy) of docs/rules.md: lines are dx=0, dy=0 and dx=dy."""


def _on_board(x: int, y: int) -> bool:
    """The 49 spaces are the hexagon 0<=y<=4, 0<=x<=10, -2<=x-y<=8 (docs/rules.md's drawing)."""
    return 0 <= y < ROWS and 0 <= x < COLUMNS and -2 <= x - y <= 8


CELLS: tuple[tuple[int, int], ...] = tuple(
    (x, y) for y in range(ROWS) for x in range(COLUMNS) if _on_board(x, y)
)
"""(x, y) of each space index, row 1 first, left to right."""
INDEX: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(CELLS)}
NAMES: tuple[str, ...] = tuple(f"{LETTERS[x]}{y + 1}" for x, y in CELLS)
NAME_INDEX: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(INDEX[(x + dx, y + dy)] for dx, dy in DIRECTIONS if _on_board(x + dx, y + dy))
    for x, y in CELLS
)
JUMPS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(
            INDEX[(x + dx * h, y + dy * h)]
            for dx, dy in DIRECTIONS
            if _on_board(x + dx * h, y + dy * h)
        )
        for h in range(TOTAL + 1)
    )
    for x, y in CELLS
)
"""JUMPS[space][h]: the spaces exactly h steps away in a straight line, on the board."""
ROW_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, (_, y) in enumerate(CELLS) if y == row) for row in range(ROWS)
)
assert len(CELLS) == TOTAL

_TOPS = ("W", "B")
_SIDE_CHARS = ("w", "b")
_CELL_RE = re.compile(r"[A-K][1-5]")


def _placement_piece(placed: int) -> str:
    """The piece of placement number ``placed`` (0-based): three DVONN, then B, W, B, ..."""
    if placed < N_DVONN:
        return "D"
    return _TOPS[placed % 2]


def _decode(move: int) -> tuple[int, int]:
    return move // 64 - 1, move % 64


def _encode(origin: int, target: int) -> int:
    return (origin + 1) * 64 + target


class Dvonn(Game[int]):
    """A Dvonn game: placement phase then movement phase, with make/unmake history."""

    NAME: ClassVar[str] = "dvonn"
    DESCRIPTION: ClassVar[str] = "Dvonn: 49-space hex board, place then stack, stay near the DVONN"
    SIDE_LABELS: ClassVar[tuple[str, str]] = ("white", "black")
    START_POSITION: ClassVar[str] = "9/10/11/10/9 w 0"

    def __init__(self, stacks: list[str], side: int, placed: int) -> None:
        self._stacks = stacks
        self._placed = placed
        self._start_history(side)
        self._undo: list[tuple[Any, ...]] = []

    # ----- construction -------------------------------------------------------------------
    @classmethod
    def from_position(cls, text: str, **options: Any) -> Self:
        unknown = set(options) - {"draw_rules"}  # Dvonn has no draw rules; accepted, unused
        if unknown:
            raise PositionError(f"dvonn takes no option(s) {sorted(unknown)}")
        fields = text.split(" ")
        if len(fields) != 3:
            raise PositionError(
                f"dvonn position {text!r}: expected 3 fields '<rows> <side> <placed>', "
                f"got {len(fields)}"
            )
        rows_text, side_text, placed_text = fields
        stacks = cls._parse_rows(text, rows_text)
        if side_text not in _SIDE_CHARS:
            raise PositionError(
                f"dvonn position {text!r}: side must be 'w' or 'b', got {side_text!r}"
            )
        side = _SIDE_CHARS.index(side_text)
        if not placed_text.isdigit() or not 0 <= int(placed_text) <= TOTAL:
            raise PositionError(
                f"dvonn position {text!r}: placed count must be 0..49, got {placed_text!r}"
            )
        placed = int(placed_text)
        cls._check(text, stacks, side, placed)
        return cls(stacks, side, placed)

    @staticmethod
    def _parse_rows(text: str, rows_text: str) -> list[str]:
        rows = rows_text.split("/")
        if len(rows) != ROWS:
            raise PositionError(f"dvonn position {text!r}: expected 5 rows, got {len(rows)}")
        stacks = [""] * TOTAL
        for n, row_text in enumerate(rows):
            row = ROWS - 1 - n
            cells: list[str] = []
            i = 0
            while i < len(row_text):
                ch = row_text[i]
                if ch.isdigit():
                    j = i
                    while j < len(row_text) and row_text[j].isdigit():
                        j += 1
                    cells.extend([""] * int(row_text[i:j]))
                    i = j
                    continue
                if ch in "WBD":
                    cells.append(ch)
                elif ch in "wbd":
                    if not cells or not cells[-1]:
                        raise PositionError(
                            f"dvonn position {text!r}: row {row + 1} has lower-case {ch!r} with "
                            "no stack under it (a stack starts with an upper-case piece)"
                        )
                    cells[-1] += ch.upper()
                else:
                    raise PositionError(
                        f"dvonn position {text!r}: row {row + 1} has unexpected {ch!r}"
                    )
                i += 1
            want = len(ROW_CELLS[row])
            if len(cells) != want:
                raise PositionError(
                    f"dvonn position {text!r}: row {row + 1} describes {len(cells)} spaces, "
                    f"it has {want}"
                )
            for index, stack in zip(ROW_CELLS[row], cells, strict=True):
                stacks[index] = stack
        return stacks

    @staticmethod
    def _check(text: str, stacks: list[str], side: int, placed: int) -> None:
        """Reject boards the rules cannot reach, so every later invariant holds."""
        counts = {p: sum(s.count(p) for s in stacks) for p in "WBD"}
        for index, stack in enumerate(stacks):
            if len(stack) > 1 and stack[-1] == "D":
                raise PositionError(
                    f"dvonn position {text!r}: the stack on {NAMES[index]} has a DVONN piece on "
                    "top; only a lone DVONN can show a DVONN on top"
                )
        if placed < TOTAL:
            expected = {"W": 0, "B": 0, "D": 0}
            for k in range(placed):
                expected[_placement_piece(k)] += 1
            if any(len(s) > 1 for s in stacks) or counts != expected:
                raise PositionError(
                    f"dvonn position {text!r}: after {placed} placements the board must hold "
                    f"single pieces W={expected['W']} B={expected['B']} D={expected['D']}, "
                    f"found W={counts['W']} B={counts['B']} D={counts['D']}"
                )
            if side != placed % 2:
                raise PositionError(
                    f"dvonn position {text!r}: placement {placed + 1} is "
                    f"{Dvonn.SIDE_LABELS[placed % 2]}'s, not {Dvonn.SIDE_LABELS[side]}'s"
                )
            return
        if counts["D"] != N_DVONN or counts["W"] > N_EACH or counts["B"] > N_EACH:
            raise PositionError(
                f"dvonn position {text!r}: the movement phase needs 3 DVONN pieces and at most "
                f"23 of each colour, found W={counts['W']} B={counts['B']} D={counts['D']}"
            )
        reached = _connected(stacks)
        for index, stack in enumerate(stacks):
            if stack and not reached[index]:
                raise PositionError(
                    f"dvonn position {text!r}: the stack on {NAMES[index]} is not connected to "
                    "any DVONN piece (it would have been removed)"
                )

    def copy(self) -> Self:
        twin = type(self)(list(self._stacks), self._side, self._placed)
        self._copy_history(twin)
        twin._undo = list(self._undo)
        return twin

    # ----- state --------------------------------------------------------------------------
    @property
    def placed(self) -> int:
        """Pieces placed so far (49 once the movement phase has begun)."""
        return self._placed

    @property
    def in_placement(self) -> bool:
        return self._placed < TOTAL

    def stack(self, cell: str) -> str:
        """The stack on ``cell`` (``"E3"``), bottom to top in W/B/D letters; ``""`` if empty."""
        return self._stacks[NAME_INDEX[cell]]

    def scores(self) -> tuple[int, int]:
        """Pieces (DVONN included) in the stacks each side controls, (white, black)."""
        white = black = 0
        for s in self._stacks:
            if s:
                if s[-1] == "W":
                    white += len(s)
                elif s[-1] == "B":
                    black += len(s)
        return white, black

    def position(self) -> str:
        rows = []
        for row in range(ROWS - 1, -1, -1):
            parts: list[str] = []
            empty = 0
            for index in ROW_CELLS[row]:
                s = self._stacks[index]
                if not s:
                    empty += 1
                    continue
                if empty:
                    parts.append(str(empty))
                    empty = 0
                parts.append(s[0] + s[1:].lower())
            if empty:
                parts.append(str(empty))
            rows.append("".join(parts))
        return f"{'/'.join(rows)} {_SIDE_CHARS[self._side]} {self._placed}"

    def diagram(self) -> str:
        """Rows 5..1 as in docs/rules.md; a cell shows its top piece and height, ``+`` = holds a
        DVONN under the top, ``.`` = empty."""
        lines = []
        for row in range(ROWS - 1, -1, -1):
            line = [" "] * 60
            for index in ROW_CELLS[row]:
                x, y = CELLS[index]
                s = self._stacks[index]
                label = "." if not s else f"{s[-1]}{len(s)}{'+' if 'D' in s[:-1] else ''}"
                col = (2 * x - y + 2) * 2 + 3
                line[col : col + len(label)] = list(label)
            lines.append(f"{row + 1} " + "".join(line).rstrip())
        white, black = self.scores()
        if self.in_placement:
            phase = f"placement {self._placed}/49"
        else:
            phase = f"movement, W {white} B {black}"
        lines.append(f"{self.SIDE_LABELS[self._side]} to move; {phase}")
        return "\n".join(lines)

    def board_view(self) -> BoardView:
        cells = []
        for index, (x, y) in enumerate(CELLS):
            s = self._stacks[index]
            if not s:
                cells.append(CellView(x=x, y=y))
                continue
            side = None if s[-1] == "D" else _TOPS.index(s[-1])
            cells.append(
                CellView(x=x, y=y, piece=str(len(s)), side=side, extra="dvonn" if "D" in s else "")
            )
        white, black = self.scores()
        who = self.SIDE_LABELS[self._side]
        if self.in_placement:
            caption = f"placement {self._placed}/49, {who} to place"
        else:
            caption = f"white {white} - black {black}, {who} to move"
        return BoardView(shape="hex", columns=COLUMNS, rows=ROWS, cells=cells, caption=caption)

    def repetition_key(self) -> Hashable:
        return (tuple(self._stacks), self._side, self._placed)

    # ----- moves --------------------------------------------------------------------------
    def _movements(self, side: int) -> list[int]:
        stacks = self._stacks
        top = _TOPS[side]
        out: list[int] = []
        for origin in range(TOTAL):
            s = stacks[origin]
            if not s or s[-1] != top:
                continue
            around = NEIGHBOURS[origin]
            if len(around) == 6 and all(stacks[n] for n in around):
                continue
            base = (origin + 1) * 64
            for target in JUMPS[origin][len(s)]:
                if stacks[target]:
                    out.append(base + target)
        return out

    def _can_move(self, side: int) -> bool:
        stacks = self._stacks
        top = _TOPS[side]
        for origin in range(TOTAL):
            s = stacks[origin]
            if not s or s[-1] != top:
                continue
            around = NEIGHBOURS[origin]
            if len(around) == 6 and all(stacks[n] for n in around):
                continue
            for target in JUMPS[origin][len(s)]:
                if stacks[target]:
                    return True
        return False

    def moves(self) -> list[int]:
        if self._placed < TOTAL:
            return [i for i in range(TOTAL) if not self._stacks[i]]
        found = self._movements(self._side)
        if found:
            return found
        return [PASS] if self._can_move(1 - self._side) else []

    def push(self, move: int) -> None:
        stacks = self._stacks
        if move == PASS:
            self._undo.append((self._side,))
            self._side ^= 1
        elif move < 64:
            self._undo.append((self._side,))
            stacks[move] = _placement_piece(self._placed)
            self._placed += 1
            self._side = self._placed % 2 if self._placed < TOTAL else P1
        else:
            origin, target = _decode(move)
            moving = stacks[origin]
            under = stacks[target]
            stacks[target] = under + moving
            stacks[origin] = ""
            removed = _remove_disconnected(stacks)
            self._undo.append((self._side, moving, under, removed))
            self._side ^= 1
        self._record(move)

    def pop(self) -> int:
        move = self._unrecord()
        undo = self._undo.pop()
        self._side = undo[0]
        if move == PASS:
            pass
        elif move < 64:
            self._stacks[move] = ""
            self._placed -= 1
        else:
            origin, target = _decode(move)
            stacks = self._stacks
            for index, s in undo[3]:
                stacks[index] = s
            stacks[origin] = undo[1]
            stacks[target] = undo[2]
        return move

    def format_move(self, move: int) -> str:
        if move == PASS:
            return "pass"
        if move < 64:
            return NAMES[move]
        origin, target = _decode(move)
        return NAMES[origin] + NAMES[target]

    def parse_move(self, text: str) -> int:
        if text == "pass":
            move = PASS
        elif len(text) == 2 and _CELL_RE.fullmatch(text) and text in NAME_INDEX:
            move = NAME_INDEX[text]
        elif (
            len(text) == 4
            and _CELL_RE.fullmatch(text[:2])
            and _CELL_RE.fullmatch(text[2:])
            and text[:2] in NAME_INDEX
            and text[2:] in NAME_INDEX
        ):
            move = _encode(NAME_INDEX[text[:2]], NAME_INDEX[text[2:]])
        else:
            raise MoveSyntaxError(
                f"dvonn move {text!r} is not notation: expected a space such as 'E3' (placement),"
                " two spaces such as 'I1J2' (movement) or 'pass'; spaces are A-K with row 1-5 "
                "on the board drawn in docs/rules.md"
            )
        if move not in self.moves():
            raise IllegalMove(text, self.position(), self._why_illegal(move))
        return move

    def _why_illegal(self, move: int) -> str:
        if self.outcome() is not None:
            return "the game is over"
        if self._placed < TOTAL:
            if move == PASS or move >= 64:
                return f"still in the placement phase ({self._placed} of 49 pieces placed)"
            return f"{NAMES[move]} is already occupied"
        if move == PASS:
            return "pass is allowed only when you have no movement"
        if move < 64:
            return "the placement phase is over; a movement is written like 'I1J2'"
        if not self._can_move(self._side):
            return "you have no movement: you must pass"
        origin, target = _decode(move)
        s = self._stacks[origin]
        if not s:
            return f"there is no piece on {NAMES[origin]}"
        if s == "D":
            return "a lone DVONN piece never moves"
        if s[-1] != _TOPS[self._side]:
            return f"the stack on {NAMES[origin]} belongs to {self.SIDE_LABELS[_TOPS.index(s[-1])]}"
        around = NEIGHBOURS[origin]
        if len(around) == 6 and all(self._stacks[n] for n in around):
            return f"{NAMES[origin]} is surrounded by 6 occupied spaces and cannot move"
        if target not in JUMPS[origin][len(s)]:
            return f"a stack of height {len(s)} moves exactly {len(s)} space(s) in a straight line"
        return f"a move must land on an occupied space; {NAMES[target]} is empty"

    # ----- ends ---------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        if self._placed < TOTAL or self._can_move(self._side) or self._can_move(1 - self._side):
            return None
        white, black = self.scores()
        detail = f"white {white} - black {black}"
        if white == black:
            return Outcome(None, "draw", f"neither side can move; {detail}")
        winner = P1 if white > black else P2
        return Outcome(winner, "score", f"neither side can move; {detail}")

    # ----- counting -----------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Same count as the generic perft, without the notation or history bookkeeping."""
        if depth == 0:
            return 1
        empty = TOTAL - self._placed
        if empty > 0 and depth <= empty:
            # Placement positions with k empty spaces have exactly k moves, so until the board is
            # full the leaf count is a falling factorial; no need to walk the tree.
            total = 1
            for k in range(empty, empty - depth, -1):
                total *= k
            return total
        moves = self.moves()
        if depth == 1:
            return len(moves)
        total = 0
        push, pop, perft = self.push, self.pop, self.perft
        for move in moves:
            push(move)
            total += perft(depth - 1)
            pop()
        return total


def _connected(stacks: list[str]) -> list[bool]:
    """Which spaces reach a DVONN-holding space through a chain of occupied neighbours."""
    reached = [False] * TOTAL
    todo = [i for i in range(TOTAL) if "D" in stacks[i]]
    for i in todo:
        reached[i] = True
    while todo:
        i = todo.pop()
        for n in NEIGHBOURS[i]:
            if not reached[n] and stacks[n]:
                reached[n] = True
                todo.append(n)
    return reached


def _remove_disconnected(stacks: list[str]) -> list[tuple[int, str]]:
    """Empty every space cut off from all DVONN pieces; return what was removed, for undo."""
    reached = _connected(stacks)
    removed = [(i, s) for i, s in enumerate(stacks) if s and not reached[i]]
    for i, _ in removed:
        stacks[i] = ""
    return removed
