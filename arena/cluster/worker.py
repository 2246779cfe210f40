"""The worker's side of cluster games: check the bots, play a batch, stream each game back.

:func:`play_batch_on_worker` is the one Dask task of a tournament: a batch of
:class:`~referee.order.GameOrder` (games of one pairing, colour pairs together: the runner
built them, this worker swaps its own paths in for the bots), played one after the other with
the same referee call as a local run (``referee.match.play_game`` with a bot pool) in the trio
loop its thread keeps (``arena.cluster.loop``), so each worker thread plays one game at a time
and keeps its bots between games and batches.

Nothing waits for the batch to end: each game is streamed to the submitting machine as it goes,
as Dask events on the run's topic (:func:`topic`, through the scheduler): ``begin`` when the
batch starts on a worker (its games are then played in order), ``start`` and
``moves`` at most every :data:`~arena.cluster.movestream.MOVES_EVERY_S` while a game runs
(its live file there, for the live page; a game over sooner sends neither), ``done`` with the
record and the bytes the game added to the bots' logs and transcripts, ``error`` for a game
that cannot be played anywhere (a bad opening), and ``note`` for what this worker would have
printed once on its stderr (the sandbox and limits lines). A worker lost mid-batch loses only
the game it was playing: the others have been sent.

Before its first game a worker process checks every bot of the tournament once (the result is
kept for the process's life): the project's code hash, each bot's program and script files
against the submitting machine's hashes, the interpreter a script's ``#!`` line names, the
working directory, bubblewrap for sandboxed bots. Each failed check is a :class:`Problem`: what
is wrong, and what fixes it (the same bot files, bubblewrap, the same project version), which
the submitting machine tells the user. A bot that fails a check makes the task raise
:class:`WorkerUnfit`; a game that fails because of the machine (any error that is not the
game's own) raises :class:`WorkerFault` and ends the batch. Neither is a game result: the
submitting machine plays the batch's unfinished games again on another worker. A task whose
Dask key was cancelled (the run aborted, or the submitting machine went away) cancels its game,
which ends both bots; a run that stops scheduling (Ctrl-C, an SPRT decision) tells its workers
(:func:`stop_batches`), whose batches end after their running game.

Thinking slots (:mod:`referee.thinkslots`) need no gate here: a worker thread plays one game at
a time, so at most one bot per thread thinks, and a worker started with no more threads than
its cores (Dask's default) gives each thinking bot a core, as the slots do on the submitting
machine. A worker with more threads than the cores it may run on says so, once
(:func:`_note_threads`), since its clocks then run for bots that share a core.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Final

import msgspec
import trio

from arena.bots import store
from arena.bots.pool import BotPool
from arena.cluster.botfiles import BotFiles, code_hash, file_sha256
from arena.cluster.loop import GameLoop, close_loops, loop_for
from arena.cluster.movestream import MoveStream
from arena.rundir.layout import LOGS_DIR, TRANSCRIPTS_DIR
from referee.botspec import BotSpec
from referee.games.base import GameError
from referee.order import GameOrder
from referee.process.sandbox import (
    bwrap_path,
    bwrap_problem,
    keep_warnings_quiet,
    warn_once,
    warnings_given,
)
from referee.record import GameRecord, MoveRecord, Termination, encode_record

CACHE_ENV: Final = "ARENA_CACHE"
"""Where a worker unpacks shipped bots (default ``~/.cache/arena``)."""
RUN_SUBDIRS: Final = (LOGS_DIR, TRANSCRIPTS_DIR)
"""The folders of a run directory that a game writes into."""
CANCEL_POLL_S: Final = 0.25
"""How often a game checks that its Dask task is still wanted."""


FIX_FILES: Final = "install the same bot files on the workers, or set ship = true for the bot"
FIX_VERSION: Final = ("install the same project version on the workers (the same commit and "
                      "requirements.lock)")
FIX_BWRAP: Final = ("install bubblewrap on the workers (apt-get install bubblewrap), or change "
                    "the bot's sandbox (sandbox = \"auto\" runs it without bubblewrap where "
                    "there is none)")
FIX_BWRAP_RUN: Final = ("make bubblewrap run on the workers (the error above says why it does "
                        "not), or change the bot's sandbox (sandbox = \"auto\" runs it without "
                        "bubblewrap where bubblewrap does not run)")
FIX_CACHE: Final = (f"make the workers' bot cache writable, with room for the bot's folder "
                    f"(${CACHE_ENV}, default ~/.cache/arena)")


class Problem(msgspec.Struct, frozen=True):
    """Why a worker cannot play a bot (or any bot), and what fixes it: the submitting machine
    ends its refusal with the fixes of the problems it names, so that a worker without
    bubblewrap is told to install bubblewrap, not to copy the bot's files."""

    text: str
    """What is wrong, naming the bot and the file or program (``bot 'x': /p/bot.py not
    found``)."""
    fix: str
    """What the user can do about it (one of the ``FIX_`` texts, or one naming a program)."""


