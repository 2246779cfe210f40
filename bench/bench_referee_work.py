"""The referee's own work per ply, in process: no pipes, no processes, no scheduler waits.

Two scripted UCI bots replay precomputed random Dobutsu games (seeded; each side avoids a
move that loses at once, so games run to their 60-ply scripts), answering every ``go`` the
way Fairy-Stockfish does at ``nodes 1``: two ``info`` lines and the ``bestmove``, all at once.
What is timed is :func:`referee.match.play_on` on the UCI dialect: the position and ``go``
lines, reading and parsing the answers, the move's check, the rules, the record, per ply and
per game. A whole ``arena run`` spends three to four times as long a ply (the pipes, trio's
waits, the journal, and caches the engines have emptied), so this is the part of the
runner's CPU that its own code decides, measured without the noise of the other processes.

The time is the process's CPU per ply, the minimum and median of :data:`REPEATS` runs. Under
``valgrind --tool=callgrind`` the instruction count is the same from run to run whatever else
the machine does: run it with ``BENCH_REFEREE_WORK_GAMES=30`` and ``=90`` and divide the
difference of the two totals by the difference of the plies printed.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections import deque
from typing import Any

import trio

from referee.botspec import BotSpec
from referee.dialects import UciConnection
from referee.games import get_game
from referee.match import play_on
from referee.order import GameOrder
from referee.timecontrol import TimeControl

REPEATS = 5
GAMES = int(os.environ.get("BENCH_REFEREE_WORK_GAMES", "300"))
SCRIPTS = 40
PLIES = 60


def scripts(count: int = SCRIPTS, plies: int = PLIES) -> list[list[str]]:
    """Random Dobutsu games (seeded) whose moves never hand the opponent a win at once."""
    rules = get_game("dobutsu")
    rng = random.Random(1)
    games = []
    for _ in range(count):
        board = rules.new(None, [])
        moves: list[str] = []
        while len(moves) < plies and board.outcome() is None:
            legal = board.legal_moves()
            rng.shuffle(legal)
            move = next((m for m in legal if _quiet(board, m)), legal[0])
            moves.append(move)
            board.play(move)
        games.append(moves)
    return games


def _quiet(board: Any, move: str) -> bool:
    """After ``move`` the game goes on and the opponent cannot win at once."""
    after = board.copy()
    after.play(move)
    return after.outcome() is None and not after.wins_at_once()


class ScriptedUci:
    """A :class:`referee.channel.LineChannel` that plays the moves of ``script`` by ply."""

    def __init__(self) -> None:
        self.closed = False
        self.transcript: deque[str] = deque(maxlen=64)
        self.script: list[str] = []
        self._lines: deque[str] = deque()
        self._position = ""
        self._waits = True

    async def send(self, text: str) -> None:
        self._waits = True  # the answer comes after a scheduler pass, as from a pipe
        for line in text.split("\n"):
            self.transcript.append("> " + line)
            if line.startswith("go"):
                ply = len(self._position.split()) - 3 if " moves " in self._position else 0
                move = self.script[ply] if ply < len(self.script) else "(none)"
                self._lines.extend([
                    f"info depth 1 seldepth 1 multipv 1 score cp 12 nodes 3 nps 1500 time 2 "
                    f"pv {move}",
                    f"info depth 2 seldepth 2 multipv 1 score cp 8 nodes 9 nps 4500 time 2 "
                    f"pv {move} a1a2",
                    f"bestmove {move}"])
            elif line.startswith("position"):
                self._position = line
            elif line == "isready":
                self._lines.append("readyok")
            elif line == "uci":
                self._lines.extend(["id name scripted", "uciok"])

    async def readline(self) -> str:
        if self._waits:
            self._waits = False
            await trio.lowlevel.checkpoint()
        line = self._lines.popleft()
        self.transcript.append("< " + line)
        return line

    def exit_status(self) -> int | None:
        return None

    def describe_exit(self) -> str:
        return "still running"

    def sandbox_failure(self) -> str | None:
        return None

    async def wait_exit(self, timeout: float) -> int | None:
        return None

    async def aclose(self) -> None:
        self.closed = True


async def one_run(games: int, plays: list[list[str]]) -> tuple[float, int]:
    """The process's CPU seconds over ``games`` games, and their plies."""
    specs = [BotSpec(name=f"scripted{i}", cmd=["scripted"], protocol="uci") for i in (1, 2)]
    channels = [ScriptedUci(), ScriptedUci()]
    bots = [UciConnection(channel, spec) for channel, spec in zip(channels, specs, strict=True)]
    for bot in bots:
        await bot.handshake()
    tc = TimeControl.parse("inf nodes=1")
    cpu, plies = 0.0, 0
    for number in range(games):
        for channel in channels:
            channel.script = plays[number % len(plays)]
        order = GameOrder.checked("dobutsu", specs[0], specs[1], tc=tc)
        started = time.process_time()
        record = await play_on(order, (bots[0], bots[1]))
        cpu += time.process_time() - started
        plies += record.plies
    return cpu, plies


def main() -> None:
    plays = scripts()
    per_ply = []
    plies = 0
    for _ in range(REPEATS):
        cpu, plies = trio.run(one_run, GAMES, plays)
        per_ply.append(cpu / plies * 1e6)
    print(f"-- the referee's own work, in process: {GAMES} games, {plies} plies, UCI, "
          f"Dobutsu ({REPEATS} runs)")
    print(f"   CPU per ply  min {min(per_ply):.1f} us  median {statistics.median(per_ply):.1f} us")


if __name__ == "__main__":
    main()
