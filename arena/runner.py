"""Playing a tournament's games: the output directory, resume, concurrency and Ctrl-C.

Up to ``concurrency`` games run at once under one trio nursery: a producer feeds the games
still missing from the journal into a memory channel and that many workers pull from it. Each
game takes its two bots from a :class:`BotPool` of live processes (``arena.pool``: kept
between games unless a bot faulted or its ``restart`` setting says otherwise), so a bot that
crashes or hangs only loses its own game and gets a fresh process for the next. A finished
game is journaled (fsync'd) before anything else hears of it, and every listener (PGN,
progress, report) runs after that. The pool's idle processes are ended when the run ends,
however it ends.

Stopping: the first SIGINT stops feeding new games and lets the running ones finish; a second
SIGINT (or SIGTERM) cancels the running games, whose bots the referee kills; those games are
not journaled and are played again on resume. Resume is simply "play the scheduled ids not in
the journal", guarded by the schedule fingerprint kept in the output directory.
"""

from __future__ import annotations

import fcntl
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

import msgspec
import trio

from arena.config import LoadedConfig
from arena.errors import RunFailure, UserError
from arena.journal import Journal, JournalWriteError, Warn
from arena.live_files import LiveFiles, header_for
from arena.pool import BotPool
from arena.progress import Progress
from arena.retry import START_ATTEMPTS, retry_machine_faults
from arena.schedule import Schedule, ScheduledGame
from referee.faults import MachineFault
from referee.record import GameRecord, MoveRecord, Termination
from referee.sandbox import hide_from_bots

TICK_SECONDS: Final = 1.0
"""How often the live display is redrawn between events (elapsed time, ETA)."""

SCHEDULE_FILE: Final = "schedule.json"
CONFIG_COPY: Final = "config.toml"
JOURNAL_FILE: Final = "games.jsonl"
PGN_FILE: Final = "games.pgn"
LOGS_DIR: Final = "logs"
TRANSCRIPTS_DIR: Final = "transcripts"
LOCK_FILE: Final = ".lock"


@dataclass(frozen=True)
class OutputDir:
    """The files of one run, all under ``root``."""

    root: Path

    @property
    def journal(self) -> Path:
        return self.root / JOURNAL_FILE

    @property
    def pgn(self) -> Path:
        return self.root / PGN_FILE

    @property
    def logs(self) -> Path:
        return self.root / LOGS_DIR

    @property
    def transcripts(self) -> Path:
        """Protocol transcripts of ``debug`` bots, one file per game."""
        return self.root / TRANSCRIPTS_DIR

    @property
    def config(self) -> Path:
        return self.root / CONFIG_COPY

    @property
    def schedule(self) -> Path:
        return self.root / SCHEDULE_FILE


class ScheduleFile(msgspec.Struct):
    """What ``schedule.json`` holds: the fingerprint that guards resume, and the game list."""

    fingerprint: str
    total: int
    games: list[ScheduledGame]


