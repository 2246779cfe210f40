"""``arena play``: games between two bot commands, shown live, with records written as JSON lines.

The bots are started once and reused from game to game (``uginewgame``); a bot that crashed,
stalled, broke the protocol, played an illegal move or lost on time is restarted before the
next game, so a stale reply can never leak into a new game. Colours alternate between games.
A game stopped half-way (Ctrl-C) is still written to ``--out``, unfinished (``*``), with the
moves played so far.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Final

import msgspec
import trio

from arena.commands._arguments import key_values
from arena.commands.terminal_seat import TerminalFront
from arena.errors import UserError
from arena.rundir.journal import append_record
from arena.rundir.layout import RunDir
from arena.settings.botsfile import BotsFile, read_bots_file
from referee.adjudication import Adjudication
from referee.botspec import BotSpec, Protocol
from referee.connection import BotConnection, BotError
from referee.games import Game, GameError, game_names
from referee.human import HUMAN, HumanSeat, human_spec, is_human
from referee.match import (
    FreshBots,
    open_bot,
    play_game,
    play_on,
    prepare_start,
    unfinished_record,
)
from referee.order import GameOrder
from referee.process.boterrors import BotStartError
from referee.process.botview import hide_from_bots
from referee.record import GameRecord, MoveRecord, Termination
from referee.timecontrol import TimeControl, TimeControlError

RESTART_AFTER = {
    Termination.CRASH, Termination.STALL, Termination.PROTOCOL_ERROR, Termination.TIME_FORFEIT,
    Termination.ILLEGAL_MOVE,
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "play", help="play games between two bot commands, live",
        description="Play games between two bots given as commands, showing moves and clocks.",
    )
    parser.add_argument("game", choices=game_names(), help="the game")
    parser.add_argument("--p1", required=True, metavar="CMD",
                        help="first bot's command line, an entry of --bots-file, or 'human' "
                        "to play yourself (at the prompt: a move, help, resign or draw)")
    parser.add_argument("--p2", required=True, metavar="CMD",
                        help="second bot's command line, an entry of --bots-file, or 'human' "
                        "to play yourself (at the prompt: a move, help, resign or draw)")
    parser.add_argument("--bots-file", type=Path, metavar="FILE",
                        help="a bots file ([[bots]] tables, as a config's bots_file): a --p1 "
                        "or --p2 that is the name of one of its entries plays that entry")
    parser.add_argument("--p1-name", help="first bot's name (default: from its command)")
    parser.add_argument("--p2-name", help="second bot's name (default: from its command)")
    parser.add_argument("--p1-protocol", choices=("native", "uci", "hub"),
                        help="first bot's protocol (default: native, or its bots file entry's)")
    parser.add_argument("--p2-protocol", choices=("native", "uci", "hub"),
                        help="second bot's protocol (default: native, or its bots file "
                        "entry's)")
    parser.add_argument("--tc", default="10+0.1",
                        help="time control, cutechess style: 40/60+0.6, 10+0.1, st=0.5, inf "
                        "(extras: timemargin=MS nodes=N depth=D); default 10+0.1")
    parser.add_argument("--games", type=int, default=1, help="number of games (colours alternate)")
    parser.add_argument("--position", help="start position text (default: the standard start)")
    parser.add_argument("--opening", default="", help="opening moves forced on both bots")
    parser.add_argument("--max-plies", type=int, help="adjudicate a draw after this many plies")
    parser.add_argument("--no-draw-rules", action="store_true",
                        help="switch off the game's default draw adjudication")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="game option, e.g. --option target=5 for donkan; with a p1., p2. "
                        "or each. prefix a bot's option, sent with setoption (Hub: set-param): "
                        "--option p1.Depth=3 (repeatable)")
    parser.add_argument("--show", action="store_true", help="print the board after every move")
    parser.add_argument("--quiet", action="store_true", help="print results only, not moves")
    parser.add_argument("--out", type=Path, help="directory for games.jsonl and bot stderr logs")
    parser.set_defaults(func=run)


def _name_from(cmd: list[str]) -> str:
    """A readable name from a command: the script's base name (``python bots/x.py`` -> ``x``),
    else the program's (``/usr/games/fairy-stockfish`` -> ``fairy-stockfish``)."""
    for word in cmd[1:]:
        base, ext = os.path.splitext(os.path.basename(word))
        if ext in (".py", ".js", ".mjs", ".sh", ".rb", ".pl", ".jar") and base:
            return base
    return os.path.basename(cmd[0]) or cmd[0]


