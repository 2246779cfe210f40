"""One game between two bot processes, refereed move by move: the API the runner calls.

:func:`play_game` plays a :class:`~referee.order.GameOrder` (everything one game needs, checked
when it was built): it prepares the game's start once (:func:`prepare_start`: the opening
checked and played, cached per distinct start), gets both bots from a :class:`BotSource`
(fresh processes by default), plays (opening moves first, as book moves), enforces the
clocks with trio deadlines, checks every move with the rules, applies adjudication, turns any
failure into the right result and :class:`Termination`, and always hands both connections
back (a fresh process is ended with its group), also when cancelled. Underneath,
:func:`open_bot` and :func:`play_on` let a caller reuse processes between games
(``uginewgame``): ``arena play --games N`` and the web seat.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec
import trio

from protocol.bounds import (
    MAX_INFO_STRING_CHARS,
    MAX_MOVE_CHARS,
    MAX_PV_MOVES,
    MAX_REASON_CHARS,
    clip,
)
from protocol.messages import GameOver, Go, Partie, SearchInfo
from referee.adjudication import Adjudication, ScoreVerdict, ScoreWatch, centipawns_of
from referee.botsource import BotSource
from referee.botspec import BotSpec
from referee.connection import (
    HANDSHAKE_TIMEOUT_S,
    BotConnection,
    BotCrashed,
    BotError,
    Turn,
)
from referee.dialects import start_connection
from referee.gamefiles import stderr_path, transcript_path
from referee.gameoptions import game_options_for
from referee.games import Game, GameError, IllegalMove, MoveSyntaxError, get_game
from referee.games.base import Outcome
from referee.latency import LatencyLog
from referee.order import GameOrder
from referee.process.boterrors import BotStartError
from referee.process.faults import MachineFault, SandboxSetupError, machine_fault
from referee.process.spawn import Launched
from referee.record import GameRecord, MoveRecord, PartieRecord, Termination, result_for
from referee.thinkslots import ThinkSlots
from referee.timecontrol import Clock

SIDES = ("p1", "p2")
_SIDE_WORDS: tuple[Literal["p1"], Literal["p2"]] = ("p1", "p2")


class _End(Exception):
    """The game ended; carries everything the record needs."""

    def __init__(self, winner: int | None, termination: Termination, reason: str,
                 result: str | None = None, rule: str = "") -> None:
        super().__init__(reason)
        self.rule = rule
        """The adjudication rule that ended the game (``resign``, ``draw``, ``draw_rules``,
        ``max_plies``), "" when none did."""
        self.winner = winner
        self.termination = termination
        self.reason = reason
        self.result = result if result is not None else result_for(winner)


def _who(side: int, name: str) -> str:
    return f"{SIDES[side]} ({name})"


def _loss(side: int, name: str, error: BotError | BotStartError) -> _End:
    termination = error.termination if isinstance(error, BotError) else Termination.CRASH
    return _End(1 - side, termination, f"{_who(side, name)}: {error}")


async def open_bot(spec: BotSpec, *, log_dir: Path | None = None,
                   timeout: float | None = None, game_id: str = "",
                   launched: Launched | None = None) -> BotConnection:
    """Start a bot (or take over ``launched``, started with a stderr pipe exactly when
    ``log_dir`` is given) and complete its handshake and options; on failure nothing is left
    running and :class:`BotError` (or :class:`BotStartError`) says why."""
    connection = await start_connection(spec, stderr_path(log_dir, spec.name, game_id),
                                        launched)
    try:
        await connection.handshake(HANDSHAKE_TIMEOUT_S if timeout is None else timeout)
    except BaseException as exc:
        await connection.aclose()
        failure = connection.channel.sandbox_failure() if isinstance(exc, BotError) else None
        if failure is not None:  # the bot never ran: nobody's loss, the game is replayed
            raise SandboxSetupError(f"bot {spec.name!r}: {failure}") from exc
        raise
    return connection


class FreshBots:
    """A :class:`BotSource` that starts a process for every game and ends it after the game
    (what ``restart = "always"`` means, and what a lone :func:`play_game` does)."""

    def __init__(self, log_dir: Path | None = None, timeout: float | None = None) -> None:
        self.log_dir = log_dir
        self.timeout = timeout

    async def acquire(self, spec: BotSpec, game_id: str) -> BotConnection:
        return await open_bot(spec, log_dir=self.log_dir, timeout=self.timeout, game_id=game_id)

    async def release(self, connection: BotConnection, side: int,
                      record: GameRecord | None) -> None:
        await connection.aclose()


class GameStart(msgspec.Struct, frozen=True):
    """Where one game starts, prepared by :func:`prepare_start`: the opening played, checked
    and written as the rules write it. ``board`` is this game's own copy."""

    board: Game[Any]
    """The board after the opening; the move loop plays on it."""
    book: tuple[tuple[int, str], ...]
    """The opening as played: (side, move in the rules' notation) per book move."""
    first: int
    """The side to move once the opening is played (the one ``uginewgame`` waits for)."""
    text: str
    """The start position's text (before the opening), as the record keeps it."""
    _initial: Game[Any]
    """The start before the opening: shared between games, never played on."""
    opening_parties: tuple[Partie, ...] = ()
    """The ``partie`` lines of the parties the opening itself ended (Donkan: a book line or
    random plies in which a king falls), each with the round's score after it: the bots
    are told of them before the first search, as of any other partie's end."""

    def initial(self) -> Game[Any]:
        """A copy of the board before the opening (what a game that never began shows)."""
        return self._initial.copy()


