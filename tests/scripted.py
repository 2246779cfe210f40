"""Whole games between scripted bots through the real referee, in no real time.

A :class:`ScriptedBot` is a bot's spec and the script of its side of the conversation
(tests/fake_channel.py); :class:`ScriptedBots` is a :class:`referee.botsource.BotSource` that
hands out a connection of the bot's own dialect over a fresh :class:`ScriptedChannel` for
each game, so :func:`referee.match.play_game` referees two scripted bots exactly as it
referees two processes: the handshake, the clocks (on trio's clock: under ``autojump_clock`` a
2 s timeout costs nothing), every failure's reason and termination, adjudication, options.

Every call the tests make to ``play_game``/``play_on`` with scripted bots goes through
:func:`play_scripted` and :func:`play_on_scripted`: the referee's signature lives here once.

:class:`NativeBot` is the usual script: it answers the handshake and readiness checks and, on
each ``go``, prints what its ``move`` function makes of the ``legal`` line: the first legal
move (:func:`first_legal`), a random one (:func:`random_bot`), or a misbehaviour
(:func:`misbehaving` mirrors tests/bots/misbehave.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fake_channel import Answer, Exit, Later, Script, ScriptedChannel

from protocol import hubtext
from protocol.lines import decode_line
from referee.adjudication import Adjudication
from referee.botsource import BotSource
from referee.botspec import BotSpec
from referee.channel import LineChannel, RecordingChannel
from referee.connection import BotConnection
from referee.dialects import connection_class
from referee.games import get_game
from referee.match import play_game, play_on
from referee.order import GameOrder
from referee.record import GameRecord, MoveRecord
from referee.thinkslots import ThinkSlots
from referee.timecontrol import TimeControl

Move = Callable[[Sequence[str], int], Iterable[Answer]]
"""What a bot prints for a ``go``, given the ``legal`` line and the number of moves it has
made in this game before this one."""


def first_legal(legal: Sequence[str], made: int) -> list[Answer]:
    """Plays the first legal move, as tests/bots/runner_first_bot.py does."""
    return [f"bestmove {legal[0]}"]


class NativeBot:
    """One process's side of a native conversation: ``ugi`` is answered with its identity,
    ``isready`` with ``readyok``, ``legal`` remembered, ``uginewgame``
    starts the move count again, and each ``go`` is answered by ``move``. ``handshake`` and
    ``ready`` False make it never answer those (a stall); ``handshake`` may also be the lines
    that answer ``ugi``. ``reset_seconds`` is the time it takes over each ``uginewgame`` (an
    engine clearing its tables): the ``readyok`` that follows comes that much later."""

    def __init__(self, move: Move = first_legal, *, name: str = "scripted",
                 handshake: bool | Sequence[Answer] = True, ready: bool = True,
                 reset_seconds: float = 0.0) -> None:
        self.move = move
        self.name = name
        self.handshake = handshake
        self.ready = ready
        self.reset_seconds = reset_seconds
        self.resetting = False
        self.legal: list[str] = []
        self.made = 0

    def __call__(self, line: str) -> Iterable[Answer]:
        words = line.split()
        word = words[0] if words else ""
        if word == "ugi":
            if self.handshake is True:
                return [f"id name {self.name}", "id author tests", "ugiok"]
            return [] if self.handshake is False else list(self.handshake)
        if word == "isready":
            if not self.ready:
                return []
            delay, self.resetting = (self.reset_seconds if self.resetting else 0.0), False
            return [Later(delay, "readyok")]
        if word == "uginewgame":
            self.made = 0
            self.resetting = True
        elif word == "legal":
            self.legal = words[1:]
        elif word == "go":
            answers = list(self.move(self.legal, self.made))
            self.made += 1
            return answers
        return []


HUB_HELLO: list[Answer] = [
    'id name=HubBot version=1.0 author="the arena"',
    'param name=variant value=normal type=enum values="normal"',
    "param name=book value=false type=bool",
    "wait",
]
"""tests/bots/hub_bot.py's answer to ``hub``."""