def _spec(command: str, name: str | None, protocol: Protocol | None, flag: str,
          bots: BotsFile | None) -> BotSpec:
    if command.strip() == HUMAN:
        return human_spec(name or HUMAN)
    if bots is not None and bots.index(command.strip()) is not None:
        spec = bots.prepared(command.strip())
        return msgspec.structs.replace(spec, name=name or spec.name,
                                       protocol=protocol or spec.protocol)
    try:
        cmd = shlex.split(command)
    except ValueError as exc:
        raise UserError(f"{flag}: cannot split command {command!r}: {exc}") from None
    if not cmd:
        raise UserError(f"{flag}: empty command")
    if (bots is not None and len(cmd) == 1 and shutil.which(cmd[0]) is None
            and not os.path.exists(cmd[0])):
        raise UserError(f"{flag} {command!r}: neither an entry of the bots file nor a program; "
                        f"{bots.unknown(command.strip())}")
    return BotSpec(name=name or _name_from(cmd), cmd=cmd, protocol=protocol or "native")


BOT_PREFIXES: Final = ("p1.", "p2.", "each.")
"""An ``--option`` key with one of these prefixes is a bot's option (cutechess's
``option.Name=value`` of ``-engine`` and ``-each``), any other a game option."""


def split_options(options: dict[str, str], p1: BotSpec, p2: BotSpec
                  ) -> tuple[dict[str, str], BotSpec, BotSpec]:
    """``--option`` values divided: the game's, and each bot's merged into its spec (they win
    over a bots file entry's, and ``p1.``/``p2.`` over ``each.``). ``each.`` reaches the bots
    only; ``p1.``/``p2.`` naming the human seat is an error."""
    game: dict[str, str] = {}
    every: dict[str, str] = {}
    own: tuple[dict[str, str], dict[str, str]] = ({}, {})
    for key, value in options.items():
        prefix = next((p for p in BOT_PREFIXES if key.startswith(p)), None)
        if prefix is None:
            game[key] = value
            continue
        name = key.removeprefix(prefix)
        if not name:
            raise UserError(f"--option {key}={value}: no option name after {prefix!r}; "
                            "expected e.g. p1.Depth=3")
        if prefix != "each.":
            side = int(prefix[1]) - 1
            if is_human((p1, p2)[side]):
                raise UserError(f"--option {key}: p{side + 1} is the human seat, which takes "
                                "no options")
            own[side][name] = value
            continue
        every[name] = value
    specs = []
    for side, spec in enumerate((p1, p2)):
        given = own[side] if is_human(spec) else {**every, **own[side]}
        specs.append(msgspec.structs.replace(spec, options={**spec.options, **given})
                     if given else spec)
    return game, specs[0], specs[1]


def run(args: argparse.Namespace) -> int:
    try:
        tc = TimeControl.parse(args.tc)
    except TimeControlError as exc:
        raise UserError(f"--tc: {exc}") from None
    if args.games < 1:
        raise UserError(f"--games must be at least 1, got {args.games}")
    bots = read_bots_file(args.bots_file) if args.bots_file is not None else None
    p1 = _spec(args.p1, args.p1_name, args.p1_protocol, "--p1", bots)
    p2 = _spec(args.p2, args.p2_name, args.p2_protocol, "--p2", bots)
    if p1.name == p2.name:
        p1.name, p2.name = p1.name + "-1", p2.name + "-2"
    options, p1, p2 = split_options(key_values(args.option, "--option"), p1, p2)
    adjudication = Adjudication(max_plies=args.max_plies, draw_rules=not args.no_draw_rules)
    prepare_start(_order(args, p1, p2, tc, options, adjudication, 0))  # checks before any start
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    try:
        scores = trio.run(_play_all, args, p1, p2, tc, options, adjudication)
    except GameError as exc:
        raise UserError(str(exc)) from None
    print(f"Score of {p1.name} vs {p2.name}: {scores[p1.name]:g} - {scores[p2.name]:g} "
          f"({args.games} game{'s' if args.games > 1 else ''})")
    return 0


class _Printer:
    """Live output of one game: one line per move, optional diagram."""

    def __init__(self, board: Game[Any], names: tuple[str, str], show: bool, quiet: bool) -> None:
        self.board = board
        self.names = names
        self.show = show
        self.quiet = quiet
        self.moves: list[MoveRecord] = []
        """The game's moves so far (book moves included), for an unfinished game's record."""

    def __call__(self, record: MoveRecord) -> None:
        self.moves.append(record)
        self.board.play(record.move)
        if self.quiet:
            return
        number = self.board.ply
        if record.book:
            detail = "book"
        else:
            detail = f"{record.elapsed_ms / 1000:6.3f}s"
            if record.clock_ms is not None:
                detail += f"  clock {record.clock_ms / 1000:7.3f}s"
            info = record.info
            if info is not None:
                if info.depth is not None:
                    detail += f"  d{info.depth}"
                if info.score_cp is not None:
                    detail += f" cp {info.score_cp}"
                elif info.score_mate is not None:
                    detail += f" mate {info.score_mate}"
        print(f"{number:4}. p{record.side + 1} {self.names[record.side]:<14} "
              f"{record.move:<12} {detail}", flush=True)
        if self.show:
            print(self.board.diagram(), flush=True)