def prepare_start(order: GameOrder) -> GameStart:
    """The start of ``order``'s game; a :class:`GameError` names a bad start position or the
    bad opening move, before any process starts.

    A tournament plays the same few starts over and over: each is read, checked and played
    once per process (:func:`_prepared`), and every game gets its own copy of the board."""
    initial, board, book, text, parties = _prepared(
        get_game(order.game), order.start_position, order.opening,
        tuple(sorted(order.game_options.items())))
    return GameStart(board.copy(), book, int(board.side_to_move), text, initial, parties)


@functools.lru_cache(maxsize=256)
def _prepared(rules: type[Game[Any]], start_position: str | None, opening: tuple[str, ...],
              options: tuple[tuple[str, str], ...]
              ) -> tuple[Game[Any], Game[Any], tuple[tuple[int, str], ...], str,
                         tuple[Partie, ...]]:
    """The start of :func:`prepare_start`: the boards before and after the opening, the book
    moves, the start's text and the parties the opening ended; the boards are never handed
    out themselves (callers get copies), and the rules class is part of the key, so a game
    registered anew is read anew."""
    game_options = dict(options)
    if start_position in (None, "", "startpos"):
        initial = rules.start(**game_options)
    else:
        initial = rules.from_position(start_position, **game_options)  # type: ignore[arg-type]
    board = initial.copy()
    book: list[tuple[int, str]] = []
    parties: list[Partie] = []
    seen = len(_parties(board)[0])
    for index, move in enumerate(opening):
        if board.outcome() is not None:
            raise GameError(f"opening move {index + 1} {move!r}: the game is already over")
        side = int(board.side_to_move)
        try:
            parsed = board.parse_move(move)
        except GameError as exc:
            raise GameError(f"opening move {index + 1} {move!r}: {exc}") from None
        book.append((side, board.format_move(parsed)))
        board.push(parsed)
        ended, score = _parties(board)
        if len(ended) > seen:
            seen = len(ended)
            parties.append(_partie_line(ended[-1], score))
    return initial, board, tuple(book), initial.position(), tuple(parties)


