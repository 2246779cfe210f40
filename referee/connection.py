"""Talking to one bot: the dialect-independent base of every connection.

One referee, one class per dialect over this base (after python-chess's ``UciProtocol`` /
``XBoardProtocol``): :mod:`referee.dialects` holds the arena's native protocol, UCI (so that
Fairy-Stockfish plays unchanged) and Hub (so that Scan plays unchanged). The base owns what
does not depend on the words: reading replies under deadlines, the clock of one move, the
``stop``/late-``bestmove`` bookkeeping and the mapping of every failure to a typed
:class:`BotError` that carries its :class:`Termination`, so the match loop maps failures to a
result in one place. A dialect only says which lines to write and how to read the answers.

A connection talks to a :class:`referee.channel.LineChannel` (the bot's pipes, or a scripted
fake in tests), never to a process directly.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

import msgspec
import trio

from protocol.bounds import MAX_OPTIONS
from protocol.lines import BadLine, ProtocolError
from protocol.messages import (
    BestMove,
    GameOver,
    Go,
    Id,
    Info,
    OptionDecl,
    Partie,
    ReadyOk,
    Reply,
    UgiOk,
)
from referee.botspec import BotSpec
from referee.channel import BotExited, LineChannel, RecordingChannel
from referee.process.schedstat import Sample, WaitMeter, credit_ms, spent_ms
from referee.record import Termination

HANDSHAKE_TIMEOUT_S: Final = 10.0
"""How long a bot may take to answer the handshake (and each readiness check)."""
WAIT_CREDIT_FLOOR_S: Final = 10.0
"""The least time a move may be credited for waiting for a CPU (:mod:`referee.process.
schedstat`); ten times the move's budget when that is more. A bot still thinking after that
much waiting forfeits: the referee does not wait for ever on a machine that has stalled."""
WAIT_CHECK_MIN_S: Final = 0.002
"""The shortest wait between two looks at a late move's credit (a sample of its threads)."""
STOP_GRACE_S: Final = 2.0
"""How long a bot that ran out of time may take, before its next game, to send the move it
still owes (it was sent ``stop``); the late move is read and thrown away."""


class BotError(Exception):
    """A bot failed; ``termination`` says how the game ends because of it."""

    termination: ClassVar[Termination] = Termination.CRASH

    def __init__(self, bot: str, message: str) -> None:
        super().__init__(message)
        self.bot = bot


class BotCrashed(BotError):
    termination = Termination.CRASH


class BotStalled(BotError):
    termination = Termination.STALL


class BotTimedOut(BotError):
    termination = Termination.TIME_FORFEIT


class BotProtocolError(BotError):
    termination = Termination.PROTOCOL_ERROR


class BotIllegalMove(BotError):
    """The bot's move text names no legal move (or several): an illegal-move loss."""

    termination = Termination.ILLEGAL_MOVE


class EngineReportedError(ProtocolError):
    """The engine itself reported an error (Hub's ``error message=...``): always fatal, also
    in dialects that skip unknown lines."""


class Turn(msgspec.Struct):
    """What the side to move is told, in dialect-neutral terms; each dialect writes it its way.

    ``board`` is the rules object of the current position: dialects read it (to translate
    positions and moves) and never change it."""

    board: Any
    start: str | None
    """The start position text, or None for the game's standard start."""
    played: Sequence[str]
    """The moves since the start, in the arena's notation (book moves included)."""
    legal: Sequence[str]
    """The legal moves here, in the arena's notation."""
    go: Go
    """The clocks and search limits, in the arena's terms (p1time, p2time, ms)."""
    wins_at_once: dict[int, bool] = msgspec.field(default_factory=dict)
    """Ply -> can the side to move there win at once; one dict per game shared by the turns
    of both bots, so that each position of a game is looked at once (UCI's resync test)."""


