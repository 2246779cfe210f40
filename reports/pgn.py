"""PGN export of game records, so that Ordo, BayesElo and other PGN tools can rate our games.

PGN was made for chess, but rating tools only need the tag pairs (White, Black, Result) and a
well-formed movetext; our moves are written as-is (each game's own notation is one token
without spaces) with move numbers, and the game's name goes in the ``Variant`` tag.

International draughts games are PDN, the draughts form of PGN that draughts programs read:
``[GameType "20"]`` (international draughts, 10x10), and when the game did not start from the
standard position a ``FEN`` tag in PDN square notation (``W:W31,32,...:B1,...,K17``: every
square listed, kings with ``K``). Results stay ``1-0``/``0-1``/``1/2-1/2``, which draughts
readers accept and rating tools (Ordo) need. A game whose first move is the second player's
(a draughts position with black to move) starts its movetext with ``1...``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, Final

from arena.atomicfile import write_with
from arena.openings.pgntext import comment, tag_value, wrap
from referee.record import GameRecord, Termination

# PGN's Termination tag has its own vocabulary; these are the words cutechess-cli uses.
PGN_TERMINATION: Final[dict[str, str]] = {
    Termination.NORMAL: "normal",
    Termination.ADJUDICATION: "adjudication",
    Termination.TIME_FORFEIT: "time forfeit",
    Termination.ILLEGAL_MOVE: "illegal move",
    Termination.CRASH: "abandoned",
    Termination.STALL: "stalled connection",
    Termination.PROTOCOL_ERROR: "rules infraction",
    Termination.INTERRUPT: "unterminated",
    Termination.RESIGNATION: "normal",  # PGN's word for a game resigned, as for one mated
}


def _date(timestamp: float) -> str:
    if timestamp <= 0:
        return "????.??.??"
    return time.strftime("%Y.%m.%d", time.gmtime(timestamp))


def _start_position_is_standard(record: GameRecord) -> bool:
    if not record.start_position or record.start_position == "startpos":
        return True
    try:
        from referee.games import get_game

        return bool(record.start_position == get_game(record.game).START_POSITION)
    except Exception:  # an unknown game: just write the FEN tag
        return False


PDN_GAME_TYPES: Final[dict[str, str]] = {"draughts": "20"}
"""PDN ``GameType`` numbers of our games (20: international draughts on 10x10)."""


def pdn_fen(position: str) -> str:
    """A draughts position text as a PDN FEN tag value, every square written out."""
    from referee.games import get_game

    board: Any = get_game("draughts").from_position(position)  # draughts: piece_at(square)
    sides: tuple[list[str], list[str]] = ([], [])
    for square in range(1, 51):
        piece = board.piece_at(square)
        if piece is not None:
            side, kind = piece
            sides[side].append(("K" if kind == "K" else "") + str(square))
    return ("W" if board.side_to_move == 0 else "B") + \
        f":W{','.join(sides[0])}:B{','.join(sides[1])}"


def _fen_tag(record: GameRecord) -> str:
    if record.game in PDN_GAME_TYPES:
        try:
            return pdn_fen(record.start_position)
        except Exception:  # noqa: BLE001 - a record the rules cannot read: keep its text
            return record.start_position
    return record.start_position


def game_to_pgn(record: GameRecord, *, event: str = "?", site: str = "?") -> str:
    """One game as PGN text: tag pairs, a blank line, movetext ending with the result, a blank line.

    Moves come from ``record.moves`` (opening moves included, marked as book by the referee);
    a record without them falls back to ``record.opening``.
    """
    moves = [m.move for m in record.moves] or list(record.opening)
    tags: list[tuple[str, object]] = [
        ("Event", event or "?"),
        ("Site", site or "?"),
        ("Date", _date(record.started_at)),
        ("Round", record.round),
        ("White", record.p1),
        ("Black", record.p2),
        ("Result", record.result),
        ("Termination", PGN_TERMINATION.get(record.termination, str(record.termination))),
        ("TimeControl", record.time_control or "-"),
        ("Variant", record.game),
        ("PlyCount", len(moves)),
    ]
    if record.game in PDN_GAME_TYPES:
        tags.insert(8, ("GameType", PDN_GAME_TYPES[record.game]))
    if record.id:
        tags.append(("GameId", record.id))
    if record.tags.get("pair"):
        tags.append(("PairId", record.tags["pair"]))
    if not _start_position_is_standard(record):
        tags += [("SetUp", "1"), ("FEN", _fen_tag(record))]
    if record.score:
        tags.append(("Score", "-".join(str(s) for s in record.score)))
    head = "".join(f'[{name} "{tag_value(value)}"]\n' for name, value in tags)

    tokens: list[str] = []
    book = sum(1 for m in record.moves if m.book)
    second_first = bool(record.moves) and record.moves[0].side == 1
    if second_first and moves:
        tokens.append("1...")
    for ply, move in enumerate(moves):
        at = ply + second_first  # plies counted as if the first player had moved first
        if at % 2 == 0:
            tokens.append(f"{at // 2 + 1}.")
        tokens.append(move)
        if book and ply == book - 1:
            tokens.append(comment("end of opening"))
    if record.reason:
        tokens.append(comment(record.reason))
    tokens.append(record.result)
    return head + "\n" + "\n".join(wrap(tokens)) + "\n\n"


def write_pgn(
    records: Iterable[GameRecord], path: Path, *, event: str = "?", site: str = "?"
) -> int:
    """(Re)write a whole PGN file from records (whole or not at all); returns the number of
    games written."""
    count = 0

    def write(tmp: Path) -> None:
        nonlocal count
        with open(tmp, "w", encoding="utf-8") as f:
            for record in records:
                f.write(game_to_pgn(record, event=event, site=site))
                count += 1

    write_with(path, write)
    return count


def append_pgn(record: GameRecord, path: Path, *, event: str = "?", site: str = "?") -> None:
    """Append one game to a PGN file (the journal, not this file, is what must be durable)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(game_to_pgn(record, event=event, site=site))


class PgnAppender:
    """A run's PGN, appended game by game through one file kept open: opened on the first
    game, flushed after each (a killed run loses no game the PGN was told of; the journal,
    not this file, is what must be durable), closed by :meth:`close`. A write that fails
    raises ``OSError`` and closes the file; the next game opens it again."""

    def __init__(self, path: Path, *, event: str = "?", site: str = "?") -> None:
        self.path = path
        self.event = event
        self.site = site
        self._file: IO[str] | None = None

    def append(self, record: GameRecord) -> None:
        text = game_to_pgn(record, event=self.event, site=self.site)
        try:
            if self._file is None:
                self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._file.write(text)
            self._file.flush()
        except OSError:
            self.close()
            raise

    def close(self) -> None:
        """Close the file (a no-op when it is not open); never raises."""
        if self._file is not None:
            file, self._file = self._file, None
            with contextlib.suppress(OSError):
                file.close()
