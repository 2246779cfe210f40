"""The live files of a running tournament: one small file per game in progress, for watchers.

``RUN_DIR/live/<game id>.jsonl`` holds a header line (who plays what, from where) and then one
line per move the referee accepted; the file is removed once the game is journaled, so the
directory lists the games in progress. ``arena serve`` follows these files; the runner never
waits for it. The referee's moves are kept in memory and written by :meth:`LiveFiles.flush`,
which the runner calls every :data:`FLUSH_EVERY_S`: one write per game that moved since, and a
game's file is made by the second flush that finds it running (it has run a whole period). A
watcher sees a move at most one period late, a new game at most two; a game over sooner (a
``nodes=1`` game lasts milliseconds) never gets a file.
Written per move, the files cost a ``nodes=1`` run some 7% of its CPU (a write a ply, and an
open, a close and an unlink a game, each a file-system journal entry). Any error (disk full, a
removed directory) silently stops the live file of that game, never the game.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Final

import msgspec

from arena.rundir.layout import LIVE_DIR
from referee.order import GameOrder
from referee.record import MoveRecord

FLUSH_EVERY_S: Final = 0.2
"""How often the runner writes the games' new moves to their live files."""


class LiveHeader(msgspec.Struct, omit_defaults=True):
    """The first line of a live file."""

    id: str
    game: str
    p1: str
    p2: str
    round: int = 1
    start_position: str = ""
    opening: list[str] = []
    """The opening moves (they also arrive as book moves, first)."""
    options: dict[str, str] = {}
    time_control: str = ""
    started_at: float = 0.0


def live_name(game_id: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in game_id)
    return (safe.strip(".") or "game") + ".jsonl"


class _Running:
    """A game in progress: its header, the moves so far, and how much of it is written."""

    __slots__ = ("fd", "header", "made", "moves", "seen", "stopped", "written")

    def __init__(self, header: LiveHeader) -> None:
        self.header = header
        self.moves: list[MoveRecord] = []
        self.written = 0
        """Moves in the file."""
        self.fd: int | None = None
        self.seen = False
        """Whether a flush found it running already (the next one makes its file)."""
        self.made = False
        """Whether its file was created (and is to be removed at its end)."""
        self.stopped = False
        """Whether writing its file failed: it is not written again."""


class LiveFiles:
    """The live directory of one run; stale files of a killed run are removed on creation."""

    def __init__(self, root: Path) -> None:
        self.dir = root / LIVE_DIR
        self._games: dict[str, _Running] = {}
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            for stale in self.dir.glob("*.jsonl"):
                stale.unlink(missing_ok=True)
        except OSError:
            self.dir = Path()  # no live files for this run; the run itself goes on

    def start(self, header: LiveHeader) -> Callable[[MoveRecord], None]:
        """Note the game; returns the per-move callback for the referee (an append to a list:
        nothing is written until the next :meth:`flush`)."""
        if self.dir == Path():
            return lambda move: None
        game = self._games[header.id] = _Running(header)
        return game.moves.append

    def flush(self) -> None:
        """Write what the running games played since the last flush, making the files of the
        games that have none yet and were running at the last flush (header first)."""
        for game_id, game in self._games.items():
            if game.stopped or (game.made and game.written == len(game.moves)):
                continue
            if not game.seen:
                game.seen = True
                continue
            chunks = []
            fd = game.fd
            if not game.made:
                try:
                    fd = game.fd = os.open(self.dir / live_name(game_id),
                                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
                except OSError:
                    game.stopped = True
                    continue
                game.made = True
                chunks.append(msgspec.json.encode(game.header) + b"\n")
            moves = game.moves[game.written:]
            chunks.extend(msgspec.json.encode(move) + b"\n" for move in moves)
            try:
                assert fd is not None
                os.write(fd, b"".join(chunks))
            except OSError:
                game.stopped = True
                self._close(game)
                continue
            game.written += len(moves)

    @staticmethod
    def _close(game: _Running) -> None:
        fd, game.fd = game.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def finish(self, game_id: str) -> None:
        """The game is journaled (or abandoned): its live file goes (a game without one, such
        as a game over before a flush, costs nothing)."""
        game = self._games.pop(game_id, None)
        if game is None:
            return
        self._close(game)
        if game.made:
            with contextlib.suppress(OSError):
                (self.dir / live_name(game_id)).unlink(missing_ok=True)


def header_for(order: GameOrder, started_at: float = 0.0) -> LiveHeader:
    """The header of ``order``'s live file, from the order the game is played from: the same
    time control (each side's when they differ) and options as the game's record."""
    return LiveHeader(order.id, order.game, order.bots[0].name, order.bots[1].name, order.round,
                      order.start_position or "", list(order.opening), dict(order.game_options),
                      order.time_control, started_at)