def lock_output(out: OutputDir) -> int:
    """Take the output directory for this process (released by the kernel when it exits, even
    on SIGKILL): two runs appending to one journal would play the same games twice."""
    out.root.mkdir(parents=True, exist_ok=True)
    fd = os.open(out.root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise UserError(
            f"{out.root} is in use by another 'arena run'; wait for it to finish or stop it, "
            "or choose another --output directory"
        ) from None
    return fd


def prepare_output(loaded: LoadedConfig, schedule: Schedule, out: OutputDir, warn: Warn) -> Journal:
    """Create or reopen the output directory; refuse to mix two different schedules in it.

    Returns the open journal (repaired if its last line was torn). On a fresh directory the
    config copy and ``schedule.json`` are written first, so that a run killed at any moment
    can still be resumed.
    """
    out.root.mkdir(parents=True, exist_ok=True)
    if out.schedule.exists():
        try:
            stored = msgspec.json.decode(out.schedule.read_bytes(), type=ScheduleFile)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise UserError(
                f"{out.schedule}: unreadable ({exc}); use a new --output directory"
            ) from None
        if stored.fingerprint != schedule.fingerprint:
            raise UserError(
                f"{out.root} holds a run of a different schedule (fingerprint "
                f"{stored.fingerprint}, this config gives {schedule.fingerprint}): the game, "
                "bots, format, rounds, games per pairing, openings, seed or game options changed. "
                "Use a new --output directory, or undo the change to resume that run"
            )
        if out.config.exists() and out.config.read_text(encoding="utf-8") != loaded.text:
            warn(
                f"{loaded.path} differs from the copy in {out.config} in ways that keep the "
                "schedule (time control, commands, concurrency...); resuming with the new config"
            )
    elif out.journal.exists() and out.journal.stat().st_size > 0:
        raise UserError(
            f"{out.journal} exists but {out.schedule} does not: this directory was not made by "
            "'arena run'; use a new --output directory"
        )
    if not out.config.exists() or out.config.read_text(encoding="utf-8") != loaded.text:
        # Through a temporary file: a full disk must not leave a truncated copy behind.
        tmp = out.config.with_name(CONFIG_COPY + ".tmp")
        tmp.write_text(loaded.text, encoding="utf-8")
        tmp.replace(out.config)
    if not out.schedule.exists():
        payload = ScheduleFile(schedule.fingerprint, schedule.total, list(schedule.games))
        tmp = out.schedule.with_name(SCHEDULE_FILE + ".tmp")
        tmp.write_bytes(msgspec.json.format(msgspec.json.encode(payload)))
        tmp.replace(out.schedule)
    out.logs.mkdir(exist_ok=True)
    hide_from_bots(out.root)  # the journal and logs, even inside a folder a bot sees
    hide_from_bots(loaded.path)
    journal = Journal.open(out.journal, warn)
    unknown = journal.ids() - set(schedule.ids())
    if unknown:
        raise UserError(
            f"{out.journal} holds games that are not in this schedule "
            f"({', '.join(sorted(unknown)[:5])}); use a new --output directory"
        )
    return journal


@dataclass
class RunResult:
    """How a session of ``arena run`` ended."""

    played: int = 0
    """Games finished and journaled in this session."""
    failed: list[str] = field(default_factory=list)
    """Ids of games the referee raised on (not journaled; replayed on resume)."""
    stop_reason: str | None = None
    """Why scheduling stopped early (Ctrl-C, SPRT decision), None if every game was fed."""
    arena_fault: str | None = None
    """Why the run stopped on a fault of the machine or the arena (bots that cannot be started,
    a journal that cannot be written); such games have no result and are played on resume."""


class GameExecutor(Protocol):
    """Where games are played when not in this process: a cluster (``arena.cluster``).

    ``play`` returns the game's record, raises as a local game would (the game is not
    journaled and is replayed on resume), or raises :class:`RunFailure` to stop the run."""

    async def play(self, game: ScheduledGame) -> GameRecord: ...


@dataclass
class Tournament:
    """The games still to play and everything needed to play them."""

    loaded: LoadedConfig
    pending: Sequence[ScheduledGame]
    journal: Journal
    out: OutputDir
    progress: Progress
    on_record: Callable[[GameRecord], None] = lambda record: None
    """Called after each game is journaled (PGN, report): must not block for long."""
    stop_when: Callable[[GameRecord], str | None] = lambda record: None
    """Called after each journaled game; a text stops scheduling (e.g. an SPRT decision)."""
    periodic: Callable[[], object] | None = None
    """A slow job (the report build) run in a worker thread every ``periodic_every`` games,
    never twice at once, so that it cannot stall the games' clocks."""
    periodic_every: int = 0
    concurrency: int = 1
    handle_signals: bool = True
    executor: GameExecutor | None = None
    """None plays every game here; a cluster executor plays them on its workers."""
    result: RunResult = field(default_factory=RunResult)
    _feed_scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    _work_scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    pool: BotPool = field(default_factory=BotPool)
    """The live bot processes; made afresh (logging into ``out.logs``) by :meth:`run`."""

    def stop_scheduling(self, reason: str) -> None:
        """Feed no more games; running games finish and are journaled."""
        if self.result.stop_reason is None:
            self.result.stop_reason = reason
        self._feed_scope.cancel()

    def abort(self, reason: str) -> None:
        """Cancel the running games too (their bots are killed; they replay on resume)."""
        self.stop_scheduling(reason)
        self._work_scope.cancel()

    async def run(self) -> RunResult:
        from referee.timecontrol import TimeControl

        config = self.loaded.config
        self._tc = TimeControl.parse(config.tc) if config.tc else None
        self._bots = {bot.name: bot for bot in self.loaded.bots}
        workers = max(1, min(self.concurrency, len(self.pending)))
        self._periodic_running = False
        self._live = LiveFiles(self.out.root)
        self.pool = BotPool(self.out.logs)
        self._games_left = Counter(name for g in self.pending for name in (g.p1, g.p2))
        try:
            await self._run_games(workers)
        finally:
            await self.pool.aclose()  # shielded: no idle bot outlives the run
        return self.result

    async def _run_games(self, workers: int) -> None:
        async with trio.open_nursery() as outer:
            self._outer = outer
            if self.handle_signals:
                await outer.start(self._watch_signals)
            outer.start_soon(self._tick)
            send, receive = trio.open_memory_channel[ScheduledGame](0)
            with self._work_scope:
                async with trio.open_nursery() as work:
                    work.start_soon(self._feed, send)
                    async with receive:
                        for _ in range(workers):
                            work.start_soon(self._worker, receive.clone())
            outer.cancel_scope.cancel()

    async def _feed(self, send: trio.MemorySendChannel[ScheduledGame]) -> None:
        async with send:
            with self._feed_scope:
                for game in self.pending:
                    await send.send(game)

    async def _worker(self, receive: trio.MemoryReceiveChannel[ScheduledGame]) -> None:
        async with receive:
            async for game in receive:
                try:
                    await self._play(game)
                finally:
                    await self._done_with(game)

    async def _done_with(self, game: ScheduledGame) -> None:
        """A bot with no games left gives its idle processes back to the system now."""
        for name in (game.p1, game.p2):
            self._games_left[name] -= 1
            if self._games_left[name] <= 0:
                await self.pool.retire(name)

    async def _play(self, game: ScheduledGame) -> None:
        """One game, with its live file for watchers (``arena serve``) while it runs."""
        on_move = self._live.start(header_for(
            game.id, self.loaded.config.game, game.p1, game.p2, round=game.round,
            start_position=game.opening.start_position, opening=game.opening.moves,
            options=self.loaded.game_options, time_control=self.loaded.config.tc or "",
            started_at=time.time()))
        try:
            await self._play_scheduled(game, on_move)
        finally:
            self._live.finish(game.id)

    async def _play_scheduled(self, game: ScheduledGame,
                              on_move: Callable[[MoveRecord], None]) -> None:
        from referee.match import play_game

        config = self.loaded.config
        self.progress.started_game(game.id, f"{game.p1}-{game.p2}")

        def retrying(fault: MachineFault, attempt: int, wait: float) -> None:
            self.progress.message(f"{game.id}: not the bots' fault, retrying in {wait:g} s "
                                  f"(try {attempt + 1} of {START_ATTEMPTS}): {fault}")

        try:
            executor = self.executor
            if executor is not None:
                record = await retry_machine_faults(lambda: executor.play(game), retrying)
            else:
                record = await retry_machine_faults(lambda: play_game(
                    config.game,
                    self._bots[game.p1],
                    self._bots[game.p2],
                    tc=self._tc,
                    start_position=game.opening.start_position or None,
                    opening=game.opening.moves,
                    adjudication=config.adjudication,
                    game_options=self.loaded.game_options,
                    log_dir=self.out.logs,
                    game_id=game.id,
                    round=game.round,
                    bots=self.pool,
                    transcript_dir=self.out.transcripts,
                    on_move=on_move,
                ), retrying)
        except MachineFault as fault:
            self._arena_fault(f"game {game.id} could not be started after {START_ATTEMPTS} "
                              f"tries, for a reason that is not the bots': {fault}")
            return
        except RunFailure as exc:  # e.g. no cluster worker can play a bot
            self._arena_fault(str(exc))
            return
        except Exception as exc:  # a referee bug must not take the tournament down
            self.result.failed.append(game.id)
            self.progress.failed_game(game.id, f"{type(exc).__name__}: {exc}")
            return
        if record.termination == Termination.INTERRUPT or record.result == "*":
            return  # cancelled by a second Ctrl-C or SIGTERM: replayed on resume
        record.id = game.id
        record.round = game.round
        record.tags = {
            **record.tags,
            "pairing": str(game.pairing),
            "pair": game.pair,
            **({"opening": game.opening.source} if game.opening.source else {}),
        }
        with trio.CancelScope(shield=True):
            try:
                await self.journal.append(record)
            except JournalWriteError as exc:
                self._arena_fault(str(exc), abort=True)
                return
            self.result.played += 1
            self.progress.finished(record)
            self.on_record(record)
        if (
            self.periodic is not None
            and self.periodic_every
            and self.result.played % self.periodic_every == 0
            and not self._periodic_running
        ):
            self._periodic_running = True
            self._outer.start_soon(self._run_periodic, self.periodic)
        reason = self.stop_when(record)
        if reason:
            self.progress.message(reason)
            self.stop_scheduling(reason)

    def _arena_fault(self, message: str, *, abort: bool = False) -> None:
        """Stop the run on the machine's or the arena's fault (the first one is reported);
        ``abort`` cancels the running games too (their results could not be kept)."""
        if self.result.arena_fault is None:
            self.result.arena_fault = message
            self.progress.message(f"arena: {message}")
        if abort:
            self.abort("stopped: " + message)
        else:
            self.stop_scheduling("stopped: " + message)

    async def _watch_signals(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            task_status.started()
            interrupts = 0
            async for signum in signals:
                interrupts += signum == signal.SIGINT
                if signum == signal.SIGINT and interrupts == 1:
                    self.stop_scheduling("interrupted (Ctrl-C)")
                    self.progress.message(
                        "Ctrl-C: no new games; waiting for the running ones to finish "
                        "(Ctrl-C again aborts them; they will be replayed on resume)"
                    )
                else:
                    name = "SIGTERM" if signum == signal.SIGTERM else "second Ctrl-C"
                    self.abort(f"aborted ({name})")
                    self.progress.message(f"{name}: aborting the running games")

    async def _run_periodic(self, job: Callable[[], object]) -> None:
        try:
            await trio.to_thread.run_sync(job)
        finally:
            self._periodic_running = False

    async def _tick(self) -> None:
        while True:
            await trio.sleep(TICK_SECONDS)
            self.progress.refresh()