async def play_game(order: GameOrder, bots: BotSource | None = None, *,
                    on_move: Callable[[MoveRecord], None] | None = None,
                    transcript_dir: Path | None = None,
                    slots: ThinkSlots | None = None) -> GameRecord:
    """Play the game ``order`` describes and return its full record.

    The connections come from ``bots`` and go back to it with the record (default: fresh
    processes, started for this game and ended after it, without stderr logs; pass
    ``FreshBots(log_dir)`` for them). The lines of ``debug`` bots go to
    ``transcript_dir/<game id>.log``. With ``slots``, each timed move waits for a thinking
    slot before its ``go`` (:mod:`referee.thinkslots`), shared with the other games given them,
    and so does each bot a timed game has to start (an idle pooled bot is taken at once).
    Raises :class:`GameError` (before starting anything) for a bad position or opening, and
    :class:`MachineFault` when a bot could not be started because of the machine (too many
    open files, no processes left, disk full...): that game has no result.
    Bot failures never raise: they end the game with the right termination. When cancelled,
    both connections go back without a record and the cancellation propagates."""
    start = prepare_start(order)
    specs = order.bots
    started_at = time.time()
    connections: list[BotConnection | None] = [None, None]
    failures: list[BotError | BotStartError | None] = [None, None]
    source: BotSource = bots if bots is not None else FreshBots()
    record: GameRecord | None = None
    faults: list[MachineFault] = []

    # A bot's start (its process loading, its handshake) needs a core as a search does: on a
    # clock it takes a thinking slot too, or the first searches of a run share the cores with
    # every engine of its first games loading at once and forfeit for the machine's sake.
    gate = _timed_gate(order, slots)

    async def open_side(side: int) -> None:
        try:
            if gate is None:
                connections[side] = await source.acquire(specs[side], order.id)
            else:
                async with gate.held():
                    connections[side] = await source.acquire(specs[side], order.id)
        except Exception as exc:  # noqa: BLE001 - sorted just below: the bot's or the machine's
            fault = machine_fault(exc)
            if fault is not None:
                faults.append(fault)
            elif isinstance(exc, BotError | BotStartError):
                failures[side] = exc
            else:
                raise

    try:
        # A pool's idle processes are taken at once; only what is left to start (a fresh
        # process, a handshake) is waited for, both sides at once when both need it.
        take_idle = getattr(source, "take_idle", None)
        if take_idle is not None:
            for side in (0, 1):
                connections[side] = take_idle(specs[side], order.id)
        missing = [side for side in (0, 1) if connections[side] is None]
        if len(missing) == 1:
            await open_side(missing[0])
        elif missing:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(open_side, 0)
                nursery.start_soon(open_side, 1)
        if faults:  # the machine's trouble is nobody's loss: no record, the game is replayed
            raise faults[0]
        if failures[0] is not None or failures[1] is not None:
            end = _start_failure(specs, failures)
            record = _record(order, (specs[0].name, specs[1].name), start, start.initial(), [],
                             end, started_at)
            return record
        c1, c2 = connections
        assert c1 is not None and c2 is not None
        debug = specs[0].debug or specs[1].debug  # only a debug bot's lines are recorded
        record = await _play_on(
            order, start, (c1, c2), on_move=on_move, overheads=None, slots=slots,
            transcript=None if transcript_dir is None or not debug
            else transcript_path(transcript_dir, order.id),
        )
        return record
    finally:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for side, connection in enumerate(connections):
                    if connection is not None:
                        nursery.start_soon(source.release, connection, side, record)


def _timed_gate(order: GameOrder, slots: ThinkSlots | None) -> ThinkSlots | None:
    """The slots that a game's bot starts and resets wait for: none for a game on no clock."""
    if slots is None or all(tc.infinite for tc in order.time_controls):
        return None
    return slots


def _start_failure(specs: tuple[BotSpec, BotSpec],
                   failures: Sequence[BotError | BotStartError | None]) -> _End:
    broken = [side for side in (0, 1) if failures[side] is not None]
    first = failures[broken[0]]
    assert first is not None
    if len(broken) == 1:
        return _loss(broken[0], specs[broken[0]].name, first)
    end = _loss(0, specs[0].name, first)
    reason = f"both bots failed to start: {end.reason}; {_who(1, specs[1].name)}: {failures[1]}"
    return _End(None, end.termination, reason)


