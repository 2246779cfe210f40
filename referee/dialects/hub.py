"""Hub (version 2), the protocol of draughts engines such as Scan 3.1 and of the Hub GUI.

The handshake is ``hub`` -> ``id ...``, ``param ...`` lines, ``wait``; then ``set-param`` for
each of the bot's options and ``init`` -> ``ready``. A readiness check is ``ping`` -> ``pong``.
Each game starts with ``new-game``. A search is ``pos pos=<W or B + 50 squares> moves="..."``,
one ``level`` line (``time``/``inc``/``moves`` in seconds, or ``move-time``, ``depth``,
``nodes``) and ``go think``; the engine answers ``info`` lines and ``done move=...
ponder=...``. There is no game-over line. Unknown lines are ignored, as Hub asks; an ``error``
line from the engine is a protocol error, as the engine says it did not do what was asked.

The position is sent as the Hub GUI sends it: the position after the last man move or capture
(irreversible), plus the king moves since, which are all a repetition can need. Hub writes a
capture as ``from x to x every captured square``: :meth:`HubConnection.move_text` finds the
one legal move with that start, end and captured set and returns it in the arena's PDN; no
such move, or a short capture that fits several, is the engine's illegal-move loss.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol import hubtext
from protocol.bounds import (
    MAX_ID_CHARS,
    MAX_INFO_STRING_CHARS,
    MAX_MOVE_CHARS,
    MAX_OPTION_NAME_CHARS,
    MAX_OPTION_VALUE_CHARS,
    MAX_OPTION_VARS,
    MAX_PV_MOVES,
    clip,
)
from protocol.lines import ProtocolError
from protocol.messages import BestMove, Go, Id, Info, OptionDecl, ReadyOk, Reply, UgiOk
from referee.connection import (
    BotConnection,
    BotIllegalMove,
    BotProtocolError,
    EngineReportedError,
    Turn,
    option_text,
)

_PIECE_LETTERS = {(0, "m"): "w", (0, "K"): "W", (1, "m"): "b", (1, "K"): "B"}
_TYPES = {"bool": "check", "int": "spin", "enum": "combo", "string": "string", "real": "string"}


def hub_position(board: Any) -> str:
    """The draughts ``board`` as a Hub position text."""
    squares = {}
    for sq in range(1, hubtext.SQUARES + 1):
        piece = board.piece_at(sq)
        if piece is not None:
            squares[sq] = _PIECE_LETTERS[piece]
    return hubtext.position_text(board.side_to_move == 0, squares)


def hub_move(move: Any) -> str:
    """A draughts move object (start, end, captured squares) in Hub form."""
    return hubtext.format_move(move.start, move.end, move.captured)


def reversible_tail(board: Any) -> tuple[Any, list[str]]:
    """The position after the last man move or capture, and the king moves since (Hub form),
    as the Hub GUI sends them; ``board`` is not changed."""
    probe = board.copy()
    tail: list[str] = []
    while probe.history:
        last = probe.history[-1]
        if last.captured:
            break
        piece = probe.piece_at(last.end)
        if piece is None or piece[1] != "K":
            break
        probe.pop()
        if probe.piece_at(last.start) != piece:  # a man that was crowned by this move
            probe.push(last)
            break
        tail.append(hub_move(last))
    tail.reverse()
    return probe, tail


def level_line(go: Go, side: int) -> str:
    """The ``level`` line for ``go`` when ``side`` (0 white, 1 black) is to move: times in
    seconds, the side's own clock only."""
    args: dict[str, object] = {}
    if go.depth is not None:
        args["depth"] = go.depth
    if go.nodes is not None:
        args["nodes"] = go.nodes
    if go.movetime is not None:
        args["move-time"] = go.movetime / 1000
    mine = (go.p1time, go.p2time)[side]
    inc = (go.p1inc, go.p2inc)[side]
    if mine is not None and go.movetime is None:
        if go.movestogo is not None:
            args["moves"] = go.movestogo
        # Hub adds the increment before each move, the arena's clock after it: the engine
        # that reads time=T inc=I plans with T + I now, so T is the clock minus one increment.
        args["time"] = max(mine - (inc or 0), 0) / 1000
        if inc:
            args["inc"] = inc / 1000
    if go.infinite or not args:
        return hubtext.format_line("level", args, "infinite")
    return hubtext.format_line("level", args)


