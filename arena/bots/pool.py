"""Bot processes kept alive between a tournament's games: a pool per bot, and its restart policy.

Starting a bot costs far more than a game at a fast time control (an interpreter to boot, an
engine to load), so the runner keeps each bot's processes between games, as cutechess does:
a game takes an idle, handshaken process of each of its bots (or starts one), and gives it
back afterwards; the referee's ``new_game`` (late ``bestmove`` drained, game announced,
``uginewgame``, ``isready``) separates one game from the next. With ``concurrency = N`` a
bot needs at most N processes at once, so the pool never holds more than that per bot.

Whether a process may play again is the bot's ``restart`` setting (:class:`BotSpec`):

* ``auto`` (default): yes, unless it faulted in the game (crash, stall, protocol error,
  time loss; see :func:`referee.botsource.faulted`), died, or its spec has a
  ``cpu_seconds`` limit (a budget for a process's whole life, so every game gets a fresh one).
* ``always``: never; a fresh process for every game.
* ``never``: yes while it is alive; after a fault it must first send the ``bestmove`` it
  owes and answer ``isready``, or it is replaced.

A process that is not kept, and every idle process at the end of the run (or on
interruption), is ended with its whole process group, shielded from cancellation. A bot
with no games left is retired early (:meth:`BotPool.retire`).

Stderr logs are per process: ``logs/<bot>/<first game id>.stderr.log`` (with ``restart =
"always"`` that is one log per game, as before), and the output of each game the process
plays starts with a line ``[arena] game <id> (game <k> of process <pid>)``, so a game's
output is found by its id. A game that printed nothing to stderr has no such line, and a
process that never printed anything has no log (:meth:`referee.process.stderrlog.StderrLog.mark`).

A kept process is told of its next game as soon as it is given back (the same game and
options: a tournament plays one game), so that it resets while the runner journals the game
that ended; what it prints to stderr meanwhile comes before the next game's marker line. A
process whose bot has no game left to start (``wanted``) is ended when given back instead:
it is never told of a game that will not come (an engine would reset for it before it reads
``quit``). Under think slots the runner keeps such processes idle until the bot is retired
(:attr:`BotPool.keep_until_retired`): an engine exiting mid-run costs the bots thinking on a
clock more than a reset for nothing.

Prestarted processes: ``arena run`` launches the bots of its first games before it imports
trio (:mod:`arena.bots.prestart`), so that an engine loading its tables starts while the runner
still loads itself; the pool hands them out before it starts any new process and ends the ones no
game took.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Final

import msgspec
import trio

from referee.botsource import faulted
from referee.botspec import BotSpec
from referee.connection import HANDSHAKE_TIMEOUT_S, BotConnection, BotError
from referee.match import open_bot
from referee.process.spawn import Launched
from referee.record import GameRecord

MARKER_PREFIX: Final = "[arena] game "
"""How a game's first line in a pooled process's stderr log starts."""
PREPARE_TIMEOUT_S: Final = 1.0
"""How long the lines announcing a kept process's next game may take to be written."""


class _Life(msgspec.Struct):
    """What the pool knows of one process it started."""

    games: int = 0


