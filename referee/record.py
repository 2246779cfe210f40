"""What a finished game leaves behind: the typed game record, its moves and the end vocabulary.

The record is the contract between the layers: the referee writes it, the runner journals it
(one JSON line each), and the ratings and reports read it back. Keep it flat and explicit; add
fields with defaults so that old journals still decode.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Annotated, Final

import msgspec

from protocol.messages import SearchInfo
from referee.games.rounds import PartieRecord
from referee.latency import GameLatency


class Termination(StrEnum):
    """Why a game ended, in one vocabulary (after fastchess's)."""

    NORMAL = "normal"
    """The game's own rules ended it (den, capture, try, no moves, score...)."""
    ADJUDICATION = "adjudication"
    """A draw rule of docs/rules.md applied by the referee, or a move cap."""
    TIME_FORFEIT = "time-forfeit"
    """A bot ran over its clock plus the time margin."""
    ILLEGAL_MOVE = "illegal-move"
    """A bot played a move the rules do not allow here (``bestmove (none)`` included)."""
    CRASH = "crash"
    """A bot's process exited or closed its pipes during the game."""
    STALL = "stall"
    """A bot did not answer the handshake (``ugiok``/``readyok``) in time."""
    PROTOCOL_ERROR = "protocol-error"
    """A bot sent something the protocol forbids where a reply was due (garbage, overlong line)."""
    INTERRUPT = "interrupt"
    """The runner was stopped before the game ended; such games are replayed on resume. Result
    ``*``: a game of ``arena play`` or ``arena serve --play`` stopped half-way is written so."""
    RESIGNATION = "resignation"
    """A person in a human seat resigned (``resign``); bots never resign themselves (the score
    adjudication's resignations are ``adjudication``)."""


BOT_FAULTS: Final[tuple[Termination, ...]] = (
    Termination.TIME_FORFEIT, Termination.ILLEGAL_MOVE, Termination.CRASH, Termination.STALL,
    Termination.PROTOCOL_ERROR,
)
"""Terminations that are a bot's fault: the loser of such a game is the culprit (in the order
of the report's fault columns)."""

PROCESS_FAULTS: Final = frozenset(BOT_FAULTS) - {Termination.ILLEGAL_MOVE}
"""The bot faults that say the losing bot's process misbehaved: after one, its state (a search
still running, a half-read line, an answer still owed) cannot be trusted for another game.
An illegal move is not one of them: the bot answered in time and in the protocol, and the next
game gives it a whole new position (Fairy-Stockfish's ``bestmove (none)`` where its dobutsu
rules see no move and ours do is the common case, and no reason to reload the engine)."""

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

P1_POINTS: Final[dict[str, float]] = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
"""The first mover's (p1's) points for each finished result (``*`` has none): the one table
of points, for the ratings, the standings and the reports."""


class MoveRecord(msgspec.Struct, omit_defaults=True):
    """One move as the referee saw it."""

    move: str
    side: Annotated[int, msgspec.Meta(ge=0, le=1)]
    """0 = p1, 1 = p2."""
    elapsed_ms: float
    """From sending ``go`` to reading ``bestmove`` (0 for opening-book moves): wall time."""
    clock_ms: float | None = None
    """The mover's clock after the move (increment included); None without a clock."""
    info: SearchInfo | None = None
    book: bool = False
    """True for moves that came from the opening, not from a bot."""
    waited_ms: float = 0.0
    """The part of ``elapsed_ms`` spent waiting for a CPU (by the bot's threads, or by the
    referee after the bot's answer): not charged to its clock, which was charged
    ``elapsed_ms - waited_ms`` (:mod:`referee.process.schedstat`); 0 (and left out of the
    journal) when there was none or it was not measured."""


class GameRecord(msgspec.Struct, omit_defaults=True):
    """Everything about one finished (or aborted) game."""

    game: str
    """Registry name of the game (``draughts``, ``jungle``, ...)."""
    p1: str
    """Name of the bot that moved first."""
    p2: str
    result: str
    """``1-0`` (p1 won), ``0-1``, ``1/2-1/2``, or ``*`` for an interrupted game."""
    termination: Termination
    reason: str
    """A sentence for humans: ``"p2 (randbot) played illegal move 'a1a9'"``."""
    winner: int | None = None
    id: str = ""
    """Stable id from the schedule, e.g. ``"r1-p3-g2"``; empty for ad-hoc games."""
    round: int = 1
    start_position: str = ""
    """Position text the game started from (before the opening moves)."""
    opening: list[str] = []
    """Opening moves forced on both bots, as notation strings."""
    moves: list[MoveRecord] = []
    final_position: str = ""
    time_control: str = ""
    started_at: float = 0.0
    """Unix time (seconds)."""
    ended_at: float = 0.0
    plies: int = 0
    parties: list[PartieRecord] = []
    """Donkan only: every partie of the round."""
    score: list[int] = []
    """Donkan only: final points of p1 and p2."""
    options: dict[str, str] = {}
    """Game options in force (e.g. Donkan's ``target``)."""
    tags: dict[str, str] = {}
    """Extra data from the runner (pairing, opening index, ...)."""
    adjudication: str = ""
    """Which adjudication rule ended the game: ``resign`` or ``draw`` (score adjudication
    from the bots' own ``info score``), ``draw_rules`` (the game's draw rules), ``max_plies``
    (the move cap); empty when the game was not adjudicated."""
    worker: str | None = None
    """The Dask worker that played the game (``arena run --cluster``); None in a local run."""
    latency: GameLatency | None = None
    """The referee's and the bots' delays per move, summed up per side
    (:mod:`referee.latency`); None in journals written before it was measured."""


def result_for(winner: int | None) -> str:
    """PGN result string for a winner (0, 1 or None for a draw)."""
    if winner is None:
        return "1/2-1/2"
    return "1-0" if winner == 0 else "0-1"


def encode_record(record: GameRecord) -> bytes:
    """One JSON line, without the newline."""
    return msgspec.json.encode(record)


@cache
def _decoder() -> msgspec.json.Decoder[GameRecord]:
    """Made on first use, not on import: msgspec resolves the record's types (every move,
    latency and partie field) when a decoder is made, and a fresh ``arena run`` reads no record
    before its first game (issue 40)."""
    return msgspec.json.Decoder(GameRecord)


def decode_record(line: bytes | str) -> GameRecord:
    """Read one JSON line back; raises ``msgspec.ValidationError``/``DecodeError`` on bad input."""
    return _decoder().decode(line)
