"""The dialects a bot may speak, one connection class each over :mod:`referee.connection`.

``native`` is the arena's own protocol (protocol/SPEC.md), ``uci`` plain UCI for engines such
as Fairy-Stockfish, ``hub`` the Hub protocol of draughts engines such as Scan. A bot's config
picks one with ``protocol = "..."``.
"""

from __future__ import annotations

from referee.connection import BotConnection
from referee.dialects.hub import HubConnection
from referee.dialects.native import NativeConnection
from referee.dialects.uci import UciConnection

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


__all__ = ["DIALECTS", "HubConnection", "NativeConnection", "UciConnection", "connection_class"]