class BotPool:
    """Idle, handshaken bot processes by bot name; a :class:`referee.botsource.BotSource`."""

    def __init__(self, log_dir: Path | None = None, *, timeout: float | None = None,
                 prestarted: list[tuple[BotSpec, Launched]] | None = None,
                 wanted: Callable[[str], bool] | None = None) -> None:
        self.log_dir = log_dir
        self.timeout = timeout
        self._wanted = wanted
        """Whether a bot (by name) has games not started yet; None: always assumed."""
        self.keep_until_retired = False
        """Keep a process whose bot has no game left to start until :meth:`retire`, rather
        than end it while other games go on. The runner sets it under think slots
        (:mod:`referee.thinkslots`): an engine exiting, and its reaping, took a core from
        bots thinking on a clock, and every time forfeit of a run at 64 games at once,
        ``st=0.02`` on 2 cores, fell in its last seconds, when its games' bots were being
        ended: 23 and 17 forfeits of 128 against 0 and 3 kept (alternated runs)."""
        self.started: Counter[str] = Counter()
        """Processes started per bot name (the benchmark and tests read it)."""
        self._idle: dict[str, list[BotConnection]] = {}
        self._lives: dict[BotConnection, _Life] = {}
        self._prestarted = prestarted if prestarted is not None else []
        """Launched, not yet handshaken processes (``arena run``'s first bots), taken first;
        the caller's own list, emptied as they are taken or ended."""
        self._closed = False
        self._ender: trio.Nursery | None = None
        """Where a process whose bot has no game left to start is ended (:meth:`end_in`)."""

    def idle(self, name: str) -> int:
        """How many idle processes the pool holds for ``name``."""
        return len(self._idle.get(name, ()))

    async def acquire(self, spec: BotSpec, game_id: str) -> BotConnection:
        """An idle process of ``spec``'s bot if a fit one is left, else a fresh one."""
        idle = self._idle.get(spec.name, [])
        while idle:
            connection = idle.pop()  # the most recently used: warm caches, fewer page faults
            if self._fit(connection, spec):
                self._mark(connection, game_id)
                return connection
            await self._end(connection)
        if self._closed:
            raise RuntimeError("the bot pool is closed")
        connection = await open_bot(spec, log_dir=self.log_dir, timeout=self.timeout,
                                    game_id=game_id, launched=self._take_prestarted(spec))
        self.started[spec.name] += 1
        self._lives[connection] = _Life()
        self._mark(connection, game_id)
        return connection

    @staticmethod
    def _fit(connection: BotConnection, spec: BotSpec) -> bool:
        """Whether an idle process may play a game of ``spec``: alive, started from exactly
        that spec, and of a bot not restarted for every game."""
        return connection.alive and connection.spec == spec and spec.restart != "always"

    def take_idle(self, spec: BotSpec, game_id: str) -> BotConnection | None:
        """The idle process :meth:`acquire` would hand out, when the last one kept is fit,
        without awaiting anything; else None (``acquire`` ends the unfit ones and starts a
        fresh one). The game takes its bots this way without a nursery of its own."""
        idle = self._idle.get(spec.name)
        if not idle:
            return None
        connection = idle[-1]
        if not self._fit(connection, spec):
            return None
        idle.pop()
        self._mark(connection, game_id)
        return connection

    def end_in(self, nursery: trio.Nursery) -> None:
        """End the processes whose bot has no game left to start in tasks of ``nursery``
        rather than in :meth:`release`: the game they played then returns its record (and
        is journaled) while they read ``quit`` and exit, instead of after (an engine takes
        10-30 ms to exit, the last games of a run wait for it otherwise). No fresh process of
        that bot is started meanwhile, so the pool still never holds more than one process
        per game at once; the nursery waits for the ends."""
        self._ender = nursery

    async def release(self, connection: BotConnection, side: int,
                      record: GameRecord | None) -> None:
        """Keep the process for another game if its restart policy allows, else end it. A
        kept process is told of its next game at once (:meth:`BotConnection.prepare_next_game`)
        unless it is a ``debug`` bot, whose transcripts keep each game's lines together."""
        unwanted = (not self.keep_until_retired and self._wanted is not None
                    and not self._wanted(connection.name))
        if (not self._closed and not unwanted
                and await self._reusable(connection, side, record)
                and (connection.spec.debug or await self._prepare(connection))):
            self._idle.setdefault(connection.name, []).append(connection)
        elif unwanted and self._ender is not None and not self._closed:
            self._lives.pop(connection, None)
            self._ender.start_soon(connection.aclose)
        else:
            await self._end(connection)

    async def retire(self, name: str) -> None:
        """End the idle processes of a bot that has no games left."""
        self._discard_prestarted(lambda spec: spec.name == name)
        idle = self._idle.pop(name, [])
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for connection in idle:
                    nursery.start_soon(self._end, connection)

    async def aclose(self) -> None:
        """End every idle process and refuse new ones (busy ones end when released)."""
        self._closed = True
        self._discard_prestarted(lambda spec: True)
        with trio.CancelScope(shield=True):
            for name in list(self._idle):
                await self.retire(name)

    def _take_prestarted(self, spec: BotSpec) -> Launched | None:
        """A prestarted process of exactly this spec, with stderr piped as this pool logs."""
        for index, (started, launched) in enumerate(self._prestarted):
            if started == spec and (launched.stderr_fd is not None) == (self.log_dir is not None):
                del self._prestarted[index]
                return launched
        return None

    def _discard_prestarted(self, which: Callable[[BotSpec], bool]) -> None:
        for index in reversed(range(len(self._prestarted))):
            if which(self._prestarted[index][0]):
                self._prestarted.pop(index)[1].discard()

    async def _reusable(self, connection: BotConnection, side: int,
                        record: GameRecord | None) -> bool:
        spec = connection.spec
        if record is None or not connection.alive or spec.restart == "always":
            return False
        if spec.restart == "auto" and spec.limits.cpu_seconds is not None:
            return False
        if not faulted(record, side):
            return True
        if spec.restart == "auto":
            return False
        # "never": keep it if it is in a state to play: its late bestmove read, isready answered.
        try:
            with trio.CancelScope(shield=True):
                await connection.settle()
                await connection.ready(HANDSHAKE_TIMEOUT_S if self.timeout is None
                                       else self.timeout)
        except BotError:
            return False
        return connection.alive

    @staticmethod
    async def _prepare(connection: BotConnection) -> bool:
        """Announce the next game; a bot that cannot take the lines is not kept. One cancel
        scope, shielded and with its own deadline: it runs after every game."""
        with trio.CancelScope(shield=True, deadline=trio.current_time() + PREPARE_TIMEOUT_S):
            try:
                await connection.prepare_next_game()
            except BotError:
                return False
            return True
        return False  # its input pipe stayed full: it reads nothing

    def _mark(self, connection: BotConnection, game_id: str) -> None:
        life = self._lives.get(connection)
        if life is None:
            return
        life.games += 1
        connection.mark_log(f"{MARKER_PREFIX.removeprefix('[arena] ')}{game_id} "
                            f"(game {life.games} of process {connection.pid})")

    async def _end(self, connection: BotConnection) -> None:
        self._lives.pop(connection, None)
        await connection.aclose()


