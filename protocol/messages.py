"""Every message of the bot protocol, both ways, as typed msgspec Structs (see SPEC.md).

The tag of each Struct is its command word on the wire, so a message is also a tagged JSON
object (``{"cmd": "bestmove", "move": "b2b3"}``) for transcripts and tests. Two unions:
:data:`Command` (referee -> bot) and :data:`Reply` (bot -> referee). Text <-> message
conversion lives in :mod:`protocol.lines`; this module holds data only.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

import msgspec


class _Msg(msgspec.Struct, tag_field="cmd", forbid_unknown_fields=True, omit_defaults=True):
    """Base of every message; the subclass's ``tag`` is the command word."""


# ----- referee -> bot ---------------------------------------------------------------------


class Ugi(_Msg, tag="ugi"):
    """Start of the handshake (``uci`` in the UCI dialect)."""


class IsReady(_Msg, tag="isready"):
    """Synchronisation: the bot answers ``readyok`` once it has processed everything before."""


class SetOption(_Msg, tag="setoption"):
    """``setoption name N value V``; ``value`` is None for a button option."""

    name: str
    value: str | None = None


class GameAnnounce(_Msg, tag="game"):
    """``game <name> [key=value ...]``: which game the next games are, and its game options."""

    name: str
    options: dict[str, str] = {}


class UgiNewGame(_Msg, tag="uginewgame"):
    """The next position belongs to a new game (``ucinewgame`` in the UCI dialect)."""


class Position(_Msg, tag="position"):
    """``position startpos|fen <text> [moves m1 m2 ...]``; ``fen`` None means the start."""

    fen: str | None = None
    moves: list[str] = []


class Legal(_Msg, tag="legal"):
    """``legal m1 m2 ...``: the legal moves of the position just sent (native dialect)."""

    moves: list[str] = []


class Go(_Msg, tag="go"):
    """``go``: search and answer ``bestmove``. Times in milliseconds; p1/p2 are the sides."""

    p1time: int | None = None
    p2time: int | None = None
    p1inc: int | None = None
    p2inc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False


class Stop(_Msg, tag="stop"):
    """Answer ``bestmove`` now (after ``go infinite`` or to cut a search short)."""


class GameOver(_Msg, tag="gameover"):
    """``gameover <result> <termination> [score S1 S2] [string <text>]`` (informative)."""

    result: str
    termination: str
    score: list[int] = []
    text: str = ""


class Partie(_Msg, tag="partie"):
    """``partie <winner> <points> <score1> <score2>``: a Donkan partie ended (informative).

    ``winner`` is ``p1``, ``p2`` or ``none``; the scores are the round's totals after it."""

    winner: Literal["p1", "p2", "none"]
    points: int
    score1: int
    score2: int


class Quit(_Msg, tag="quit"):
    """Exit as soon as possible."""


Command = (
    Ugi | IsReady | SetOption | GameAnnounce | UgiNewGame | Position | Legal | Go | Stop
    | GameOver | Partie | Quit
)

# ----- bot -> referee ---------------------------------------------------------------------


class Id(_Msg, tag="id"):
    """``id name X`` or ``id author Y``."""

    key: Literal["name", "author"]
    value: str


class OptionDecl(_Msg, tag="option"):
    """``option name N type T [default D] [min A] [max B] [var V]...`` (UCI syntax)."""

    name: str
    type: Literal["spin", "check", "combo", "string", "button"]
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: list[str] = []


class UgiOk(_Msg, tag="ugiok"):
    """End of the handshake (``uciok`` in the UCI dialect)."""


class ReadyOk(_Msg, tag="readyok"):
    """Answer to ``isready``."""


class BestMove(_Msg, tag="bestmove"):
    """``bestmove <move> [ponder <move>]``; UCI engines may say ``(none)``."""

    move: str
    ponder: str | None = None


class SearchInfo(msgspec.Struct, omit_defaults=True):
    """Search statistics, as a bot reports them in ``info`` (every field optional): the fields
    of :class:`Info`, and on their own what a game record keeps of a move's last report
    (:class:`referee.record.MoveRecord`), hence the JSON names of the journal."""

    depth: int | None = None
    seldepth: int | None = None
    score_cp: int | None = None
    score_mate: int | None = None
    nodes: int | None = None
    nps: int | None = None
    time_ms: int | None = None
    """The search's time so far in milliseconds (the word ``time`` on the wire)."""
    pv: list[str] = []
    pv_more: int = 0
    """Moves of the pv left out by the cap (``protocol.bounds.MAX_PV_MOVES``); not on the wire."""
    string: str | None = None


class Info(SearchInfo, _Msg, tag="info"):
    """``info ...``: search statistics (the fields of :class:`SearchInfo`); unknown keys
    skipped."""


Reply = Id | OptionDecl | UgiOk | ReadyOk | BestMove | Info
Message = Command | Reply


@cache
def _json_decoder() -> msgspec.json.Decoder[Message]:
    """Made on first use, not on import: msgspec resolves every message type when a decoder is
    made, and a referee playing its games never reads JSON messages (issue 40)."""
    return msgspec.json.Decoder(Message)


def to_json(message: Message) -> bytes:
    """The message as one tagged JSON object (for transcripts and test fixtures)."""
    return msgspec.json.encode(message)


def from_json(data: bytes | str) -> Message:
    """Read a tagged JSON message back; msgspec errors name the bad field."""
    return _json_decoder().decode(data)
