"""PGN export of game records, so that Ordo, BayesElo and other PGN tools can rate our games.

PGN was made for chess, but rating tools only need the tag pairs (White, Black, Result) and a
well-formed movetext; our moves are written as-is (each game's own notation is one token
without spaces) with move numbers, and the game's name goes in the ``Variant`` tag.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from referee.record import GameRecord, Termination

LINE_WIDTH: Final = 79
"""PGN export format: movetext lines of at most 79 characters."""

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
}


def _tag_value(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    """A PGN comment cannot contain '}'."""
    return "{" + text.replace("}", ")").replace("{", "(").strip() + "}"


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
    if record.id:
        tags.append(("GameId", record.id))
    if record.tags.get("pair"):
        tags.append(("PairId", record.tags["pair"]))
    if not _start_position_is_standard(record):
        tags += [("SetUp", "1"), ("FEN", record.start_position)]
    if record.score:
        tags.append(("Score", "-".join(str(s) for s in record.score)))
    head = "".join(f'[{name} "{_tag_value(value)}"]\n' for name, value in tags)

    tokens: list[str] = []
    book = sum(1 for m in record.moves if m.book)
    for ply, move in enumerate(moves):
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + 1}.")
        tokens.append(move)
        if book and ply == book - 1:
            tokens.append(_comment("end of opening"))
    if record.reason:
        tokens.append(_comment(record.reason))
    tokens.append(record.result)
    return head + "\n" + _wrap(tokens) + "\n\n"


def _wrap(tokens: Iterable[str]) -> str:
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return "\n".join(lines)


def write_pgn(
    records: Iterable[GameRecord], path: Path, *, event: str = "?", site: str = "?"
) -> int:
    """(Re)write a whole PGN file from records; returns the number of games written."""
    count = 0
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for record in records:
            f.write(game_to_pgn(record, event=event, site=site))
            count += 1
    tmp.replace(path)
    return count


def append_pgn(record: GameRecord, path: Path, *, event: str = "?", site: str = "?") -> None:
    """Append one game to a PGN file (the journal, not this file, is what must be durable)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(game_to_pgn(record, event=event, site=site))