def _go(clocks: tuple[Clock, Clock], side: int) -> Go:
    """The ``go`` for ``side``: both clocks, or its move time, plus its search limits."""
    mine = clocks[side].tc
    go = Go(nodes=mine.nodes, depth=mine.depth)
    if mine.movetime_ms is not None:
        go.movetime = round(mine.movetime_ms)
        return go
    if clocks[side].remaining_ms is None:
        return go
    for who, clock in enumerate(clocks):
        if clock.remaining_ms is None or clock.tc.movetime_ms is not None:
            continue
        if who == 0:
            go.p1time, go.p1inc = round(clock.remaining_ms), round(clock.tc.inc_ms)
        else:
            go.p2time, go.p2inc = round(clock.remaining_ms), round(clock.tc.inc_ms)
    go.movestogo = clocks[side].moves_to_go()
    return go


def _int64(value: int | None) -> int | None:
    """A number the journal can hold (JSON through msgspec takes 64 bits), else None."""
    return value if value is None or -(1 << 63) <= value < 1 << 63 else None


def _info_record(info: Any) -> SearchInfo | None:
    """The record of a move's last ``info``, within the caps of :mod:`protocol.bounds` (the
    parser already applies them; a dialect that builds ``Info`` itself is cut here too)."""
    if info is None:
        return None
    pv = [clip(move, MAX_MOVE_CHARS) for move in info.pv[:MAX_PV_MOVES]]
    string = None if info.string is None else clip(info.string, MAX_INFO_STRING_CHARS)
    return SearchInfo(depth=_int64(info.depth), seldepth=_int64(info.seldepth),
                      score_cp=_int64(info.score_cp), score_mate=_int64(info.score_mate),
                      nodes=_int64(info.nodes), nps=_int64(info.nps), time_ms=_int64(info.time_ms),
                      pv=pv,
                      pv_more=getattr(info, "pv_more", 0) + len(info.pv) - len(pv),
                      string=string)


def _scored(reply: Any) -> Any:
    """The move's latest search report that carries a score (the last ``info`` may not)."""
    return getattr(reply, "scored", None)


def _parties(board: Game[Any]) -> tuple[list[PartieRecord], list[int]]:
    """The parties and round score of a game played in rounds (the base's ``round_state``
    hook, Donkan's); empty for other games."""
    state = board.round_state()
    if state is None:
        return [], []
    return list(state.parties), list(state.score)


def _partie_line(last: PartieRecord, score: Sequence[int]) -> Partie:
    """The ``partie`` line of the partie that just ended, with the round's ``score`` after it."""
    return Partie(winner="none" if last.winner is None else _SIDE_WORDS[last.winner],
                  points=last.points, score1=score[0] if score else 0,
                  score2=score[1] if len(score) > 1 else 0)


async def play_on(
    order: GameOrder,
    connections: tuple[BotConnection, BotConnection],
    *,
    on_move: Callable[[MoveRecord], None] | None = None,
    transcript: Path | None = None,
    overheads: list[tuple[float, float]] | None = None,
) -> GameRecord:
    """Play the game ``order`` describes on two connections that have completed their
    handshake (the names on the record are theirs).

    Starts with ``uginewgame`` on both, so the same processes can play game after game. The
    connections stay open (the caller closes them). ``overheads`` collects, per bot move, the
    seconds from reading one bot's ``bestmove`` to the start and to the end of the write of
    the other's ``position``/``legal``/``go`` (for the benchmark). The lines of ``debug``
    bots are written to ``transcript`` (one file for both, with a shared clock); the record's
    ``transcript`` tag names the file. Raises :class:`GameError` for a bad position or
    opening, before a line is sent."""
    return await _play_on(order, prepare_start(order), connections, on_move=on_move,
                          transcript=transcript, overheads=overheads)