class _Lent(FreshBots):
    """Fresh processes for a game where a bot did not start, except the connections that are
    up (a human seat above all: its command is no program), which are lent, not closed."""

    def __init__(self, connections: dict[str, BotConnection | None],
                 log_dir: Path | None) -> None:
        super().__init__(log_dir)
        self.lent = [c for c in connections.values() if c is not None and c.alive]

    async def acquire(self, spec: BotSpec, game_id: str) -> BotConnection:
        for connection in self.lent:
            if connection.spec.name == spec.name:
                return connection
        return await super().acquire(spec, game_id)

    async def release(self, connection: BotConnection, side: int,
                      record: GameRecord | None) -> None:
        if connection not in self.lent:
            await super().release(connection, side, record)


async def _connect(spec: BotSpec, log_dir: Path | None) -> BotConnection | None:
    if is_human(spec):
        return HumanSeat(spec, TerminalFront(spec.name))
    try:
        return await open_bot(spec, log_dir=log_dir)
    except (BotError, BotStartError) as exc:
        print(f"   {spec.name} failed to start: {exc}", file=sys.stderr, flush=True)
        return None


def _order(args: argparse.Namespace, p1: BotSpec, p2: BotSpec, tc: TimeControl,
           options: dict[str, str], adjudication: Adjudication, index: int) -> GameOrder:
    """Game ``index`` (from 0) of the match: colours alternate, the rest is the command's."""
    first, second = (p1, p2) if index % 2 == 0 else (p2, p1)
    return GameOrder.checked(
        args.game, first, second, tc=tc, start_position=args.position,
        opening=args.opening.split(), adjudication=adjudication, game_options=options,
        id=f"g{index + 1}", round=index + 1)


async def _play_all(args: argparse.Namespace, p1: BotSpec, p2: BotSpec, tc: TimeControl,
                    options: dict[str, str], adjudication: Adjudication) -> dict[str, float]:
    log_dir = RunDir(args.out).logs if args.out is not None else None
    if args.out is not None:
        hide_from_bots(args.out)  # the records and logs, even inside a folder a bot sees
    connections: dict[str, BotConnection | None] = {p1.name: None, p2.name: None}
    scores = {p1.name: 0.0, p2.name: 0.0}
    try:
        for index in range(args.games):
            order = _order(args, p1, p2, tc, options, adjudication, index)
            first, second = order.bots
            for spec in (first, second):
                connection = connections[spec.name]
                if connection is None or not connection.alive:
                    if connection is not None:
                        await connection.aclose()
                    connections[spec.name] = await _connect(spec, log_dir)
            board = prepare_start(order).initial()
            printer = _Printer(board, (first.name, second.name), args.show, args.quiet)
            print(f"Game {index + 1}: {first.name} (p1) vs {second.name} (p2), tc {tc}",
                  flush=True)
            c1, c2 = connections[first.name], connections[second.name]
            started_at = time.time()
            try:
                if c1 is None or c2 is None:
                    # Let play_game start them afresh and record the failure the standard way.
                    record = await play_game(order, _Lent(connections, log_dir),
                                             on_move=printer)
                else:
                    record = await play_on(order, (c1, c2), on_move=printer)
            except BaseException:  # Ctrl-C (or a fault of ours): keep what was played
                _keep_unfinished(order, printer.moves, started_at, args.out)
                raise
            _report(record, scores, args.out)
            if record.termination in RESTART_AFTER and record.winner is not None:
                loser = (first, second)[1 - record.winner].name
                stale = connections[loser]
                if stale is not None:
                    await stale.aclose()
                connections[loser] = None
    finally:
        with trio.CancelScope(shield=True):
            for connection in connections.values():
                if connection is not None:
                    await connection.aclose()
    return scores


def _keep_unfinished(order: GameOrder, moves: list[MoveRecord], started_at: float,
                     out: Path | None) -> None:
    """Write the game being played when ``arena play`` was stopped, as unfinished."""
    record = unfinished_record(order, moves, started_at, "arena play interrupted")
    where = ""
    if out is not None:
        append_record(RunDir(out).journal, record)
        where = f", written to {RunDir(out).journal}"
    print(f"\nResult: {record.p1} vs {record.p2}: * {{{record.termination}: {record.reason}}}"
          f"{where}", flush=True)


def _report(record: GameRecord, scores: dict[str, float], out: Path | None) -> None:
    if record.winner is None:
        scores[record.p1] += 0.5
        scores[record.p2] += 0.5
    else:
        scores[(record.p1, record.p2)[record.winner]] += 1.0
    extra = f"  score {record.score[0]}-{record.score[1]}" if record.score else ""
    print(f"Result: {record.p1} vs {record.p2}: {record.result} {{{record.termination}: "
          f"{record.reason}}} after {record.plies} plies{extra}", flush=True)
    print(f"Final position: {record.final_position}", flush=True)
    if out is not None:
        append_record(RunDir(out).journal, record)
