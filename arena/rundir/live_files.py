"""The live files of a running tournament: one small file per game in progress, for watchers.

``RUN_DIR/live/<game id>.jsonl`` holds a header line (who plays what, from where) and then one
line per move as the referee accepts it; the file is removed once the game is journaled, so
the directory lists exactly the games in progress. ``arena serve`` follows these files; the
runner never waits for it: each line is one unbuffered append to a local file, and any error
(disk full, a removed directory) silently stops the live file of that game, never the game.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

import msgspec

from arena.rundir.layout import LIVE_DIR
from referee.order import GameOrder
from referee.record import MoveRecord


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


class LiveFiles:
    """The live directory of one run; stale files of a killed run are removed on creation."""

    def __init__(self, root: Path) -> None:
        self.dir = root / LIVE_DIR
        self._files: dict[str, int] = {}
        self._made: set[str] = set()
        """Games whose file was created (and not removed yet)."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            for stale in self.dir.glob("*.jsonl"):
                stale.unlink(missing_ok=True)
        except OSError:
            self.dir = Path()  # no live files for this run; the run itself goes on

    def start(self, header: LiveHeader) -> Callable[[MoveRecord], None]:
        """Create the game's file; returns the per-move callback for the referee."""
        game_id = header.id
        if self.dir == Path():
            return lambda move: None
        try:
            fd = os.open(self.dir / live_name(game_id),
                         os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
            os.write(fd, msgspec.json.encode(header) + b"\n")
        except OSError:
            return lambda move: None
        self._files[game_id] = fd
        self._made.add(game_id)

        def on_move(move: MoveRecord) -> None:
            fd = self._files.get(game_id)
            if fd is None:
                return
            try:
                os.write(fd, msgspec.json.encode(move) + b"\n")
            except OSError:
                self._close(game_id)

        return on_move

    def _close(self, game_id: str) -> None:
        fd = self._files.pop(game_id, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def finish(self, game_id: str) -> None:
        """The game is journaled (or abandoned): its live file goes (a game without one, such
        as a cluster game over before its first moves came, costs nothing)."""
        self._close(game_id)
        if game_id in self._made:
            self._made.discard(game_id)
            with contextlib.suppress(OSError):
                (self.dir / live_name(game_id)).unlink(missing_ok=True)


def header_for(order: GameOrder, started_at: float = 0.0) -> LiveHeader:
    """The header of ``order``'s live file, from the order the game is played from: the same
    time control (each side's when they differ) and options as the game's record."""
    return LiveHeader(order.id, order.game, order.bots[0].name, order.bots[1].name, order.round,
                      order.start_position or "", list(order.opening), dict(order.game_options),
                      order.time_control, started_at)
