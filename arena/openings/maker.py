"""Making a book: candidates scored by an engine through the protocol, the balanced ones kept.

``arena openings make`` draws candidates (:mod:`arena.openings.candidates`), has an engine
score each one and keeps those within the window (:meth:`Scored.balanced`). Two scorers:
``search`` (one search of the candidate's position; its score in centipawns) and ``match``
(a quick match of the engine against itself from both colours, :mod:`arena.openings.selfplay`;
the first mover's share of the points).
The engine is any bot: the sample alpha-beta by default, Fairy-Stockfish or Scan through their
dialects. It is started and spoken to exactly as in a game, by :func:`referee.match.open_bot`
(sandboxed and limited like any bot), and each candidate is one search in
a fresh game (``uginewgame``, then ``position``/``go`` with the search limit), so an engine's
hash table never carries one candidate's search into the next: a score depends on the
candidate alone, not on the order the engines took them in.

A position with one legal move (a capture draughts makes compulsory) is scored after that
move: an engine with nothing to choose answers at once, after one ply of search (the sample
alpha-beta stops deepening there), and a depth-1 score is no depth-8 score. The forced
moves are searched through as the engine's own: the book keeps the candidate's moves.

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
from arena.openings.scoring import FirstMover
from arena.openings.selfplay import MATCH_MAX_PLIES, MatchPlan, UnfinishedGame, play_pairs
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
SCORERS: Final = ("search", "match")
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
    scorer: str = "search"
    """``search`` or ``match`` (:data:`SCORERS`); a journal of an older make is a search's."""
    pairs: int = 0
    """The match scorer's colour-swapped pairs per candidate (0 for a search)."""
    match_seed: int = 0
    """The match scorer's first ``Seed`` (:class:`MatchPlan`; 0 for a search)."""
    max_plies: int = 0
    """The match scorer's cap on a game's plies, a draw there (0 for a search)."""


@dataclass(frozen=True)
class Window:
    """When a scored candidate is kept: the search's score within ``cp`` centipawns of even,
    the match's first-mover score within ``lean`` of one half."""

    cp: int
    lean: float = 0.0


class Scored(msgspec.Struct, frozen=True):
    """One candidate and what the engine said of it, from the first mover's (p1's) side: a
    search's score and move, or a match's results."""

    index: int
    moves: tuple[str, ...]
    position: str
    cp: int | None = None
    """Centipawns for p1 (the side that moves first from the start), None for a mate score."""
    mate: int | None = None
    """Moves to mate for p1 (negative: p1 is mated), None for an ordinary score."""
    depth: int | None = None
    """The depth of the search that gave the score, if the engine said it."""
    best: str = ""
    """The engine's move in the candidate's position (a search's)."""
    match: FirstMover | None = None
    """The first mover's results in the match scorer's games (None for a search)."""

    def balanced(self, window: Window) -> bool:
        """Is the match's first-mover score within ``window.lean`` of one half, or else the
        search's score within ``window.cp`` centipawns of even (never a mate)?"""
        if self.match is not None:
            score = self.match.score
            return score is not None and abs(score - 0.5) <= window.lean + 1e-9
        return self.mate is None and self.cp is not None and abs(self.cp) <= window.cp

    def describe(self, engine: str) -> str:
        """The evaluation as a book's comment: ``p1 +12 cp (alphabeta, depth 4, best b1c2)``,
        or for a match ``p1 1/2 (+1 =0 -1) (alphabeta against itself)``."""
        if self.match is not None:
            m = self.match
            return (f"p1 {m.points:g}/{m.games} (+{m.wins} ={m.draws} -{m.losses}) "
                    f"({engine} against itself)")
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
                    count: int, window: Window | int, concurrency: int = 1,
                    timeout: float = SEARCH_TIMEOUT_S,
                    progress: Callable[[MakeProgress], None] | None = None) -> MadeBook:
    """Score candidates with ``concurrency`` workers of ``engine`` (each one process for a
    search, two for a match) until ``count`` are balanced within ``window`` (centipawns when
    a number) or the game has no more, journaling every score."""
    import trio  # only a make needs it: the book readers and the schedule do not

    if isinstance(window, int):
        window = Window(cp=window)
    scorer = _Scorer(settings, engine, timeout)
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
            connections = await scorer.start()
            try:
                async for candidate in receive:
                    scored, connections = await scorer.score_retrying(connections, candidate)
                    journal.append(scored)
                    done[scored.index] = scored
                    kept += scored.balanced(window)
                    report()
            finally:
                with trio.CancelScope(shield=True):
                    await _close(connections)

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