async def _play_on(
    order: GameOrder,
    start: GameStart,
    connections: tuple[BotConnection, BotConnection],
    *,
    on_move: Callable[[MoveRecord], None] | None,
    transcript: Path | None,
    overheads: list[tuple[float, float]] | None,
    slots: ThinkSlots | None = None,
) -> GameRecord:
    """:func:`play_on` from a start prepared already (:func:`play_game` prepares it before it
    starts the bots); ``slots`` gate its timed moves."""
    specs = (connections[0].spec, connections[1].spec)
    names = (specs[0].name, specs[1].name)
    started_at = time.time()
    board = start.board
    moves: list[MoveRecord] = []
    fen = None if order.start_position in (None, "", "startpos") else start.text
    played = [move for _, move in start.book]
    tcs = order.time_controls
    clocks = (Clock(tcs[0]), Clock(tcs[1]))
    recorded = False
    if transcript is not None:
        origin = time.monotonic()
        for connection in connections:
            recorded = connection.record_to(transcript, origin) or recorded
    begun = False
    latency = LatencyLog()
    try:
        await _new_game(order.game, connections, order.game_options, start.first,
                        _timed_gate(order, slots))
        begun = True
        for side, move in start.book:
            book = MoveRecord(move=move, side=side, elapsed_ms=0.0, book=True)
            moves.append(book)
            if on_move is not None:
                on_move(book)
        for partie in start.opening_parties:  # ended by book moves: told before any search
            for connection in connections:
                await connection.partie(partie)
        await _play_moves(board, connections, names, clocks, fen, played, moves,
                          order.adjudication, on_move, overheads, latency, slots)
    except _End as end:
        final = end
    else:  # pragma: no cover - _play_moves always ends with _End
        raise AssertionError("game loop returned without an end")
    # A game the bots never began ends where it starts, before the opening.
    record = _record(order, names, start, board if begun else start.initial(), moves, final,
                     started_at)
    record.latency = latency.summary()
    notice = GameOver(result=record.result, termination=str(record.termination),
                      score=record.score, text=record.reason)
    try:
        with trio.move_on_after(1.0):
            for connection in connections:
                await connection.game_over(notice)
    finally:
        if recorded:
            for connection in connections:
                connection.record_to(None)
    if recorded and transcript is not None:
        record.tags = {**record.tags, "transcript": transcript.name}
    return record


async def _new_game(game: str, connections: tuple[BotConnection, BotConnection],
                    game_options: Mapping[str, str], first: int,
                    gate: ThinkSlots | None = None) -> None:
    """Both bots told of the new game; only the side that moves ``first`` is waited for: the
    other one's readiness answer is read before its first search (a reset costs engines
    milliseconds, Fairy-Stockfish 7 ms, in which the first side can already think). Under
    think slots (``gate``) each reset takes a slot and is waited for: a fresh engine's first
    reset touches its whole hash, and at 32 games at once those resets overlapping the first
    searches lost games on time."""
    failures: list[BotError | None] = [None, None]

    async def one(side: int) -> None:
        try:
            if gate is None:
                await connections[side].new_game(game, game_options, wait=side == first)
                return
            async with gate.held():  # a reset is work too: done in a slot, and waited for
                await connections[side].new_game(game, game_options, wait=True)
        except BotError as exc:
            failures[side] = exc

    if connections[0].owed_bestmoves or connections[1].owed_bestmoves:
        async with trio.open_nursery() as nursery:  # a late move to drain: both at once
            nursery.start_soon(one, 0)
            nursery.start_soon(one, 1)
    else:  # lines written at once (or announced ahead already); only ``first`` is waited for
        await one(1 - first)
        await one(first)
    specs = (connections[0].spec, connections[1].spec)
    if failures[0] is not None or failures[1] is not None:
        raise _start_failure(specs, failures)


def _check_end(board: Game[Any], adjudication: Adjudication, moves: list[Any]) -> None:
    """Raise :class:`_End` when the game is over here; ``moves`` are this position's legal
    moves, generated once per turn for the end test, the legal line and the answer's check."""
    outcome: Outcome | None = board.outcome_given(moves)
    if outcome is not None:
        raise _End(outcome.winner, Termination.NORMAL, _outcome_text(outcome))
    if adjudication.draw_rules:
        outcome = board.adjudication()
        if outcome is not None:
            raise _End(outcome.winner, Termination.ADJUDICATION, _outcome_text(outcome),
                       rule="draw_rules")
    if adjudication.max_plies is not None and board.ply >= adjudication.max_plies:
        raise _End(None, Termination.ADJUDICATION,
                   f"draw by move cap: {board.ply} plies (max_plies = {adjudication.max_plies})",
                   rule="max_plies")


