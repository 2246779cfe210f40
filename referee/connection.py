"""Talking to one bot in its dialect: handshake, options, new game, one move under a deadline.

One referee, two dialects over a shared base (after python-chess's ``UciProtocol``):
:class:`NativeConnection` speaks the arena's protocol (``ugi``, ``game``, ``legal``, ``go
p1time ...``, ``gameover``), :class:`UciConnection` speaks plain UCI (``uci``, ``UCI_Variant``,
``go wtime ...``) so that Fairy-Stockfish plays unchanged. Failures are typed exceptions that
carry their :class:`Termination`, so the match loop maps them to a result in one place.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final

import trio

from protocol.bounds import MAX_OPTIONS
from protocol.lines import BadLine, ProtocolError, format_message, parse_reply
from protocol.messages import (
    BestMove,
    GameAnnounce,
    GameOver,
    Go,
    Id,
    Info,
    IsReady,
    Legal,
    Message,
    OptionDecl,
    Partie,
    Position,
    ReadyOk,
    Reply,
    SetOption,
    Stop,
    Ugi,
    UgiNewGame,
    UgiOk,
)
from referee.botspec import BotSpec
from referee.errors import BotExited
from referee.process import BotProcess
from referee.record import Termination

HANDSHAKE_TIMEOUT_S: Final = 10.0
"""How long a bot may take to answer ``ugi`` with ``ugiok`` (and ``isready`` with ``readyok``)."""
STOP_GRACE_S: Final = 2.0
"""How long a bot that ran out of time may take, before its next game, to send the ``bestmove``
it still owes (it was sent ``stop``); the late move is read and thrown away."""


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


@dataclass
class MoveReply:
    """A bot's answer to ``go``: the move text and what it said while thinking."""

    move: str
    elapsed_ms: float
    info: Info | None
    sent_at: float
    """trio clock just before the ``position``/``legal``/``go`` lines were written."""
    written_at: float
    """trio clock once they were written (the referee's overhead ends here)."""
    read_at: float
    """trio clock when ``bestmove`` was read."""