def _number(line: str, name: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ProtocolError(line, f"{name}={value!r} is not a number") from None


class HubConnection(BotConnection):
    dialect = "hub"
    move_word = "done"
    strict = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.version: str | None = None

    # ----- what is written ------------------------------------------------------------------
    def hello_lines(self) -> list[str]:
        return ["hub"]

    def option_lines(self, options: Mapping[str, object]) -> list[str]:
        return [hubtext.format_line("set-param", {"name": k, "value": option_text(v)})
                for k, v in options.items()]

    def init_lines(self) -> list[str]:
        return ["init"]

    def sync_lines(self) -> list[str]:
        return ["ping"]

    def new_game_lines(self, game: str, game_options: Mapping[str, str]) -> list[str]:
        if game != "draughts":
            raise BotProtocolError(self.name, f"bot {self.name!r} speaks Hub, a draughts "
                                   f"protocol; it cannot play {game}")
        return ["new-game", "ping"]

    def search_lines(self, turn: Turn) -> list[str]:
        base, tail = reversible_tail(turn.board)
        pos = hubtext.format_line("pos", {"pos": hub_position(base),
                                      "moves": " ".join(tail) if tail else None})
        return [pos, level_line(turn.go, turn.board.side_to_move), "go think"]

    # ----- what is read ---------------------------------------------------------------------
    def parse(self, line: str) -> Reply | None:
        parsed = hubtext.parse_line(line)
        if parsed is None:
            return None
        command, args = parsed
        match command:
            case "wait":
                return UgiOk()
            case "ready" | "pong":
                return ReadyOk()
            case "done":
                return BestMove(move=args.get("move") or "(none)",
                                ponder=args.get("ponder") or None)
            case "info":
                return self._info(line, args)
            case "id":
                return self._id(args)
            case "param":
                return self._param(line, args)
            case "error":
                raise EngineReportedError(line, "the engine reported an error: "
                                          f"{args.get('message', '(no message)')!r}")
        raise ProtocolError(line, f"unknown Hub command {command!r}")

    def _id(self, args: dict[str, str]) -> Reply | None:
        if "version" in args:
            self.version = args["version"]
        if "author" in args:
            self.id_author = clip(args["author"], MAX_ID_CHARS)
        if "name" not in args:
            return None
        name = args["name"] + (f" {args['version']}" if args.get("version") else "")
        return Id(key="name", value=clip(name, MAX_ID_CHARS))

    def _param(self, line: str, args: dict[str, str]) -> OptionDecl:
        if "name" not in args:
            raise ProtocolError(line, "param needs name=...")
        if len(args["name"]) > MAX_OPTION_NAME_CHARS:
            raise ProtocolError(line, f"param name longer than {MAX_OPTION_NAME_CHARS} chars")
        kind = _TYPES.get(args.get("type", "string"), "string")
        decl = OptionDecl(name=args["name"], type=kind)  # type: ignore[arg-type]
        default = args.get("value")
        decl.default = None if default is None else clip(default, MAX_OPTION_VALUE_CHARS)
        if kind == "spin":
            for bound in ("min", "max"):
                if bound in args:
                    setattr(decl, bound, int(_number(line, bound, args[bound])))
        if kind == "combo":
            decl.vars = [clip(v, MAX_OPTION_VALUE_CHARS)
                         for v in args.get("values", "").split()[:MAX_OPTION_VARS]]
        return decl

    def _info(self, line: str, args: dict[str, str]) -> Info:
        """Scan's fields: depth, score in men (-0.01 is -1 cp), nodes, time and nps in
        seconds and millions, pv in Hub moves (kept as the engine wrote them)."""
        info = Info()
        if "depth" in args:
            info.depth = int(_number(line, "depth", args["depth"]))
        if "score" in args:
            info.score_cp = round(_number(line, "score", args["score"]) * 100)
        if "nodes" in args:
            info.nodes = int(_number(line, "nodes", args["nodes"]))
        if "time" in args:
            info.time_ms = round(_number(line, "time", args["time"]) * 1000)
        if "nps" in args:
            info.nps = round(_number(line, "nps", args["nps"]) * 1_000_000)
        if args.get("pv"):
            pv = args["pv"].split()
            info.pv = [m for m in pv[:MAX_PV_MOVES] if len(m) <= MAX_MOVE_CHARS]
            info.pv_more = len(pv) - len(info.pv)
        if "mean-depth" in args:
            info.string = clip(f"mean-depth {args['mean-depth']}", MAX_INFO_STRING_CHARS)
        return info

    def move_text(self, text: str, turn: Turn | None) -> str:
        """The Hub move as the one legal move it names, in the arena's PDN."""
        if turn is None or text == "(none)":
            return text
        board = turn.board
        try:
            wanted = hubtext.parse_move(text)
        except ValueError as exc:
            raise BotIllegalMove(self.name, f"bot {self.name!r} played {text!r}: {exc}") from None
        fits = [m for m in board.moves()
                if m.start == wanted.start and m.end == wanted.end
                and bool(m.captured) == (wanted.is_capture or "x" in text)
                and (not wanted.captured or frozenset(m.captured) == wanted.captured)]
        if len(fits) == 1:
            return str(board.format_move(fits[0]))
        legal = ", ".join(hub_move(m) for m in board.moves())
        if not fits:
            raise BotIllegalMove(self.name, f"bot {self.name!r} played illegal move {text!r} "
                                 f"(Hub notation) in {board.position()!r}; legal: {legal}")
        raise BotIllegalMove(self.name, f"bot {self.name!r} played ambiguous move {text!r}: "
                             f"it fits {', '.join(hub_move(m) for m in fits)}")