def _outcome_text(outcome: Outcome) -> str:
    who = "draw" if outcome.winner is None else f"{SIDES[outcome.winner]} wins"
    return f"{who} ({outcome.reason})" + (f": {outcome.detail}" if outcome.detail else "")


async def _play_moves(
    board: Game[Any],
    connections: tuple[BotConnection, BotConnection],
    names: tuple[str, str],
    clocks: tuple[Clock, Clock],
    fen: str | None,
    played: list[str],
    moves: list[MoveRecord],
    adjudication: Adjudication,
    on_move: Callable[[MoveRecord], None] | None,
    overheads: list[tuple[float, float]] | None,
    latency: LatencyLog,
    slots: ThinkSlots | None = None,
) -> None:
    """The move loop; ends by raising :class:`_End`. ``latency`` hears of every move's
    delays (:mod:`referee.latency`); a timed move first waits for one of the ``slots``."""
    last_read: float | None = None
    track_parties = board.round_state() is not None
    parties_seen = len(_parties(board)[0]) if track_parties else 0
    watch = ScoreWatch(adjudication)
    verdict: ScoreVerdict | None = None
    wins_at_once: dict[int, bool] = {}  # the UCI dialect's per-position test, shared by both
    while True:
        # One move generation per turn: the end test, the legal line, the check of the answer.
        internal = board.moves()
        _check_end(board, adjudication, internal)
        if verdict is not None:  # the rules' own end, checked first, takes precedence
            text = verdict.text
            if verdict.winner is not None:
                loser = 1 - verdict.winner
                text = text.format(loser=_who(loser, names[loser]),
                                   winner=_who(verdict.winner, names[verdict.winner]))
            raise _End(verdict.winner, Termination.ADJUDICATION, text, rule=verdict.rule)
        side = board.side_to_move
        connection = connections[side]
        legal = board.format_moves(internal)
        clock = clocks[side]
        budget_ms = clock.budget_ms()
        # Only a move on the wall clock waits for a thinking slot, and before its go: the
        # bot's clock starts with the slot (referee.thinkslots).
        gate = slots if budget_ms is not None else None
        waited = await gate.acquire() if gate is not None else 0.0
        # A clocked move's wait for a CPU is not charged (referee.process.schedstat); a move
        # on no clock (nodes=1) samples nothing.
        meter = (connection.wait_meter if budget_ms is not None and clock.tc.credit_waits
                 else None)
        try:
            reply = await connection.request_move(
                Turn(board, fen, played, legal, _go(clocks, side), wins_at_once),
                None if budget_ms is None else budget_ms / 1000, meter,
            )
        except BotError as exc:
            raise _loss(side, names[side], exc) from None
        finally:
            if gate is not None:
                gate.release()
        if overheads is not None and last_read is not None:
            overheads.append((reply.sent_at - last_read, reply.written_at - last_read))
        latency.move(side, turnaround_s=None if last_read is None
                     else reply.written_at - last_read - waited,
                     first_line_s=None if reply.first_at is None
                     else reply.first_at - reply.written_at,
                     elapsed_ms=reply.elapsed_ms,
                     reported_ms=None if reply.info is None else reply.info.time_ms,
                     slot_wait_s=waited if gate is not None else None,
                     cpu_wait_ms=reply.waited_ms if meter is not None else None)
        last_read = reply.read_at
        charged_ms = reply.elapsed_ms - reply.waited_ms
        if clock.is_over(charged_ms):
            credited = (f" ({reply.elapsed_ms:.0f} ms, less {reply.waited_ms:.0f} ms waiting "
                        "for a CPU)" if reply.waited_ms else "")
            raise _End(1 - side, Termination.TIME_FORFEIT,
                       f"{_who(side, names[side])} lost on time: {charged_ms:.0f} ms "
                       f"used{credited}, {budget_ms:.0f} ms allowed (clock plus margin)")
        clock_ms = clock.spend(charged_ms)
        canonical = reply.move
        try:  # a handful of moves: a search of the list costs less than a dict of it
            move = internal[legal.index(canonical)]
        except ValueError:
            move, canonical = _unusual_move(board, side, names[side], canonical)
        board.push(move)
        played.append(canonical)
        record = MoveRecord(move=canonical, side=side, elapsed_ms=round(reply.elapsed_ms, 3),
                            clock_ms=None if clock_ms is None else round(clock_ms, 3),
                            info=_info_record(reply.info), waited_ms=round(reply.waited_ms, 3))
        moves.append(record)
        if on_move is not None:
            on_move(record)
        if watch.active:
            verdict = watch.observe(side, centipawns_of(_scored(reply)), board.ply)
        if track_parties:
            parties, score = _parties(board)
            if len(parties) > parties_seen:
                parties_seen = len(parties)
                notice = _partie_line(parties[-1], score)
                for other in connections:
                    await other.partie(notice)


