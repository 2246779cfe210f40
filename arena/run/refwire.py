"""The messages between ``arena run`` and its referee processes (``--referees N``), and how
they are framed on the pipes between them.

Each message is a msgspec struct, tagged by its kind, encoded as MessagePack and sent as one
frame: a 4-byte big-endian length, then the payload. Both sides decode into these fixed types
only (``msgspec.msgpack.Decoder(ToReferee | FromReferee)``): nothing is unpickled, and a frame
that is not one of them is an error naming what was wrong, not an object of the sender's
choice.

The runner sends :class:`Play` (a batch of games of one pairing, played in turn) and
:class:`Stop` (no new games: each batch ends after its running game). A referee process answers
per game, as the cluster's workers do (:mod:`arena.cluster.worker`): :class:`Started` and
:class:`Moves` while a game runs long enough for its live file, :class:`Done` with the record,
:class:`Failed` for a game that cannot be played (not journaled), :class:`Fault` when the
machine kept a game from starting, :class:`End` when a batch is over, and :class:`Note` for a
once-only warning (sandbox, limits) that the runner says once for all its referee processes.
"""

from __future__ import annotations

import struct
from typing import Final

import msgspec

from referee.order import GameOrder
from referee.record import GameRecord, MoveRecord

HEADER: Final = struct.Struct(">I")
MAX_FRAME: Final = 256 << 20
"""The largest frame either side accepts (a batch of 64 orders is a few kilobytes, a record
with its moves tens of kilobytes)."""


class Play(msgspec.Struct, tag="play"):
    """Play these games in turn (one pairing: the runner's batch), stopping at :class:`Stop`."""

    batch: str
    orders: list[GameOrder]


class Stop(msgspec.Struct, tag="stop"):
    """The run schedules no more games: every batch ends after its running game."""


class Started(msgspec.Struct, tag="started"):
    """A game has been running for a while: its live file starts (a short game sends none)."""

    batch: str
    game: str


class Moves(msgspec.Struct, tag="moves"):
    """A running game's moves since the last :class:`Moves` (for its live file)."""

    batch: str
    game: str
    moves: list[MoveRecord]


class Done(msgspec.Struct, tag="done"):
    """A game's record, to journal."""

    batch: str
    record: GameRecord


class Failed(msgspec.Struct, tag="failed"):
    """A game the referee raised on (a bad opening, a referee bug): not journaled."""

    batch: str
    game: str
    text: str


class Fault(msgspec.Struct, tag="fault"):
    """The machine kept a game from starting after every retry: the run stops (the game is
    played on resume). The batch ends with it."""

    batch: str
    game: str
    text: str


class End(msgspec.Struct, tag="end"):
    """A batch is over: its games not sent back were not played (stopped)."""

    batch: str


class Note(msgspec.Struct, tag="note"):
    """A line the referee process would have printed once on its stderr."""

    text: str


ToReferee = Play | Stop
FromReferee = Started | Moves | Done | Failed | Fault | End | Note


class BadFrame(Exception):
    """A frame too large, or a payload that is none of the messages."""


def frame(message: ToReferee | FromReferee) -> bytes:
    """One message as it goes on the pipe."""
    payload = msgspec.msgpack.encode(message)
    return HEADER.pack(len(payload)) + payload


class Frames:
    """Cuts the bytes read from a pipe into messages of ``kind`` (its decoder reused)."""

    def __init__(self, kind: type[ToReferee] | type[FromReferee]) -> None:
        self._decoder: msgspec.msgpack.Decoder[ToReferee | FromReferee] = (
            msgspec.msgpack.Decoder(kind))
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[ToReferee | FromReferee]:
        """The messages completed by ``data``; raises :class:`BadFrame`."""
        self._buffer += data
        found: list[ToReferee | FromReferee] = []
        start = 0
        while len(self._buffer) - start >= HEADER.size:
            (size,) = HEADER.unpack_from(self._buffer, start)
            if size > MAX_FRAME:
                raise BadFrame(f"a frame of {size} bytes (at most {MAX_FRAME})")
            end = start + HEADER.size + size
            if len(self._buffer) < end:
                break
            try:
                found.append(self._decoder.decode(self._buffer[start + HEADER.size:end]))
            except msgspec.DecodeError as exc:  # ValidationError included
                raise BadFrame(f"a message that is none of the expected kinds: {exc}") from None
            start = end
        del self._buffer[:start]
        return found

    @property
    def pending(self) -> int:
        """Bytes of an incomplete frame held."""
        return len(self._buffer)
