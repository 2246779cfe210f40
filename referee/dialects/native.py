"""The arena's own protocol (protocol/SPEC.md): ``ugi``, ``game``, ``legal``, ``go p1time``."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from protocol.lines import format_message, parse_reply
from protocol.messages import (
    GameAnnounce,
    GameOver,
    IsReady,
    Legal,
    Partie,
    Position,
    Reply,
    SetOption,
    Ugi,
    UgiNewGame,
)
from referee.connection import BotConnection, BotError, Turn, option_text


class NativeConnection(BotConnection):
    """Strict after the handshake (an unknown line is a protocol error); the position as the
    start plus every move, the legal moves when the bot's config asks, and ``gameover`` and
    ``partie`` notices."""

    dialect = "native"
    strict = True

    def hello_lines(self) -> list[str]:
        return [format_message(Ugi())]

    def option_lines(self, options: Mapping[str, object]) -> list[str]:
        return [format_message(SetOption(name=k, value=option_text(v)))
                for k, v in options.items()]

    def sync_lines(self) -> list[str]:
        return [format_message(IsReady())]

    def new_game_lines(self, game: str, game_options: Mapping[str, str]) -> list[str]:
        return [format_message(GameAnnounce(name=game, options=dict(game_options))),
                format_message(UgiNewGame()), format_message(IsReady())]

    def search_lines(self, turn: Turn) -> list[str]:
        lines = [format_message(Position(fen=turn.start, moves=list(turn.played)))]
        if self.spec.legal:
            lines.append(format_message(Legal(moves=list(turn.legal))))
        lines.append(format_message(turn.go))
        return lines

    def parse(self, line: str) -> Reply | None:
        return parse_reply(line)

    async def game_over(self, message: GameOver) -> None:
        if self.alive:
            with contextlib.suppress(BotError):
                await self.send_lines([format_message(message)])

    async def partie(self, message: Partie) -> None:
        if self.alive:
            with contextlib.suppress(BotError):
                await self.send_lines([format_message(message)])