def _unusual_move(board: Game[Any], side: int, name: str, text: str) -> tuple[Any, str]:
    """A move not written as in the legal list: another accepted notation (draughts' short
    and long captures), or an illegal move (ends the game). Dialects have already turned
    their own notations (Hub captures, FSF's promotions) into the arena's."""
    shown = clip(text, MAX_MOVE_CHARS)
    if text == "(none)":
        raise _End(1 - side, Termination.ILLEGAL_MOVE,
                   f"{_who(side, name)} answered 'bestmove (none)' (no move) in "
                   f"position {board.position()!r}")
    try:
        move = board.parse_move(text)
    except (IllegalMove, MoveSyntaxError, GameError) as exc:
        raise _End(1 - side, Termination.ILLEGAL_MOVE,
                   f"{_who(side, name)} played illegal move {shown!r}: {exc}") from None
    return move, board.format_move(move)


def unfinished_record(order: GameOrder, moves: Sequence[MoveRecord], started_at: float,
                      why: str) -> GameRecord:
    """The record of ``order``'s game stopped before its end (Ctrl-C, a server stopped) after
    ``moves`` (book moves included, as ``on_move`` saw them): result ``*``, termination
    ``interrupt``, no winner, the position the moves lead to, the reason "stopped after N
    plies (``why``)". Readers skip such games in ratings and count them as interrupted in
    reports, as they do the runner's."""
    plies = f"{len(moves)} ply" if len(moves) == 1 else f"{len(moves)} plies"
    reason = f"stopped after {plies} ({why})"
    start = prepare_start(order)
    board = start.initial()
    for move in moves:
        board.play(move.move)
    names = (order.bots[0].name, order.bots[1].name)
    end = _End(None, Termination.INTERRUPT, reason, result="*")
    return _record(order, names, start, board, list(moves), end, started_at)


def _record(order: GameOrder, names: tuple[str, str], start: GameStart, board: Game[Any],
            moves: list[MoveRecord], end: _End, started_at: float) -> GameRecord:
    parties, score = _parties(board)
    return GameRecord(
        game=order.game, p1=names[0], p2=names[1], result=end.result,
        termination=end.termination, reason=clip(end.reason, MAX_REASON_CHARS),
        winner=end.winner, id=order.id,
        round=order.round, start_position=start.text, opening=list(order.opening),
        moves=moves, final_position=board.position(), time_control=order.time_control,
        started_at=started_at, ended_at=time.time(), plies=len(moves), parties=parties,
        score=score, options={k: str(v) for k, v in order.game_options.items()},
        adjudication=end.rule, tags=dict(order.tags),
    )


__all__ = [
    "BotCrashed",
    "FreshBots",
    "GameRecord",
    "GameStart",
    "MoveRecord",
    "open_bot",
    "play_game",
    "play_on",
    "game_options_for",
    "prepare_start",
    "unfinished_record",
]
