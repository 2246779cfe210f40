"""Making a book: candidates scored by an engine through the protocol, the balanced ones kept.

``arena openings make`` draws candidates (:mod:`arena.openings.candidates`), has an engine
search each one and keeps those whose score lies within the window (:meth:`Scored.balanced`).
The engine is any bot: the sample alpha-beta by default, Fairy-Stockfish or Scan through their
dialects. It is started and spoken to exactly as in a game, by :func:`referee.match.open_bot`
(sandboxed and limited like any bot), and each candidate is one search in
a fresh game (``uginewgame``, then ``position``/``go`` with the search limit), so an engine's
hash table never carries one candidate's search into the next: a score depends on the
candidate alone, not on the order the engines took them in.

Why a journal: a book of several hundred openings takes minutes to an hour of engine time.
Every score is a line of ``BOOK.making.jsonl`` (:class:`MakeJournal`), written as it comes;
the same command run again reads it and scores only the candidates it lacks, and the
journal is removed once the book is written. Its first line holds what decides the
candidates and their scores (:class:`MakeSettings`): a resume with other settings is refused
naming them, while ``--count`` and ``--window`` may change (they only choose among scores).

The book is the first ``count`` balanced candidates in the seed's sequence, whatever the
concurrency: every candidate before the last one handed out is scored before the book is cut.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import msgspec

from arena.errors import UserError
from arena.openings.candidates import Candidate, candidates
from arena.rundir.textlines import LastLine, LineReader
from protocol.messages import Go
from referee.botspec import BotSpec
from referee.connection import BotConnection, BotError, Turn
from referee.games import get_game
from referee.match import open_bot
from referee.process.boterrors import BotStartError
from referee.process.faults import SandboxSetupError
from referee.timecontrol import TimeControl, TimeControlError

SEARCH_TIMEOUT_S: Final = 120.0
"""How long one search may take before the engine is taken to hang (a depth or node limit has
no clock of its own; ``st=S`` gets twice S and 10 s more if that is longer): restarted once,
then the make stops naming it."""
JOURNAL_SUFFIX: Final = ".making.jsonl"
_T = TypeVar("_T")


class MakeSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What decides a book's candidates and their scores: the journal's first line, compared
    on resume. ``count`` and ``window`` are not here: they only choose among the scores."""

    game: str
    options: dict[str, str]
    """The game options (Donkan ``target``...)."""
    plies: int
    seed: int
    limit: str
    """The engine's search limit as given (``depth=4``, ``nodes=20000``, ``st=0.1``)."""
    engine: list[str]
    """The engine's command line."""
    protocol: str
    engine_options: dict[str, str]


class Scored(msgspec.Struct, frozen=True):
    """One candidate and what the engine said of it, from the first mover's (p1's) side."""

    index: int
    moves: tuple[str, ...]
    position: str
    cp: int | None
    """Centipawns for p1 (the side that moves first from the start), None for a mate score."""
    mate: int | None
    """Moves to mate for p1 (negative: p1 is mated), None for an ordinary score."""
    depth: int | None
    """The depth of the search that gave the score, if the engine said it."""
    best: str
    """The engine's move in the candidate's position."""

    def balanced(self, window: int) -> bool:
        """Is the score within ``window`` centipawns of even (never a mate)?"""
        return self.mate is None and self.cp is not None and abs(self.cp) <= window

    def describe(self, engine: str) -> str:
        """The evaluation as a book's comment: ``p1 +12 cp (alphabeta, depth 4, best b1c2)``."""
        score = f"p1 mate {self.mate:+d}" if self.mate is not None else f"p1 {self.cp:+d} cp"
        depth = f", depth {self.depth}" if self.depth is not None else ""
        return f"{score} ({engine}{depth}, best {self.best})"