class WorkerUnfit(Exception):
    """This worker cannot play these bots (missing, different, no interpreter): not scored."""

    def __init__(self, worker: str, problems: dict[str, list[Problem]]) -> None:
        super().__init__(worker, problems)
        self.worker = worker
        self.problems = {bot: [_problem(p) for p in found] for bot, found in problems.items()}
        """Bot name ("" for the worker as a whole) -> what is wrong there."""

    def __str__(self) -> str:
        lines = [problem.text for found in self.problems.values() for problem in found]
        return f"worker {self.worker}: " + "; ".join(lines)


def _problem(found: object) -> Problem:
    """A problem as this code has it: a worker with other code (refused for that very reason)
    may send a plain text."""
    return found if isinstance(found, Problem) else Problem(str(found), FIX_VERSION)


class WorkerFault(Exception):
    """The game failed because of the machine it ran on (an OSError, a referee crash there):
    not scored, played again elsewhere."""

    def __init__(self, worker: str, game_id: str, text: str) -> None:
        super().__init__(worker, game_id, text)
        self.worker = worker
        self.game_id = game_id
        self.text = text

    def __str__(self) -> str:
        return f"worker {self.worker}: game {self.game_id}: {self.text}"


class _Ready(msgspec.Struct):
    """One worker process's verdict on a tournament's bots, and the specs it runs them with."""

    problems: dict[str, list[Problem]]
    specs: dict[str, BotSpec]


_ready: dict[bytes, _Ready] = {}
_ready_lock = threading.Lock()


def topic(run: str) -> str:
    """The Dask event topic of tournament ``run``: every game's events, from every worker."""
    return f"arena:{run}"


_stopping: set[str] = set()
"""Tournaments that schedule no more games: their batches end after the running game."""
_noted: dict[str, int] = {}
"""Per tournament, how many of this process's once-only warnings were sent already."""


def stop_batches(run: str) -> None:
    """Run on every worker (``client.run``) when tournament ``run`` stops scheduling."""
    _stopping.add(run)


def play_batch_on_worker(
    run: str,
    batch: str,
    orders: list[GameOrder],
    bots: tuple[BotFiles, ...],
    code: str,
    originals: dict[str, BotSpec],
    archives: dict[str, bytes],
) -> list[str]:
    """The Dask task: check (once per process), then play ``orders`` in turn with the bots
    this thread keeps for tournament ``run``, sending each game's events as it goes (see the
    module's doc); returns the ids of the games whose records were sent."""
    from distributed import get_worker

    worker = get_worker()
    address = worker.address
    ready = prepare_bots(bots, code, originals, archives)
    names = {bot.name for order in orders for bot in order.bots}
    problems = {name: texts for name, texts in ready.problems.items()
                if name in ("", *names) and texts}
    if problems:
        raise WorkerUnfit(address, problems)
    key = worker.get_current_task()
    channel = topic(run)
    keep_warnings_quiet()  # sent to the submitting machine instead (_send_notes)
    _note_threads(address, worker.state.nthreads)
    worker.log_event(channel, {"k": "begin", "b": batch, "w": address})
    sent: list[str] = []
    loop = loop_for(run)
    for order in orders:
        if run in _stopping or not _wanted(worker, key):
            break
        # The bots as this worker runs them: its own Python, its cache for shipped folders.
        # The order's options are the game's own (a tune's sides differ game by game).
        first, second = (msgspec.structs.replace(ready.specs[bot.name], options=bot.options)
                         for bot in order.bots)
        local = msgspec.structs.replace(order, bots=(first, second))
        moves = MoveStream(
            partial(worker.log_event, channel, {"k": "start", "b": batch, "g": order.id,
                                                "w": address}),
            partial(_send_moves, worker, channel, batch, order.id))
        fault: WorkerFault | None = None
        try:
            record = loop.play(partial(_play, local, loop, worker, key, moves.add))
            files = loop.new_bytes(order.id)
        except GameError as exc:  # the game's own problem (bad opening...): the same anywhere
            worker.log_event(channel, {"k": "error", "b": batch, "g": order.id,
                                       "t": f"{type(exc).__name__}: {exc}"})
            continue
        except Exception as exc:  # the machine's (disk, fork, a referee crash here): not scored
            leaf = _leaf(exc)
            fault = WorkerFault(address, order.id, f"{type(leaf).__name__}: {leaf}")
        finally:
            _send_notes(worker, channel, run, address)
        if fault is not None:
            # Raised out here, without the chain of the error behind it: the submitting machine
            # gets a WorkerFault it can read, whatever that chain holds.
            raise fault
        if record.termination == Termination.INTERRUPT or record.result == "*":
            break  # cancelled: no result, played again if the run goes on
        record.worker = address
        worker.log_event(channel, {"k": "done", "b": batch, "g": order.id, "w": address,
                                   "r": encode_record(record), "f": files})
        sent.append(order.id)
    return sent