class MoveReply(msgspec.Struct):
    """A bot's answer to a search: the move (in the arena's notation) and what it said."""

    move: str
    elapsed_ms: float
    info: Info | None
    sent_at: float
    """trio clock just before the search lines were written."""
    written_at: float
    """trio clock once they were written (the referee's overhead ends here)."""
    read_at: float
    """trio clock when the move was read."""
    scored: Info | None = None
    """The latest ``info`` with a score (the last ``info`` may have none): for score
    adjudication."""
    first_at: float | None = None
    """trio clock when the bot's first line after the search lines was read (its ``info``,
    or the move itself): the referee's view of the bot's latency."""
    waited_ms: float = 0.0
    """The part of ``elapsed_ms`` spent waiting for a CPU, by the bot's threads or by the
    referee after the bot's answer, not charged to its clock (:mod:`referee.process.
    schedstat`); 0 when not measured."""


UNPARSED_INFO_KEPT: Final = 8
"""How many of a search's ``info`` lines wait unparsed (:attr:`BotConnection.deferred_info`);
an older one is parsed as a newer one comes, so a flooding bot holds no more than this."""


class _Reading(msgspec.Struct):
    """What has been read of a search's answer so far: kept across the deadlines of a move
    whose deadline moves (a bot waiting for a CPU), so that no ``info`` is lost."""

    info: Info | None = None
    scored: Info | None = None
    first_at: float | None = None
    unparsed: list[str] = msgspec.field(default_factory=list)
    """``info`` lines read after ``info`` and ``scored`` and not parsed yet, oldest first
    (:attr:`BotConnection.deferred_info`)."""