def search_limit(text: str) -> Go:
    """The ``go`` of a limit text in time-control syntax: ``depth=N``, ``nodes=N`` or
    ``st=SECONDS`` (a fixed time per search); a clock (``10+0.1``) has no meaning for one
    search and is refused."""
    try:
        tc = TimeControl.parse(text)
    except TimeControlError as exc:
        raise UserError(f"--limit {text!r}: {exc}") from None
    if tc.base_ms is not None:
        raise UserError(f"--limit {text!r}: a clock has no meaning for one search; give "
                        "depth=N, nodes=N or st=SECONDS (time per search)")
    if tc.depth is None and tc.nodes is None and tc.movetime_ms is None:
        raise UserError(f"--limit {text!r}: no limit; give depth=N, nodes=N or st=SECONDS")
    movetime = None if tc.movetime_ms is None else round(tc.movetime_ms)
    return Go(depth=tc.depth, nodes=tc.nodes, movetime=movetime)


class MakeJournal:
    """``BOOK.making.jsonl``: the settings, then one :class:`Scored` per line, appended as the
    engines answer. A last line without its newline (a make killed mid-write) is cut off when
    the journal is opened again; any other bad line is an error naming it."""

    def __init__(self, book: Path) -> None:
        self.path = book.with_name(book.name + JOURNAL_SUFFIX)
        self._file: Any = None

    def open(self, settings: MakeSettings) -> dict[int, Scored]:
        """The scores of an earlier make with the same settings (none for a new one), and the
        journal open for appending, its header written if it is new."""
        done: dict[int, Scored] = {}
        if self.path.exists():
            done = self._read(settings)
        else:
            self.path.write_bytes(msgspec.json.encode(settings) + b"\n")
        self._file = self.path.open("ab")
        return done

    def _read(self, settings: MakeSettings) -> dict[int, Scored]:
        reader = LineReader(self.path, LastLine.PENDING)
        done: dict[int, Scored] = {}
        try:
            for line in reader:
                where = f"{self.path}:{line.number}"
                if line.number == 1:
                    _same_settings(_decode(line.data, MakeSettings, where), settings, where)
                    continue
                scored = _decode(line.data, Scored, where)
                done[scored.index] = scored
        except OSError as exc:
            raise UserError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        if reader.lines == 0:
            raise UserError(f"{self.path}: no settings line; delete the file to start afresh")
        if reader.torn is not None:
            with self.path.open("r+b") as fh:
                fh.truncate(reader.torn.offset)
        return done

    def append(self, scored: Scored) -> None:
        self._file.write(msgspec.json.encode(scored) + b"\n")
        self._file.flush()

    def close(self, *, remove: bool = False) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if remove:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)


def _decode(data: bytes, kind: type[_T], where: str) -> _T:
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.DecodeError as exc:
        raise UserError(f"{where}: not a line of a book's making journal ({exc}); delete the "
                        "file to start afresh") from None


def _same_settings(earlier: MakeSettings, now: MakeSettings, where: str) -> None:
    """A resume must score the same candidates the same way."""
    changed = [name for name in MakeSettings.__struct_fields__
               if getattr(earlier, name) != getattr(now, name)]
    if changed:
        was = ", ".join(f"{name} {getattr(earlier, name)!r} (now {getattr(now, name)!r})"
                        for name in changed)
        raise UserError(f"{where}: this book was begun with {was}; run the command it was "
                        "begun with to finish it, or delete the journal to start afresh")


@dataclass
class MakeProgress:
    """Where a make stands, for the command's progress line."""

    scored: int
    """Candidates scored (those of an earlier run included)."""
    kept: int
    """Balanced ones among them."""
    count: int
    """Balanced ones wanted."""
    resumed: int
    """Scores read back from the journal when this run began."""


@dataclass
class MadeBook:
    openings: list[Scored]
    """The book: the first ``count`` balanced candidates in the seed's order."""
    scored: int
    """Distinct candidates scored."""
    exhausted: bool
    """The game ran out of distinct positions that many plies deep before ``count``."""