class HubEngine:
    """One process's side of a Hub conversation, as tests/bots/hub_bot.py holds it: the
    handshake (``hub``, ``init``, ``ping``), its own board from ``pos``, and on each ``go`` the
    move that captures most (the first of those), after an ``info``; or ``fault``, the lines
    it answers every ``go`` with instead."""

    def __init__(self, fault: Sequence[Answer] | None = None) -> None:
        self.fault = fault
        self.rules = get_game("draughts")
        self.board: Any = self.rules.start()

    def __call__(self, line: str) -> Iterable[Answer]:
        parsed = hubtext.parse_line(line)
        if parsed is None:
            return []
        command, fields = parsed
        if command == "pos":
            self.board = self.rules.from_position(hubtext.position_to_fen(fields["pos"]))
            for text in fields.get("moves", "").split():
                wanted = hubtext.parse_move(text)
                self.board.push(next(m for m in self.board.moves()
                                     if (m.start, m.end, frozenset(m.captured))
                                     == (wanted.start, wanted.end, wanted.captured)))
        elif command == "go":
            if self.fault is not None:
                return list(self.fault)
            move = max(self.board.moves(), key=lambda m: len(m.captured))
            return [f"info depth=2 score={len(move.captured)}.5",
                    f"done move={hubtext.format_move(move.start, move.end, move.captured)}"]
        answers: dict[str, list[Answer]] = {"hub": HUB_HELLO, "init": ["ready"],
                                            "ping": ["pong"]}
        return answers.get(command, [])


class ScriptedBot:
    """A bot of a scripted game: its spec (name, dialect, options, time control...) and a
    factory of its script, called once per connection (a script holds one process's state)."""

    def __init__(self, name: str, script: Callable[[], Script], **spec: Any) -> None:
        self.spec = BotSpec(name=name, cmd=["scripted", name], **spec)
        self.script = script


def native(name: str, move: Move = first_legal, **spec: Any) -> ScriptedBot:
    """A scripted native bot named ``name`` that answers each ``go`` by ``move``."""
    return ScriptedBot(name, lambda: NativeBot(move, name=name), **spec)


def random_bot(name: str, seed: int, **spec: Any) -> ScriptedBot:
    """A scripted native bot that plays a random legal move, seeded: each connection draws
    from its own ``random.Random(seed)``, as ``sample_bots/random_bot.py --seed`` does
    (not the same moves: its own generator and none of its start-up)."""

    def script() -> Script:
        rng = random.Random(seed)
        return NativeBot(lambda legal, made: [f"bestmove {rng.choice(list(legal))}"], name=name)

    return ScriptedBot(name, script, **spec)


def hub_bot(name: str, fault: Sequence[Answer] | None = None, **spec: Any) -> ScriptedBot:
    """A scripted Hub engine named ``name`` (:class:`HubEngine`)."""
    return ScriptedBot(name, lambda: HubEngine(fault), protocol="hub", **spec)


def misbehaving(mode: str, after: int = 2) -> ScriptedBot:
    """tests/bots/misbehave.py as a script: plays the first legal move (with an ``info``) for
    ``after`` moves, then misbehaves by ``mode``: ``hang`` (never answers ``go``), ``crash``
    (exits with status 3), ``illegal`` (``bestmove zz99``), ``none`` (``bestmove (none)``),
    ``garbage`` (``hello there``), ``badutf8`` (bytes that are not UTF-8, read as the pipe's
    reader reads them); or at once: ``nohandshake`` (never ``ugiok``), ``slowhandshake``
    (answers ``ugi`` 30 s late), ``noready`` (never ``readyok``)."""
    bad: dict[str, list[Answer]] = {
        "hang": [],
        "crash": [Exit(3)],
        "illegal": ["bestmove zz99"],
        "none": ["bestmove (none)"],
        "garbage": ["hello there"],
        "badutf8": [decode_line(b"bestmove \xff\xfe")],
    }
    hello = [f"id name misbehave-{mode}", "id author tests", "ugiok"]

    def move(legal: Sequence[str], made: int) -> list[Answer]:
        if made >= after and mode in bad:
            return bad[mode]
        return ["info depth 1 score cp 0 nodes 1 string misbehave", f"bestmove {legal[0]}"]

    def script() -> Script:
        handshake: bool | list[Answer] = list(hello)
        if mode == "nohandshake":
            handshake = False
        elif mode == "slowhandshake":
            handshake = [Later(30, line) for line in hello]
        return NativeBot(move, name=f"misbehave-{mode}", handshake=handshake,
                         ready=mode != "noready")

    return ScriptedBot(f"bad-{mode}", script)