def _note_threads(address: str, threads: int) -> None:
    """Say (once per process, through :func:`_send_notes`) that this worker has more threads
    than the cores it may run on: more of its bots think at once on a clock than it has cores."""
    cores = len(os.sched_getaffinity(0))  # as arena.run.referees.cores, a floor above this one
    if threads > cores:
        warn_once(f"worker {address}: {threads} threads on {cores} cores: up to {threads} bots "
                  f"think on a clock at once there; start it with --nthreads {cores} (or "
                  "fewer) for a core per thinking bot")


def _send_moves(worker: object, channel: str, batch: str, game_id: str,
                moves: list[MoveRecord]) -> None:
    """A running game's new moves, as one ``moves`` event (:class:`MoveStream`)."""
    worker.log_event(channel, {"k": "moves", "b": batch, "g": game_id,  # type: ignore[attr-defined]
                               "m": msgspec.json.encode(moves)})


def _send_notes(worker: object, channel: str, run: str, address: str) -> None:
    """This process's once-only warnings (sandbox, limits) not yet sent for ``run``."""
    given = warnings_given()
    for text in given[_noted.get(run, 0):]:
        worker.log_event(channel, {"k": "note", "w": address, "t": text})  # type: ignore[attr-defined]
    _noted[run] = len(given)


def _wanted(worker: object, key: object) -> bool:
    """Is this task still wanted by the scheduler (not cancelled, released or forgotten)?"""
    tasks = getattr(getattr(worker, "state", None), "tasks", None)
    if tasks is None or key is None:
        return True
    task = tasks.get(key)
    return task is not None and task.state not in ("cancelled", "released", "forgotten")


def check_on_worker(bots: tuple[BotFiles, ...], code: str, originals: dict[str, BotSpec],
                    archives: dict[str, bytes]) -> tuple[str, dict[str, list[Problem]]]:
    """The check before a worker's first game, run on each worker when the run starts: this
    worker's address and what prevents it from playing each bot (empty lists: nothing)."""
    from distributed import get_worker

    import referee.match  # noqa: F401 - imported now, not in the first game's time

    return get_worker().address, prepare_bots(bots, code, originals, archives).problems


async def _play(order: GameOrder, loop: GameLoop, worker: object, key: object,
                on_move: Callable[[MoveRecord], None], pool: BotPool) -> GameRecord:
    from referee.match import play_game

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cancel_when_unwanted, worker, key, nursery.cancel_scope)
            record = await play_game(order, pool, on_move=on_move,
                                     transcript_dir=loop.transcripts)
            nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the game's own error, not the nursery's wrapping
        raise _leaf(group) from None
    return record


def _leaf(error: BaseException) -> BaseException:
    """The one error inside nested exception groups (or the group, when there are several)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def _cancel_when_unwanted(worker: object, key: object, scope: trio.CancelScope) -> None:
    """Cancel the game once the worker no longer wants its task (cancelled or released)."""
    tasks = getattr(getattr(worker, "state", None), "tasks", None)
    if tasks is None or key is None:
        return
    while True:
        await trio.sleep(CANCEL_POLL_S)
        if not _wanted(worker, key):
            scope.cancel()
            return


# ----------------------------------------------------------------------------- bot checks
def prepare_bots(bots: tuple[BotFiles, ...], code: str, originals: dict[str, BotSpec],
                 archives: dict[str, bytes]) -> _Ready:
    """Check (and unpack) a tournament's bots in this process, once per tournament."""
    digest = hashlib.sha256(msgspec.msgpack.encode((bots, code, originals))).digest()
    with _ready_lock:
        if digest not in _ready:
            _ready[digest] = _check_all(bots, code, originals, archives)
        return _ready[digest]