async def make_book(settings: MakeSettings, engine: BotSpec, journal: MakeJournal, *,
                    count: int, window: int, concurrency: int = 1,
                    timeout: float = SEARCH_TIMEOUT_S,
                    progress: Callable[[MakeProgress], None] | None = None) -> MadeBook:
    """Score candidates with ``concurrency`` processes of ``engine`` until ``count`` are
    balanced within ``window`` (or the game has no more), journaling every score."""
    import trio  # only a make needs it: the book readers and the schedule do not

    go = search_limit(settings.limit)
    if go.movetime is not None:  # a long fixed time per search is no hang
        timeout = max(timeout, 2 * go.movetime / 1000 + 10)
    done = journal.open(settings)
    resumed = len(done)
    kept = sum(1 for s in done.values() if s.balanced(window))
    exhausted = True

    def report() -> None:
        if progress is not None:
            progress(MakeProgress(len(done), kept, count, resumed))

    async def produce(send: trio.MemorySendChannel[Candidate]) -> None:
        nonlocal exhausted
        async with send:
            for candidate in candidates(settings.game, settings.options, settings.plies,
                                        settings.seed):
                if kept >= count:
                    exhausted = False
                    return
                if candidate.index not in done:
                    await send.send(candidate)

    async def work(receive: trio.MemoryReceiveChannel[Candidate]) -> None:
        nonlocal kept
        async with receive:
            connection = await _start(engine)
            try:
                async for candidate in receive:
                    scored, connection = await _score_retrying(
                        connection, engine, settings, candidate, go, timeout)
                    journal.append(scored)
                    done[scored.index] = scored
                    kept += scored.balanced(window)
                    report()
            finally:
                with trio.CancelScope(shield=True):
                    await connection.aclose()

    report()
    try:
        send, receive = trio.open_memory_channel[Candidate](0)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(produce, send)
            for _ in range(max(1, concurrency)):
                nursery.start_soon(work, receive.clone())
            await receive.aclose()
    except BaseExceptionGroup as group:  # the workers' own error, not the nursery's wrapping
        raise _leaf(group) from None
    finally:
        journal.close()
    ordered = sorted((s for s in done.values() if s.balanced(window)), key=lambda s: s.index)
    return MadeBook(ordered[:count], len(done), exhausted and len(ordered) < count)


def _leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """What a failed make raises: Ctrl-C if it came, else the first worker's error."""
    if group.subgroup(KeyboardInterrupt) is not None:
        return KeyboardInterrupt()
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def _start(engine: BotSpec) -> BotConnection:
    """The engine, started and handshaken as for a game."""
    try:
        return await open_bot(engine)
    except (BotError, BotStartError, SandboxSetupError) as exc:
        raise UserError(f"engine {engine.name!r} did not start: {exc}") from None


async def _score_retrying(connection: BotConnection, engine: BotSpec, settings: MakeSettings,
                          candidate: Candidate, go: Go, timeout: float,
                          ) -> tuple[Scored, BotConnection]:
    """The candidate scored; an engine that fails (crash, stall, bad line) is restarted and
    asked again once, then the make stops naming the candidate and the failure."""
    try:
        return await _score(connection, settings, candidate, go, timeout), connection
    except BotError:
        await connection.aclose()
    connection = await _start(engine)
    try:
        return await _score(connection, settings, candidate, go, timeout), connection
    except BotError as exc:
        await connection.aclose()
        raise UserError(f"engine {engine.name!r} failed twice on candidate {candidate.index} "
                        f"(moves {' '.join(candidate.moves)}): {exc}") from None


async def _score(connection: BotConnection, settings: MakeSettings, candidate: Candidate,
                 go: Go, timeout: float) -> Scored:
    """One search of the candidate's position in a new game; the score turned to p1's side."""
    board = get_game(settings.game).new(None, candidate.moves, **settings.options)
    await connection.new_game(settings.game, settings.options)
    turn = Turn(board, None, list(candidate.moves), board.legal_moves(),
                msgspec.structs.replace(go))
    reply = await connection.request_move(turn, timeout)
    info = reply.scored
    if info is None:
        raise UserError(f"engine {connection.name!r} gave no score for candidate "
                        f"{candidate.index} (moves {' '.join(candidate.moves)}): a book's "
                        "engine must report 'info ... score cp N' (or 'score mate N')")
    sign = 1 if board.side_to_move == 0 else -1
    return Scored(
        index=candidate.index, moves=candidate.moves, position=candidate.position,
        cp=None if info.score_cp is None or info.score_mate is not None
        else sign * info.score_cp,
        mate=None if info.score_mate is None else sign * info.score_mate,
        depth=info.depth, best=reply.move)
