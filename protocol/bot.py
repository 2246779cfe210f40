"""A tiny engine loop for Python bot authors: handshake, state tracking, ``bestmove`` replies.

Write one function ``choose(position, legal_moves, go) -> move`` and call :func:`run_bot`;
the loop answers ``ugi``/``isready``, remembers the game, the position and the ``legal`` line,
and waits for ``stop`` after ``go infinite`` as SPEC.md requires. Standard library and
:mod:`protocol.lines` only, so a bot pays nothing for the rest of the arena.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from protocol.lines import ProtocolError, parse_command
from protocol.messages import (
    GameAnnounce,
    Go,
    IsReady,
    Legal,
    Position,
    Quit,
    SetOption,
    Stop,
    Ugi,
    UgiNewGame,
)


@dataclass
class BotPosition:
    """What the bot knows about the current position: the game, where it started, the moves."""

    game: str = ""
    game_options: dict[str, str] = field(default_factory=dict)
    fen: str | None = None
    """Start position text, None for the game's standard start."""
    moves: list[str] = field(default_factory=list)
    options: dict[str, str | None] = field(default_factory=dict)
    """Engine options set with ``setoption``."""


Choose = Callable[[BotPosition, list[str], Go], str]


def run_bot(
    choose: Choose,
    *,
    name: str,
    author: str = "anonymous",
    options: Sequence[str] = (),
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Serve the protocol on stdin/stdout until ``quit`` or end of input; returns 0.

    ``options`` are declaration lines (``option name Seed type spin default 0 min 0 max 9``)
    sent during the handshake."""
    rd = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout

    def send(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    position = BotPosition()
    legal: list[str] = []
    for raw in rd:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        try:
            command = parse_command(line)
        except ProtocolError as exc:
            print(f"{name}: ignoring bad command: {exc}", file=sys.stderr)
            continue
        match command:
            case Ugi():
                send(f"id name {name}")
                send(f"id author {author}")
                for decl in options:
                    send(decl)
                send("ugiok")
            case IsReady():
                send("readyok")
            case SetOption(name=opt, value=value):
                position.options[opt] = value
            case GameAnnounce(name=game, options=game_options):
                position.game, position.game_options = game, dict(game_options)
            case UgiNewGame():
                legal = []
            case Position(fen=fen, moves=moves):
                position.fen, position.moves, legal = fen, list(moves), []
            case Legal(moves=moves):
                legal = list(moves)
            case Go() as go:
                move = choose(position, legal, go)
                if go.infinite and not _wait_for_stop(rd, send):
                    return 0
                send(f"bestmove {move}")
            case Quit():
                return 0
            case _:
                pass  # unknown or informative (gameover, partie, stop without search)
    return 0


def _wait_for_stop(rd: BinaryIO, send: Callable[[str], None]) -> bool:
    """After ``go infinite``: keep answering ``isready`` until ``stop``; False on quit/EOF."""
    for raw in rd:
        try:
            command = parse_command(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except ProtocolError:
            continue
        if isinstance(command, Stop):
            return True
        if isinstance(command, IsReady):
            send("readyok")
        if isinstance(command, Quit):
            return False
    return False