def match_plan(settings: MakeSettings) -> MatchPlan:
    """The match scorer's plan from a make's settings (its ``limit`` checked as a search's)."""
    search_limit(settings.limit)
    return MatchPlan(pairs=settings.pairs, seed=settings.match_seed,
                     limit=TimeControl.parse(settings.limit),
                     max_plies=settings.max_plies or MATCH_MAX_PLIES)


class _Scorer:
    """One worker's way of scoring a candidate: its engine processes (one for a search, the
    two copies of a match), restarted once when they fail on a candidate."""

    def __init__(self, settings: MakeSettings, engine: BotSpec, timeout: float) -> None:
        if settings.scorer not in SCORERS:
            raise UserError(f"unknown scorer {settings.scorer!r}; known: {', '.join(SCORERS)}")
        self.settings = settings
        self.engine = engine
        self.go = search_limit(settings.limit)
        if self.go.movetime is not None:  # a long fixed time per search is no hang
            timeout = max(timeout, 2 * self.go.movetime / 1000 + 10)
        self.timeout = timeout
        self.plan = match_plan(settings) if settings.scorer == "match" else None

    async def start(self) -> list[BotConnection]:
        connections: list[BotConnection] = []
        try:
            for _ in range(1 if self.plan is None else 2):
                connections.append(await _start(self.engine))
        except BaseException:
            await _close(connections)
            raise
        return connections

    async def score_retrying(self, connections: list[BotConnection], candidate: Candidate,
                             ) -> tuple[Scored, list[BotConnection]]:
        """The candidate scored; an engine that fails (crash, stall, bad line, a match game
        its fault ended) is restarted and asked again once, then the make stops naming the
        candidate and the failure."""
        try:
            return await self._score(connections, candidate), connections
        except (BotError, UnfinishedGame):
            await _close(connections)
        connections = await self.start()
        try:
            return await self._score(connections, candidate), connections
        except (BotError, UnfinishedGame) as exc:
            await _close(connections)
            raise UserError(f"engine {self.engine.name!r} failed twice on candidate "
                            f"{candidate.index} (moves {' '.join(candidate.moves)}): "
                            f"{exc}") from None

    async def _score(self, connections: list[BotConnection], candidate: Candidate) -> Scored:
        settings = self.settings
        if self.plan is None:
            return await _score(connections[0], settings, candidate, self.go, self.timeout)
        result = await play_pairs(connections, settings.game, settings.options,
                                  candidate.moves, self.plan)
        return Scored(index=candidate.index, moves=candidate.moves,
                      position=candidate.position, match=result)


async def _close(connections: list[BotConnection]) -> None:
    for connection in connections:
        await connection.aclose()


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


async def _score(connection: BotConnection, settings: MakeSettings, candidate: Candidate,
                 go: Go, timeout: float) -> Scored:
    """One search of the candidate's position in a new game; the score turned to p1's side.
    A position with one legal move is searched after it (and after any forced reply)."""
    board = get_game(settings.game).new(None, candidate.moves, **settings.options)
    played = list(candidate.moves)
    forced: list[str] = []
    while not board.is_over() and len(legal := board.legal_moves()) == 1:
        forced.append(legal[0])
        board.play(legal[0])
    played += forced
    if (outcome := board.outcome()) is not None:  # the forced moves end the game
        won = outcome.winner
        return Scored(index=candidate.index, moves=candidate.moves, position=candidate.position,
                      cp=0 if won is None else None,
                      mate=None if won is None else (1 if won == 0 else -1) * (
                          (len(forced) + 1) // 2),
                      depth=len(forced), best=forced[0])
    await connection.new_game(settings.game, settings.options)
    turn = Turn(board, None, played, board.legal_moves(), msgspec.structs.replace(go))
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
        depth=info.depth, best=forced[0] if forced else reply.move)