class BotConnection:
    """The dialect-independent part; subclasses in :mod:`referee.dialects` supply the words."""

    dialect: ClassVar[str] = ""
    move_word: ClassVar[str] = "bestmove"
    """The dialect's name for the line that carries the move (Hub: ``done``), for messages."""
    strict: ClassVar[bool] = True
    """After the handshake, is an unknown line a protocol error (native) or noise (UCI, Hub)?"""
    deferred_info: ClassVar[str | None] = None
    """In a dialect where a bad line is noise (not :attr:`strict`), the first word of a search
    report whose line, unless it holds the word ``string``, says nothing but the report and
    replaces the one before (UCI: ``info``). Such lines are kept as text while the search runs
    and only the ones the move needs are parsed when it comes, the newest that parses and the
    newest with a score: an engine sends several a move (Fairy-Stockfish at ``nodes 1``: two),
    and parsing each was a tenth of the referee's time per move. What is read is what eager
    parsing would have read: a line that does not parse is passed over either way."""

    def __init__(self, channel: LineChannel, spec: BotSpec) -> None:
        self.channel = channel
        self.spec = spec
        self.name = spec.name
        self.id_name: str | None = None
        self.id_author: str | None = None
        self.options: dict[str, OptionDecl] = {}
        """Declared options by name, at most :data:`MAX_OPTIONS` of them."""
        self.options_dropped = 0
        """Declarations of new option names ignored once :data:`MAX_OPTIONS` were kept."""
        self.owed_bestmoves = 0
        """Searches that timed out and whose move has not been read yet: such a late move
        must be drained before the next game, or it would answer the next search."""
        self._announced: tuple[str, dict[str, str]] | None = None
        """The game and options of the last :meth:`new_game`."""
        self._ahead: tuple[str, dict[str, str]] | None = None
        """A game announced ahead (:meth:`prepare_next_game`), not yet started."""
        self.owed_readyoks = 0
        """Readiness checks sent whose ``ReadyOk`` has not been read yet: every wait for
        readiness reads them all, so that an old answer never stands for a new check."""
        self.stage = "during the game"
        """When a death is noticed, for its message: the handshake says so."""

    @property
    def alive(self) -> bool:
        return not self.channel.closed and self.channel.exit_status() is None

    @property
    def pid(self) -> int | None:
        return getattr(self.channel, "pid", None)

    @property
    def wait_meter(self) -> WaitMeter | None:
        """The sampler of the bot's threads' waits for a CPU (:mod:`referee.process.
        schedstat`), where its channel is a process (or a test gives one); else None."""
        return getattr(self.channel, "wait_meter", None)

    def mark_log(self, text: str) -> None:
        """Open a section of the bot's stderr log (its channel's, if it has one)."""
        mark = getattr(self.channel, "mark_log", None)
        if mark is not None:
            mark(text)

    def record_to(self, path: Path | None, origin: float | None = None) -> bool:
        """Write the following lines to the transcript ``path`` (None: stop), times counted
        from ``origin`` (``time.monotonic()``); False when this bot is not recorded."""
        if isinstance(self.channel, RecordingChannel):
            self.channel.record_to(path, origin)
            return True
        return False

    # ----- the dialect's words (overridden) -----------------------------------------------
    def hello_lines(self) -> list[str]:
        """The first lines; the bot answers with its identity and options, then ``UgiOk``."""
        raise NotImplementedError

    def option_lines(self, options: Mapping[str, object]) -> list[str]:
        raise NotImplementedError

    def init_lines(self) -> list[str]:
        """After the options: lines answered by ``ReadyOk`` (``isready``; Hub's ``init``)."""
        return self.sync_lines()

    def sync_lines(self) -> list[str]:
        """A readiness check answered by ``ReadyOk`` (``isready``; Hub's ``ping``)."""
        raise NotImplementedError

    def new_game_lines(self, game: str, game_options: Mapping[str, str]) -> list[str]:
        """A new game, ending with a readiness check."""
        raise NotImplementedError

    def search_lines(self, turn: Turn) -> list[str]:
        """The position, limits and search command for ``turn``."""
        raise NotImplementedError

    def stop_lines(self) -> list[str]:
        return ["stop"]

    def quit_lines(self) -> list[str]:
        return ["quit"]

    def parse(self, line: str) -> Reply | None:
        """One line of the bot as a reply; None for an empty line. Raises
        :class:`ProtocolError` for an unknown word or a malformed known reply."""
        raise NotImplementedError

    def move_text(self, text: str, turn: Turn | None) -> str:
        """The bot's move text in the arena's notation (dialects whose notation differs
        translate it here; :class:`BotIllegalMove` when it names no single legal move)."""
        return text

    async def game_over(self, message: GameOver) -> None:
        """Tell the bot how the game ended, in dialects that have such a line."""

    async def partie(self, message: Partie) -> None:
        """Tell the bot a Donkan partie ended, in dialects that have such a line."""

    # ----- low level ------------------------------------------------------------------------
    async def send_lines(self, lines: Sequence[str]) -> None:
        """Write lines in one write; a closed pipe is a crash."""
        if not lines:
            return
        try:
            await self.channel.send("\n".join(lines))
        except BotExited:
            raise BotCrashed(self.name, await self._death_note("while being written to")) from None

    async def _death_note(self, when: str) -> str:
        status = await self.channel.wait_exit(0.2)
        how = self.channel.describe_exit() if status is not None else "closed its pipes"
        return f"bot {self.name!r} crashed {when} ({how})"

    async def read_reply(self, *, strict: bool) -> Reply:
        """The next meaningful reply; garbage raises in strict mode, is skipped otherwise."""
        while True:
            reply = await self._read_reply(strict, None)
            if not isinstance(reply, str):
                return reply

    async def _read_reply(self, strict: bool, deferred: str | None) -> Reply | str:
        """:meth:`read_reply`, except that a line that starts with the word ``deferred`` and
        holds no ``string`` comes back as its text, unparsed (:attr:`deferred_info`)."""
        while True:
            try:
                line = await self.channel.readline()
            except BotExited:
                raise BotCrashed(self.name, await self._death_note(self.stage)) from None
            if isinstance(line, BadLine):
                if strict:
                    raise BotProtocolError(self.name, f"bot {self.name!r} sent a bad line: "
                                           f"{line.why}: {line.raw!r}")
                continue
            if (deferred is not None and line.startswith(deferred)
                    and line[len(deferred):len(deferred) + 1] == " " and "string" not in line):
                return line
            try:
                reply = self.parse(line)
            except EngineReportedError as exc:
                raise BotProtocolError(self.name, f"bot {self.name!r}: {exc}") from None
            except ProtocolError as exc:
                if strict:
                    raise BotProtocolError(self.name, f"bot {self.name!r}: {exc}") from None
                continue
            if reply is not None:
                return reply

    async def _expect(self, kind: type[Reply], timeout: float, what: str, strict: bool) -> None:
        """Read until a reply of ``kind``; no answer in ``timeout`` seconds is a stall."""
        with trio.move_on_after(timeout):
            while True:
                reply = await self.read_reply(strict=strict)
                if isinstance(reply, kind):
                    return
                self._note(reply)
        raise BotStalled(self.name, f"bot {self.name!r} did not answer {what} "
                         f"within {timeout:g} s")

    def _note(self, reply: Reply) -> None:
        """Remember identity and option declarations whenever they come."""
        if isinstance(reply, Id):
            if reply.key == "name":
                self.id_name = reply.value
            else:
                self.id_author = reply.value
        elif isinstance(reply, OptionDecl):
            if reply.name in self.options or len(self.options) < MAX_OPTIONS:
                self.options[reply.name] = reply
            else:
                self.options_dropped += 1

    @staticmethod
    def _said(lines: Sequence[str]) -> str:
        return " / ".join(lines)

    # ----- the conversation -----------------------------------------------------------------
    async def handshake(self, timeout: float = HANDSHAKE_TIMEOUT_S) -> None:
        """Hello (``ugi``, ``uci``, ``hub``) up to its answer, then the spec's options and the
        dialect's initialisation up to ``ReadyOk``."""
        hello = self.hello_lines()
        self.stage = "during the handshake"
        try:
            await self.send_lines(hello)
            await self._expect(UgiOk, timeout, self._said(hello), strict=False)
            await self.send_lines(self.option_lines(self.spec.options))
            init = self.init_lines()
            await self.send_lines(init)
            self.owed_readyoks += 1
            await self.await_ready(timeout, self._said(init))
        finally:
            self.stage = "during the game"

    async def set_options(self, options: Mapping[str, object]) -> None:
        await self.send_lines(self.option_lines(options))

    async def ready(self, timeout: float = HANDSHAKE_TIMEOUT_S) -> None:
        lines = self.sync_lines()
        await self.send_lines(lines)
        self.owed_readyoks += 1
        await self.await_ready(timeout, self._said(lines))

    async def await_ready(self, timeout: float = HANDSHAKE_TIMEOUT_S,
                          what: str = "the readiness check after the new game") -> None:
        """Read up to the answer of every readiness check sent; none in ``timeout`` seconds
        is a stall."""
        if not self.owed_readyoks:
            return
        with trio.move_on_after(timeout):
            while self.owed_readyoks:
                reply = await self.read_reply(strict=self.strict)
                if isinstance(reply, ReadyOk):
                    self.owed_readyoks -= 1
                elif isinstance(reply, BestMove) and self.owed_bestmoves:
                    self.owed_bestmoves -= 1
                else:
                    self._note(reply)
            return
        raise BotStalled(self.name, f"bot {self.name!r} did not answer {what} "
                         f"within {timeout:g} s")

    async def new_game(self, game: str, game_options: Mapping[str, str],
                       timeout: float = HANDSHAKE_TIMEOUT_S, *, wait: bool = True) -> None:
        """Announce the game and start a new one, then wait for the readiness answer, or
        with ``wait=False`` leave that to the bot's first search (:meth:`start_search`): the
        side that moves second need not hold up the first move. A game announced ahead
        (:meth:`prepare_next_game`) is not announced again when it is this one."""
        wanted = (game, dict(game_options))
        ahead, self._ahead = self._ahead, None
        if ahead != wanted:
            await self.settle()
            await self.send_lines(self.new_game_lines(game, game_options))
            self._announced = wanted
            self.owed_readyoks += 1
        if wait:
            await self.await_ready(timeout)

    async def prepare_next_game(self) -> None:
        """Announce the next game now, as the same game and options as the last one, with
        its readiness check: the bot resets (Fairy-Stockfish clears its hash table, 7 ms
        here) while the referee journals the game that just ended, and :meth:`new_game` only
        reads the answer. Nothing to do before a first game or with a move still owed."""
        if self._announced is None or self.owed_bestmoves or self._ahead is not None:
            return
        await self.send_lines(self.new_game_lines(*self._announced))
        self._ahead = self._announced
        self.owed_readyoks += 1

    async def settle(self, timeout: float | None = None) -> None:
        """Read and throw away every move still owed for a search that ran out of time.

        Waiting for it (rather than for ``readyok``) is what keeps it out of the next game: a
        bot may answer ``isready`` at once while its old search still runs. A bot that never
        sends it within ``timeout`` (default :data:`STOP_GRACE_S`) is :class:`BotStalled`."""
        if not self.owed_bestmoves:
            return
        timeout = STOP_GRACE_S if timeout is None else timeout
        with trio.move_on_after(timeout):
            while self.owed_bestmoves:
                reply = await self.read_reply(strict=False)
                if isinstance(reply, BestMove):
                    self.owed_bestmoves -= 1
                elif isinstance(reply, ReadyOk) and self.owed_readyoks:
                    self.owed_readyoks -= 1
            return
        raise BotStalled(self.name, f"bot {self.name!r} did not send the {self.move_word} "
                         f"it owed "
                         f"after 'stop' within {timeout:g} s (it had run out of time)")

    async def start_search(self, turn: Turn) -> tuple[float, float]:
        """Write the search lines; the trio clock before and after the write. A readiness
        answer still owed (``new_game(wait=False)``) is read first, off the bot's clock."""
        sent_at, written_at, _ = await self._search(turn, None)
        return sent_at, written_at

    async def _search(self, turn: Turn, meter: WaitMeter | None
                      ) -> tuple[float, float, Sample | None]:
        """:meth:`start_search`, with a sample of ``meter`` taken just before the write."""
        if self.owed_readyoks:
            await self.await_ready()
        lines = self.search_lines(turn)
        before = meter.sample() if meter is not None else None
        sent_at = trio.current_time()
        await self.send_lines(lines)
        return sent_at, trio.current_time(), before

    async def request_move(self, turn: Turn, budget_s: float | None,
                           meter: WaitMeter | None = None) -> MoveReply:
        """Send the position and limits and start the search; read the move within the budget.

        The clock runs from just before the write to the read of the move; over budget is
        :class:`BotTimedOut` (``stop`` is sent; the late move is drained by :meth:`settle`).
        With ``meter`` (a clocked move whose waits are credited) the bot's threads are sampled
        before the write and after the read, and the time they waited for a CPU is the
        reply's ``waited_ms``: the budget is what the clock is charged, wall time less that
        credit, and a move still unanswered at its deadline is given longer as long as its
        credit has grown or one of its threads still waits for a CPU
        (:data:`WAIT_CREDIT_FLOOR_S` at most). The move comes back in the arena's notation;
        the caller checks it against the rules."""
        sent_at, written_at, before = await self._search(
            turn, meter if budget_s is not None else None)
        deadline = sent_at + budget_s if budget_s is not None else float("inf")
        reading = _Reading()
        credit_s = 0.0
        previous = before
        while True:
            reply = await self.read_move(turn, sent_at, deadline, reading)
            if reply is not None:
                reply.written_at = written_at
                if before is not None and meter is not None:
                    reply.waited_ms = credit_ms(before, meter.sample(), reply.elapsed_ms)
                return reply
            assert budget_s is not None
            if meter is None or before is None or previous is None:
                break
            now = meter.sample()
            if now is None:
                break
            wall_s = trio.current_time() - sent_at
            credit_s = credit_ms(before, now, wall_s * 1000) / 1000
            left_s = budget_s - (wall_s - credit_s)
            if credit_s >= max(WAIT_CREDIT_FLOOR_S, 10 * budget_s):
                break
            # Over its budget by the counts so far; but a thread still in a run queue has its
            # wait counted only once it runs: while one is, and the bot has not used a core's
            # worth of CPU (then its threads would be waiting for each other), look again.
            if left_s <= 0 and not (spent_ms(before, now)[1] < wall_s * 1000
                                    and meter.waiting(previous, now)):
                break
            previous = now
            deadline = trio.current_time() + max(left_s, WAIT_CHECK_MIN_S)
        self.owed_bestmoves += 1
        with contextlib.suppress(BotError), trio.move_on_after(1.0):
            await self.send_lines(self.stop_lines())
        waited = f"; {credit_s * 1000:.0f} ms waiting for a CPU not charged" if credit_s else ""
        raise BotTimedOut(self.name, f"bot {self.name!r} lost on time: no {self.move_word} "
                          f"within "
                          f"{budget_s * 1000:.0f} ms (clock plus margin{waited})")

    async def read_move(self, turn: Turn | None, sent_at: float, deadline: float,
                        reading: _Reading | None = None) -> MoveReply | None:
        """Read ``info`` lines up to the move, or None at ``deadline`` (trio clock); a
        ``reading`` given again goes on where the last call stopped."""
        reading = _Reading() if reading is None else reading
        if deadline == math.inf:  # no clock (node or depth limits): no cancel scope to pay for
            return await self._read_move(turn, sent_at, reading)
        with trio.move_on_at(deadline):
            return await self._read_move(turn, sent_at, reading)
        return None

    async def _read_move(self, turn: Turn | None, sent_at: float,
                         reading: _Reading) -> MoveReply:
        strict, deferred = self.strict, None if self.strict else self.deferred_info
        unparsed = reading.unparsed
        while True:
            reply = await self._read_reply(strict, deferred)
            if isinstance(reply, str):  # a search report, parsed once the move needs it
                if reading.first_at is None:
                    reading.first_at = trio.current_time()
                unparsed.append(reply)
                if len(unparsed) > UNPARSED_INFO_KEPT:
                    self._take_info(reading, self._parse_info(unparsed.pop(0)))
                continue
            if isinstance(reply, BestMove):
                read_at = trio.current_time()
                move = self.move_text(reply.move, turn)
                first_at = read_at if reading.first_at is None else reading.first_at
                if unparsed:
                    self._settle_info(reading)
                return MoveReply(move, (read_at - sent_at) * 1000, reading.info, sent_at,
                                 sent_at, read_at, reading.scored, first_at)
            if reading.first_at is None:
                reading.first_at = trio.current_time()
            if isinstance(reply, Info):
                if unparsed:  # a ``string`` line adds to the report before it
                    self._settle_info(reading)
                self._take_info(reading, reply)

    @staticmethod
    def _take_info(reading: _Reading, info: Info | None) -> None:
        """One more search report read, in order (None: a line that did not parse)."""
        if info is None:
            return
        if info.score_cp is not None or info.score_mate is not None:
            reading.scored = info  # the latest score is all adjudication needs
        if info.string is None or reading.info is None or info.depth is not None:
            reading.info = info
        else:
            reading.info.string = info.string

    def _settle_info(self, reading: _Reading) -> None:
        """Parse what the unparsed reports leave standing: the newest that parses (each
        replaces the one before) and the newest with a score; the others are never read."""
        lines = reading.unparsed[:]
        reading.unparsed.clear()  # the same list: the reading loop holds it
        info_found = scored_found = False
        for line in reversed(lines):
            wants_score = not scored_found and "score" in line
            if info_found and not wants_score:
                continue
            info = self._parse_info(line)
            if info is None:
                continue
            if not info_found:
                reading.info, info_found = info, True
            if wants_score and (info.score_cp is not None or info.score_mate is not None):
                reading.scored, scored_found = info, True
            if info_found and scored_found:
                break

    def _parse_info(self, line: str) -> Info | None:
        """A deferred ``info`` line parsed; None where eager reading would have passed it
        over (it does not parse, or is not a report after all)."""
        try:
            reply = self.parse(line)
        except ProtocolError:
            return None
        return reply if isinstance(reply, Info) else None

    async def stop_and_read(self, timeout: float, turn: Turn | None = None) -> MoveReply:
        """Send ``stop`` and read the move within ``timeout`` (ends ``go infinite``)."""
        sent_at = trio.current_time()
        await self.send_lines(self.stop_lines())
        reply = await self.read_move(turn, sent_at, sent_at + timeout)
        if reply is None:
            raise BotTimedOut(self.name, f"bot {self.name!r} did not answer stop within "
                              f"{timeout:g} s")
        return reply

    async def quit(self, timeout: float) -> int | None:
        """Send the dialect's ``quit`` and wait up to ``timeout`` s for the exit (check-bot)."""
        await self.send_lines(self.quit_lines())
        return await self.channel.wait_exit(timeout)

    async def aclose(self) -> None:
        """``quit``, then make sure the process group is gone (shielded, never raises)."""
        await self.channel.aclose()


def option_text(value: object) -> str:
    """An option value as the text a bot reads (``true``/``false`` for booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
