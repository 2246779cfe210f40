"""The dialects a bot may speak, one connection class each over :mod:`referee.connection`.

``native`` is the arena's own protocol (protocol/SPEC.md), ``uci`` plain UCI for engines such
as Fairy-Stockfish, ``hub`` the Hub protocol of draughts engines such as Scan. A bot's config
picks one with ``protocol = "..."``. :func:`start_connection` starts a bot and wraps it in its
dialect's class: the caller picks the class (python-chess's ``popen_uci``), so that the base
class never imports its subclasses.
"""

from __future__ import annotations

from pathlib import Path

from referee.botspec import BotSpec
from referee.channel import LineChannel, RecordingChannel
from referee.connection import BotConnection
from referee.dialects.hub import HubConnection
from referee.dialects.native import NativeConnection
from referee.dialects.uci import UciConnection
from referee.process.botprocess import BotProcess
from referee.process.spawn import Launched

DIALECTS: dict[str, type[BotConnection]] = {
    "native": NativeConnection,
    "uci": UciConnection,
    "hub": HubConnection,
}


def connection_class(protocol: str) -> type[BotConnection]:
    """The connection class for a ``protocol`` name (the config has checked the name)."""
    try:
        return DIALECTS[protocol]
    except KeyError:
        raise ValueError(f"unknown protocol {protocol!r} (known: {', '.join(DIALECTS)})") from None


async def start_connection(spec: BotSpec, stderr_path: Path | None = None,
                           launched: Launched | None = None) -> BotConnection:
    """Start the bot's process (or take over ``launched``, see :meth:`BotProcess.start`)
    and wrap it in the connection class of its dialect; a ``debug`` bot's lines are
    recorded (see :meth:`BotConnection.record_to`). No handshake yet."""
    channel: LineChannel = await BotProcess.start(spec, stderr_path, launched)
    if spec.debug:
        channel = RecordingChannel(channel, spec.name)
    return connection_class(spec.protocol)(channel, spec)


__all__ = ["DIALECTS", "HubConnection", "NativeConnection", "UciConnection", "connection_class",
           "start_connection"]