class ScriptedBots:
    """A :class:`BotSource` of scripted bots: each game gets, per side, a connection of the
    bot's dialect over a fresh :class:`ScriptedChannel` running a fresh script, handshaken as
    :func:`referee.match.open_bot` does it (on failure it is closed and the error raised), and
    closed when given back. ``channels`` keeps every channel handed out, by bot name."""

    def __init__(self, *bots: ScriptedBot) -> None:
        self.bots = {bot.spec.name: bot for bot in bots}
        self.channels: dict[str, list[ScriptedChannel]] = {name: [] for name in self.bots}

    async def acquire(self, spec: BotSpec, game_id: str) -> BotConnection:
        connection = connect(self.bots[spec.name], spec)
        self.channels[spec.name].append(scripted_channel(connection))
        try:
            await connection.handshake()
        except BaseException:
            await connection.aclose()
            raise
        return connection

    async def release(self, connection: BotConnection, side: int,
                      record: GameRecord | None) -> None:
        await connection.aclose()


def connect(bot: ScriptedBot, spec: BotSpec | None = None) -> BotConnection:
    """A connection to ``bot`` in its dialect over a fresh scripted channel, not handshaken; a
    ``debug`` bot's lines go through a :class:`RecordingChannel`, as a process's do."""
    spec = bot.spec if spec is None else spec
    channel: LineChannel = ScriptedChannel(bot.script())
    if spec.debug:
        channel = RecordingChannel(channel, spec.name)
    return connection_class(spec.protocol)(channel, spec)


async def open_scripted(bot: ScriptedBot) -> BotConnection:
    """A handshaken connection to ``bot`` (:func:`referee.match.open_bot`'s scripted twin)."""
    connection = connect(bot)
    await connection.handshake()
    return connection


def scripted_channel(connection: BotConnection) -> ScriptedChannel:
    """The scripted channel under a connection (under its recording channel if any)."""
    channel = connection.channel
    if isinstance(channel, RecordingChannel):
        channel = channel.inner
    assert isinstance(channel, ScriptedChannel)
    return channel


Clocks = TimeControl | str | tuple[TimeControl, TimeControl] | None
"""Both sides' time control (a text is parsed here), or one per side (p1's, p2's)."""


def _tcs(tc: Clocks) -> TimeControl | tuple[TimeControl, TimeControl] | None:
    return TimeControl.parse(tc) if isinstance(tc, str) else tc


async def play_scripted(game: str, p1: ScriptedBot, p2: ScriptedBot, *,
                        tc: Clocks = None,
                        bots: BotSource | None = None,
                        start_position: str | None = None,
                        opening: Sequence[str] = (),
                        adjudication: Adjudication | None = None,
                        game_options: Mapping[str, str] | None = None,
                        game_id: str = "",
                        round: int = 1,
                        on_move: Callable[[MoveRecord], None] | None = None,
                        transcript_dir: Path | None = None,
                        slots: ThinkSlots | None = None) -> GameRecord:
    """One game of ``p1`` against ``p2`` through :func:`referee.match.play_game`, the
    connections from ``bots`` (default: a :class:`ScriptedBots` of the two), its timed moves
    gated by ``slots`` when given."""
    order = GameOrder.checked(game, p1.spec, p2.spec, tc=_tcs(tc),
                              start_position=start_position, opening=opening,
                              adjudication=adjudication, game_options=game_options,
                              id=game_id, round=round)
    return await play_game(order, bots if bots is not None else ScriptedBots(p1, p2),
                           on_move=on_move, transcript_dir=transcript_dir, slots=slots)


async def play_on_scripted(game: str, connections: tuple[BotConnection, BotConnection], *,
                           tc: Clocks = None,
                           adjudication: Adjudication | None = None) -> GameRecord:
    """One game on two connections kept between games (:func:`referee.match.play_on`)."""
    order = GameOrder.checked(game, connections[0].spec, connections[1].spec, tc=_tcs(tc),
                              adjudication=adjudication)
    return await play_on(order, connections)
