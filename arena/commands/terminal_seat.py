"""The terminal front of a human seat (``arena play GAME --p1 human``): the position as a
diagram, both clocks, the legal moves, a prompt, a clear re-prompt after bad input, and the
answers to the seat's commands (``help``, ``draw``; ``resign`` ends the game).

Input is read from standard input asynchronously (a trio stream over a duplicate of the
descriptor), so the clock keeps running and a move that comes too late loses on time, exactly
as a bot's would.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

import trio

from protocol.messages import GameOver, Partie
from referee.connection import BotCrashed, Turn
from referee.human import COMMANDS


def _clock(ms: int | None) -> str:
    if ms is None:
        return "no clock"
    seconds = ms / 1000
    minutes, secs = divmod(seconds, 60)
    return f"{int(minutes)}:{secs:04.1f}" if minutes else f"{secs:.1f} s"


class TerminalFront:
    """Shows each turn on ``out`` and reads the person's answer from ``fd`` (stdin)."""

    def __init__(self, name: str, fd: int | None = None, out: TextIO | None = None) -> None:
        self.name = name
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.out = out or sys.stdout
        self._stream: trio.lowlevel.FdStream | None = None
        self._buffer = b""
        self._shown: Turn | None = None
        """The turn whose position is on the screen already (asked again: only the prompt)."""

    def _print(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    async def _line(self) -> str:
        if self._stream is None:
            self._stream = trio.lowlevel.FdStream(os.dup(self.fd))
        while b"\n" not in self._buffer:
            chunk = await self._stream.receive_some(4096)
            if not chunk:
                if self._buffer:
                    break
                raise BotCrashed(self.name, f"{self.name} left the game (end of input)")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").strip()

    async def ask(self, turn: Turn, seconds_left: float | None, problem: str | None) -> str:
        board = turn.board
        side = board.side_to_move
        if turn is not self._shown:
            self._shown = turn
            self._print("")
            self._print(board.diagram())
            go = turn.go
            self._print(f"  clocks: p1 {_clock(go.p1time)}, p2 {_clock(go.p2time)}")
            self._print(f"  legal moves ({len(turn.legal)}): {' '.join(turn.legal)}")
            self._print(f"  or: {', '.join(COMMANDS)}")
        if problem:
            self._print(f"  not accepted: {problem}")
        left = "" if seconds_left is None else f", {seconds_left:.1f} s left"
        label = board.SIDE_LABELS[side]
        print(f"{self.name} ({label}, p{side + 1}{left}) move> ", end="", file=self.out,
              flush=True)
        return await self._line()

    def tell(self, text: str) -> None:
        for line in text.splitlines():
            self._print(f"  {line}")

    def game_over(self, message: GameOver) -> None:
        score = f" score {message.score[0]}-{message.score[1]}" if message.score else ""
        self._print(f"  game over: {message.result} ({message.termination}){score} "
                    f"{message.text}".rstrip())

    def partie(self, message: Partie) -> None:
        self._print(f"  partie won by {message.winner} ({message.points} points): "
                    f"score {message.score1}-{message.score2}")

    async def aclose(self) -> None:
        if self._stream is not None:
            await self._stream.aclose()
            self._stream = None