def _check_all(bots: tuple[BotFiles, ...], code: str, originals: dict[str, BotSpec],
               archives: dict[str, bytes]) -> _Ready:
    problems: dict[str, list[Problem]] = {"": []}
    if code_hash() != code:
        problems[""].append(Problem(
            f"the arena's code differs from the submitting machine's (code hash "
            f"{code_hash()[:12]} here, {code[:12]} there)", FIX_VERSION))
    specs: dict[str, BotSpec] = {}
    for files in bots:
        spec = originals[files.name]
        try:
            specs[files.name] = local_spec(spec, files, archives)
            problems[files.name] = check_bot(specs[files.name], files)
        except OSError as exc:
            problems[files.name] = [Problem(
                f"bot {files.name!r}: cannot unpack its shipped folder: {exc}", FIX_CACHE)]
    return _Ready(problems, specs)


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "arena")


def local_spec(spec: BotSpec, files: BotFiles, archives: dict[str, bytes]) -> BotSpec:
    """The spec as this worker runs it: its own Python for ``{python}``, the cache folder for a
    shipped bot's folder."""
    cmd = list(spec.cmd)
    cwd = spec.cwd
    if files.arena_python:
        cmd[0] = sys.executable
    if files.shipped is not None and files.digest is not None:
        folder = store.unpack(cache_root() / "bots", files.digest, archives[files.digest])
        prefix = files.shipped.rstrip(os.sep) + os.sep
        cmd = [str(folder / arg[len(prefix):]) if arg.startswith(prefix) else arg for arg in cmd]
        if cwd is None or cwd == files.shipped:
            cwd = str(folder)
        elif cwd.startswith(prefix):
            cwd = str(folder / cwd[len(prefix):])
    return msgspec.structs.replace(spec, cmd=cmd, cwd=cwd)


def check_bot(spec: BotSpec, files: BotFiles) -> list[Problem]:
    """What prevents this worker from running the bot exactly as configured (empty: nothing)."""
    name = spec.name
    problems: list[Problem] = []

    def missing(text: str) -> None:
        problems.append(Problem(f"bot {name!r}: {text}", FIX_FILES))

    if spec.cwd and not os.path.isdir(spec.cwd):
        missing(f"working directory {spec.cwd} not found")
    program = spec.cmd[0]
    if not os.path.isabs(program):
        found = shutil.which(program)
        if found is None:
            missing(f"program {program!r} not on PATH")
        program = found or program
    elif not (os.path.isfile(program) and os.access(program, os.X_OK)):
        missing(f"program {program} not found or not executable")
    for entry in files.files:
        if not os.path.isfile(entry.path):
            missing(f"{entry.path} not found")
            continue
        here = file_sha256(entry.path)
        if here != entry.sha256:
            missing(f"{entry.path} differs from the submitting machine's (sha256 {here[:12]} "
                    f"here, {entry.sha256[:12]} there)")
    for path in _scripts(spec):
        interpreter = _shebang(path)
        if interpreter and shutil.which(interpreter) is None:
            problems.append(Problem(f"bot {name!r}: {path} needs {interpreter!r}, not found here",
                                    f"install {interpreter!r} on the workers"))
    if spec.sandbox == "bwrap":
        if bwrap_path() is None:
            problems.append(Problem(
                f"bot {name!r}: sandbox = 'bwrap' but bubblewrap (bwrap) is not installed here",
                FIX_BWRAP))
        elif (trouble := bwrap_problem()) is not None:
            problems.append(Problem(f"bot {name!r}: sandbox = 'bwrap' but {trouble}",
                                    FIX_BWRAP_RUN))
    return problems


def _scripts(spec: BotSpec) -> list[str]:
    program = spec.cmd[0]
    return [program] if os.path.isabs(program) and os.path.isfile(program) else []


def _shebang(path: str) -> str | None:
    """The interpreter a ``#!`` line names (``/usr/bin/env X`` gives X), None for binaries."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        return rest[0] if rest else None
    return words[0]


def end_run(run: str) -> int:
    """Run on every worker (``client.run``) when tournament ``run`` ends: its loops and kept
    bots end, and what this process kept of it goes; how many loops were closed."""
    _stopping.discard(run)
    _noted.pop(run, None)
    return close_loops(run)