class BotConnection:
    """The dialect-independent part: reading replies under deadlines, error mapping."""

    dialect: ClassVar[str] = "native"
    uci: ClassVar[bool] = False
    strict: ClassVar[bool] = True
    """After the handshake, is an unknown line a protocol error (native) or noise (UCI)?"""

    def __init__(self, process: BotProcess) -> None:
        self.process = process
        self.spec: BotSpec = process.spec
        self.name = process.spec.name
        self.id_name: str | None = None
        self.id_author: str | None = None
        self.options: dict[str, OptionDecl] = {}
        """Declared options by name, at most :data:`MAX_OPTIONS` of them."""
        self.options_dropped = 0
        """Declarations of new option names ignored once :data:`MAX_OPTIONS` were kept."""
        self.handshaken = False
        self.owed_bestmoves = 0
        """``go`` commands that timed out and whose ``bestmove`` has not been read yet: such a
        late move must be drained before the next game, or it would answer the next ``go``."""

    @classmethod
    async def start(cls, spec: BotSpec, stderr_path: Path | None = None) -> BotConnection:
        """Start the bot's process and wrap it in the connection class of its dialect."""
        connection_class = UciConnection if spec.protocol == "uci" else NativeConnection
        return connection_class(await BotProcess.start(spec, stderr_path))

    @property
    def alive(self) -> bool:
        return not self.process.closed and self.process.exit_status() is None

    # ----- low level ------------------------------------------------------------------------
    async def send(self, *messages: Message) -> None:
        """Write messages in one write; a closed pipe is a crash."""
        text = "\n".join(format_message(m, uci=self.uci) for m in messages)
        try:
            await self.process.send(text)
        except BotExited:
            raise BotCrashed(self.name, await self._death_note("while being written to")) from None

    async def _death_note(self, when: str) -> str:
        status = await self.process.wait_exit(0.2)
        how = self.process.describe_exit() if status is not None else "closed its pipes"
        return f"bot {self.name!r} crashed {when} ({how})"

    async def read_reply(self, *, strict: bool) -> Reply:
        """The next meaningful reply; garbage raises in strict mode, is skipped otherwise."""
        while True:
            try:
                line = await self.process.readline()
            except BotExited:
                raise BotCrashed(self.name, await self._death_note("during the game")) from None
            if isinstance(line, BadLine):
                if strict:
                    raise BotProtocolError(self.name, f"bot {self.name!r} sent a bad line: "
                                           f"{line.why}: {line.raw!r}")
                continue
            try:
                reply = parse_reply(line)
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

    # ----- the conversation -----------------------------------------------------------------
    async def handshake(self, timeout: float = HANDSHAKE_TIMEOUT_S) -> None:
        """``ugi``/``uci`` ... ``ugiok``/``uciok``, then the spec's options and ``isready``."""
        await self.send(Ugi())
        await self._expect(UgiOk, timeout, "uci" if self.uci else "ugi", strict=False)
        self.handshaken = True
        await self.set_options(self.spec.options)
        await self.ready(timeout)

    async def set_options(self, options: Mapping[str, object]) -> None:
        messages = [SetOption(name=k, value=_option_text(v)) for k, v in options.items()]
        if messages:
            await self.send(*messages)

    async def ready(self, timeout: float = HANDSHAKE_TIMEOUT_S) -> None:
        await self.send(IsReady())
        await self._expect(ReadyOk, timeout, "isready", strict=self.strict)

    async def new_game(self, game: str, game_options: Mapping[str, str],
                       timeout: float = HANDSHAKE_TIMEOUT_S) -> None:
        """Announce the game and start a new one; waits for ``readyok``."""
        await self.settle()
        await self.send(*self._new_game_messages(game, game_options))
        await self._expect(ReadyOk, timeout, "isready after the new game", strict=self.strict)

    async def settle(self, timeout: float | None = None) -> None:
        """Read and throw away every ``bestmove`` still owed for a ``go`` that ran out of time.

        Waiting for it (rather than for ``readyok``) is what keeps it out of the next game: a
        bot may answer ``isready`` at once while its old search still runs. A bot that never
        sends it within ``timeout`` (default :data:`STOP_GRACE_S`) is :class:`BotStalled`."""
        if not self.owed_bestmoves:
            return
        timeout = STOP_GRACE_S if timeout is None else timeout
        with trio.move_on_after(timeout):
            while self.owed_bestmoves:
                if isinstance(await self.read_reply(strict=False), BestMove):
                    self.owed_bestmoves -= 1
            return
        raise BotStalled(self.name, f"bot {self.name!r} did not send the bestmove it owed "
                         f"after 'stop' within {timeout:g} s (it had run out of time)")

    def _new_game_messages(self, game: str, game_options: Mapping[str, str]) -> list[Message]:
        return [GameAnnounce(name=game, options=dict(game_options)), UgiNewGame(), IsReady()]

    def _position(self, position: Position, current: str | None) -> Position:
        """The ``position`` line to send: start position plus moves, so bots see history."""
        return position

    async def request_move(self, position: Position, legal: Sequence[str] | None, go: Go,
                           budget_s: float | None, current: str | None = None) -> MoveReply:
        """Send the position (and legal moves) and ``go``; read ``bestmove`` within the budget.

        ``current`` is the position text reached (used by dialects that send it instead of
        the moves). The clock runs from just before the write to the read of ``bestmove``;
        over budget is :class:`BotTimedOut`. The caller checks the move against the rules."""
        messages: list[Message] = [self._position(position, current)]
        if legal is not None and not self.uci:
            messages.append(Legal(moves=list(legal)))
        messages.append(go)
        sent_at = trio.current_time()
        await self.send(*messages)
        written_at = trio.current_time()
        info: Info | None = None
        with trio.move_on_at(sent_at + budget_s if budget_s is not None else float("inf")):
            while True:
                reply = await self.read_reply(strict=self.strict)
                if isinstance(reply, BestMove):
                    read_at = trio.current_time()
                    return MoveReply(reply.move, (read_at - sent_at) * 1000, info, sent_at,
                                     written_at, read_at)
                if isinstance(reply, Info):
                    if reply.string is None or info is None or reply.depth is not None:
                        info = reply
                    else:
                        info.string = reply.string
        assert budget_s is not None
        self.owed_bestmoves += 1
        with contextlib.suppress(BotError), trio.move_on_after(1.0):
            await self.send(Stop())  # its late answer is drained by settle()
        raise BotTimedOut(self.name, f"bot {self.name!r} lost on time: no bestmove within "
                          f"{budget_s * 1000:.0f} ms (clock plus margin)")

    async def stop_and_read(self, timeout: float) -> MoveReply:
        """Send ``stop`` and read ``bestmove`` within ``timeout`` (for ``go infinite``)."""
        sent_at = trio.current_time()
        await self.send(Stop())
        with trio.move_on_after(timeout):
            while True:
                reply = await self.read_reply(strict=self.strict)
                if isinstance(reply, BestMove):
                    read_at = trio.current_time()
                    return MoveReply(reply.move, (read_at - sent_at) * 1000, None, sent_at,
                                     sent_at, read_at)
        raise BotTimedOut(self.name, f"bot {self.name!r} did not answer stop within "
                          f"{timeout:g} s")

    async def game_over(self, message: GameOver) -> None:
        """Tell the bot how the game ended (informative; a dead bot is not an error here)."""
        if self.alive:
            with contextlib.suppress(BotError):
                await self.send(message)

    async def partie(self, message: Partie) -> None:
        if self.alive:
            with contextlib.suppress(BotError):
                await self.send(message)

    async def aclose(self) -> None:
        """``quit``, then make sure the process group is gone (shielded, never raises)."""
        await self.process.aclose()


class NativeConnection(BotConnection):
    """The arena's own protocol (SPEC.md)."""


class UciConnection(BotConnection):
    """Plain UCI: ``uci``/``uciok``, ``UCI_Variant``, ``go wtime btime winc binc``; no ``legal``
    line, no ``gameover``; unknown lines are noise (engines print banners and info strings)."""

    dialect = "uci"
    uci = True
    strict = False

    def _position(self, position: Position, current: str | None) -> Position:
        """The current position as a FEN, without moves: a UCI engine's rules may differ in
        details from ours (Fairy-Stockfish's dobutsu rejects moves that leave the lion
        attacked, which our rules allow), and a rejected move would silently desynchronise
        the engine. The referee, not the engine, owns repetition."""
        if current is None:
            return position
        return Position(fen=current)

    def _new_game_messages(self, game: str, game_options: Mapping[str, str]) -> list[Message]:
        variant = self.spec.variant or game
        return [SetOption(name="UCI_Variant", value=variant), UgiNewGame(), IsReady()]

    async def game_over(self, message: GameOver) -> None:
        return None

    async def partie(self, message: Partie) -> None:
        return None


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
