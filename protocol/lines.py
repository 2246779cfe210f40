"""Text lines <-> protocol messages: strict parsing, canonical formatting, line framing.

Parsing is strict about the commands it knows (a bad number or a missing field raises
:class:`ProtocolError` quoting the line) and says ``None`` for words it does not know, so that
each side can apply the protocol's rule itself: bots ignore unknown commands, the referee
treats an unknown line as garbage once the handshake is over. Both dialects share the parser;
``uci``/``uciok``/``ucinewgame`` are read as their UGI twins.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

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
from protocol.messages import (
    BestMove,
    Command,
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
    Quit,
    ReadyOk,
    Reply,
    SetOption,
    Stop,
    Ugi,
    UgiNewGame,
    UgiOk,
)

MAX_LINE_BYTES = 1 << 20
"""Longest line either side has to accept (1 MiB); longer lines are a protocol error."""

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class ProtocolError(ValueError):
    """A line that breaks the protocol; the message quotes the line and says what is wrong."""

    def __init__(self, line: str, why: str) -> None:
        shown = line if len(line) <= 200 else line[:200] + f"... ({len(line)} chars)"
        super().__init__(f"{why} in line {shown!r}")
        self.line = line
        self.why = why


class BadLine:
    """A line that could not be read as text (not UTF-8) or was too long: a value, not a crash."""

    __slots__ = ("raw", "why")

    def __init__(self, raw: bytes, why: str) -> None:
        self.raw = raw[:200]
        self.why = why

    def __repr__(self) -> str:
        return f"BadLine({self.why}: {self.raw!r})"


def decode_line(raw: bytes) -> str | BadLine:
    """One line's bytes (without ``\\n``) as text: ``\\r`` stripped, bad UTF-8 a BadLine."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return BadLine(raw, f"not UTF-8 ({exc.reason} at byte {exc.start})")


def split_lines(data: bytes) -> Iterator[str | BadLine]:
    """Every complete or trailing line of ``data`` decoded (handy for files and tests)."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    for part in parts:
        yield decode_line(part)


# ----- formatting -------------------------------------------------------------------------


def _opt(key: str, value: int | None) -> str:
    return f" {key} {value}" if value is not None else ""


def format_message(message: Message) -> str:
    """The line for a message in the arena's protocol, without the newline (other dialects'
    words live in :mod:`referee.dialects`)."""
    try:
        formatter = _FORMATTERS[type(message)]
    except KeyError:
        raise TypeError(f"not a protocol message: {message!r}") from None
    return formatter(message)


def _format_setoption(m: SetOption) -> str:
    return f"setoption name {m.name}" + (f" value {m.value}" if m.value is not None else "")


def _format_game(m: GameAnnounce) -> str:
    return " ".join(["game", m.name, *(f"{k}={v}" for k, v in m.options.items())])


def _format_position(m: Position) -> str:
    head = "position startpos" if m.fen is None else f"position fen {m.fen}"
    return head + " moves " + " ".join(m.moves) if m.moves else head


def _format_gameover(m: GameOver) -> str:
    line = f"gameover {m.result} {m.termination}"
    if m.score:
        line += " score " + " ".join(str(s) for s in m.score)
    return line + (f" string {m.text}" if m.text else "")


def _format_bestmove(m: BestMove) -> str:
    return f"bestmove {m.move}" + (f" ponder {m.ponder}" if m.ponder else "")


_GO_WORDS = ("p1time", "p2time", "p1inc", "p2inc", "movestogo", "movetime", "depth", "nodes")


def _format_go(go: Go) -> str:
    values = (go.p1time, go.p2time, go.p1inc, go.p2inc, go.movestogo, go.movetime, go.depth,
              go.nodes)
    parts = ["go"]
    for word, value in zip(_GO_WORDS, values, strict=True):
        if value is not None:
            parts.append(f"{word} {value}")
    if go.infinite:
        parts.append("infinite")
    return " ".join(parts)


def _format_option(o: OptionDecl) -> str:
    line = f"option name {o.name} type {o.type}"
    if o.default is not None:
        line += f" default {o.default}"
    line += _opt("min", o.min) + _opt("max", o.max)
    return line + "".join(f" var {v}" for v in o.vars)


def _format_info(info: Info) -> str:
    line = "info" + _opt("depth", info.depth) + _opt("seldepth", info.seldepth)
    if info.score_cp is not None:
        line += f" score cp {info.score_cp}"
    elif info.score_mate is not None:
        line += f" score mate {info.score_mate}"
    line += _opt("nodes", info.nodes) + _opt("nps", info.nps) + _opt("time", info.time_ms)
    if info.pv:
        line += " pv " + " ".join(info.pv)
    if info.string is not None:
        line += f" string {info.string}"
    return line


_FORMATTERS: dict[type, Callable[[Any], str]] = {
    Ugi: lambda m: "ugi",
    UgiOk: lambda m: "ugiok",
    UgiNewGame: lambda m: "uginewgame",
    IsReady: lambda m: "isready",
    ReadyOk: lambda m: "readyok",
    Stop: lambda m: "stop",
    Quit: lambda m: "quit",
    SetOption: _format_setoption,
    GameAnnounce: _format_game,
    Position: _format_position,
    Legal: lambda m: " ".join(["legal", *m.moves]),
    Go: _format_go,
    GameOver: _format_gameover,
    Partie: lambda m: f"partie {m.winner} {m.points} {m.score1} {m.score2}",
    Id: lambda m: f"id {m.key} {m.value}",
    OptionDecl: _format_option,
    BestMove: _format_bestmove,
    Info: _format_info,
}
"""Message type -> formatter; a dict lookup instead of a chain of type tests (hot path)."""


# ----- parsing ----------------------------------------------------------------------------


_INT_LIMIT = 1 << 63
"""Numbers must fit in 64 bits: the journal (JSON via msgspec) cannot hold larger ones."""


def _int(line: str, key: str, text: str | None) -> int:
    if text is None:
        raise ProtocolError(line, f"missing number after {key!r}")
    try:
        value = int(text)
    except ValueError:
        raise ProtocolError(line, f"expected an integer after {key!r}, "
                            f"got {clip(text, MAX_MOVE_CHARS)!r}") from None
    if not -_INT_LIMIT <= value < _INT_LIMIT:
        raise ProtocolError(line, f"the number after {key!r} does not fit in 64 bits")
    return value


def _after(line: str, words: list[str], key: str) -> str | None:
    """The text after the first word ``key`` (spaces kept), None if ``key`` is absent."""
    if key not in words:
        return None
    return " ".join(words[words.index(key) + 1 :])


def parse_command(line: str) -> Command | None:
    """A referee -> bot line as a message; None for an empty line or an unknown command."""
    words = line.split()
    if not words:
        return None
    word, rest = words[0], words[1:]
    match word:
        case "ugi" | "uci":
            return Ugi()
        case "isready":
            return IsReady()
        case "uginewgame" | "ucinewgame":
            return UgiNewGame()
        case "stop":
            return Stop()
        case "quit":
            return Quit()
        case "setoption":
            return _parse_setoption(line, rest)
        case "game":
            return _parse_game(line, rest)
        case "position":
            return _parse_position(line, rest)
        case "legal":
            return Legal(moves=rest)
        case "go":
            return _parse_go(line, rest)
        case "gameover":
            return _parse_gameover(line, rest)
        case "partie":
            return _parse_partie(line, rest)
    return None


def _parse_setoption(line: str, rest: list[str]) -> SetOption:
    if not rest or rest[0] != "name" or len(rest) < 2:
        raise ProtocolError(line, "setoption needs 'name <N>'")
    if "value" in rest[2:]:
        at = rest.index("value", 2)
        return SetOption(name=" ".join(rest[1:at]), value=" ".join(rest[at + 1 :]))
    return SetOption(name=" ".join(rest[1:]))


def _parse_game(line: str, rest: list[str]) -> GameAnnounce:
    if not rest:
        raise ProtocolError(line, "game needs a game name")
    options: dict[str, str] = {}
    for item in rest[1:]:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ProtocolError(line, f"game option {item!r} is not key=value")
        options[key] = value
    return GameAnnounce(name=rest[0], options=options)


def _parse_position(line: str, rest: list[str]) -> Position:
    moves: list[str] = []
    if "moves" in rest:
        at = rest.index("moves")
        rest, moves = rest[:at], rest[at + 1 :]
    if rest == ["startpos"]:
        return Position(moves=moves)
    if len(rest) >= 2 and rest[0] == "fen":
        return Position(fen=" ".join(rest[1:]), moves=moves)
    raise ProtocolError(line, "position needs 'startpos' or 'fen <text>'")


_GO_INTS = {
    "p1time": "p1time", "p2time": "p2time", "p1inc": "p1inc", "p2inc": "p2inc",
    "wtime": "p1time", "btime": "p2time", "winc": "p1inc", "binc": "p2inc",
    "movestogo": "movestogo", "movetime": "movetime", "depth": "depth", "nodes": "nodes",
}


def _parse_go(line: str, rest: list[str]) -> Go:
    fields: dict[str, int | bool] = {}
    i = 0
    while i < len(rest):
        key = rest[i]
        if key == "infinite":
            fields["infinite"] = True
            i += 1
        elif key in _GO_INTS:
            fields[_GO_INTS[key]] = _int(line, key, rest[i + 1] if i + 1 < len(rest) else None)
            i += 2
        else:
            i += 1  # unknown go parameter (ponder, mate, searchmoves...): ignored
    return Go(**fields)  # type: ignore[arg-type]


def _parse_gameover(line: str, rest: list[str]) -> GameOver:
    if len(rest) < 2 or rest[0] not in RESULTS:
        raise ProtocolError(line, "gameover needs '<result> <termination>'")
    score: list[int] = []
    text = _after(line, rest, "string") or ""
    if "score" in rest:
        at = rest.index("score")
        score = [_int(line, "score", w) for w in rest[at + 1 : at + 3]]
        if len(score) != 2:
            raise ProtocolError(line, "score needs two numbers")
    return GameOver(result=rest[0], termination=rest[1], score=score, text=text)


def _parse_partie(line: str, rest: list[str]) -> Partie:
    if len(rest) != 4 or rest[0] not in ("p1", "p2", "none"):
        raise ProtocolError(line, "partie needs '<p1|p2|none> <points> <score1> <score2>'")
    return Partie(
        winner=rest[0],  # type: ignore[arg-type]
        points=_int(line, "points", rest[1]),
        score1=_int(line, "score1", rest[2]),
        score2=_int(line, "score2", rest[3]),
    )


def parse_reply(line: str) -> Reply | None:
    """A bot -> referee line as a message; None for an empty line.

    Raises :class:`ProtocolError` for an unknown word or a malformed known message. What is
    kept is cut to the caps of :mod:`protocol.bounds`."""
    head = line.split(None, 1)
    if not head:
        return None
    word = head[0]
    if word == "info":  # the one reply sent in bulk: parsed without splitting a long pv
        return _parse_info(line, head[1] if len(head) > 1 else "")
    rest = line.split()[1:]
    match word:
        case "ugiok" | "uciok":
            return UgiOk()
        case "readyok":
            return ReadyOk()
        case "bestmove":
            if not rest:
                raise ProtocolError(line, "bestmove without a move")
            ponder = rest[2] if len(rest) >= 3 and rest[1] == "ponder" else None
            return BestMove(move=rest[0], ponder=ponder)
        case "id":
            if len(rest) < 2 or rest[0] not in ("name", "author"):
                raise ProtocolError(line, "id needs 'name <X>' or 'author <Y>'")
            value = clip(" ".join(rest[1:]), MAX_ID_CHARS)
            return Id(key=rest[0], value=value)  # type: ignore[arg-type]
        case "option":
            return _parse_option(line, rest)
    raise ProtocolError(line, f"unknown message {word!r}")


_OPTION_TYPES = ("spin", "check", "combo", "string", "button")


def _parse_option(line: str, rest: list[str]) -> OptionDecl:
    if len(rest) < 4 or rest[0] != "name" or "type" not in rest[2:]:
        raise ProtocolError(line, "option needs 'name <N> type <T>'")
    at = rest.index("type", 2)
    name = " ".join(rest[1:at])
    if len(name) > MAX_OPTION_NAME_CHARS:
        raise ProtocolError(line, f"option name longer than {MAX_OPTION_NAME_CHARS} chars")
    kind = rest[at + 1] if at + 1 < len(rest) else ""
    if kind not in _OPTION_TYPES:
        raise ProtocolError(line, f"option type must be one of {', '.join(_OPTION_TYPES)}")
    decl = OptionDecl(name=name, type=kind)  # type: ignore[arg-type]
    words = rest[at + 2 :]
    i = 0
    while i < len(words):
        key = words[i]
        # a value runs up to the next keyword (UCI allows spaces in defaults and vars)
        j = i + 1
        while j < len(words) and words[j] not in ("default", "min", "max", "var"):
            j += 1
        value = " ".join(words[i + 1 : j])
        if key == "default":
            decl.default = clip(value, MAX_OPTION_VALUE_CHARS) if value != "<empty>" else ""
        elif key in ("min", "max"):
            setattr(decl, key, _int(line, key, value or None))
        elif key == "var":
            if len(decl.vars) < MAX_OPTION_VARS:
                decl.vars.append(clip(value, MAX_OPTION_VALUE_CHARS))
        else:
            raise ProtocolError(line, f"unexpected {key!r} in option")
        i = j
    return decl


_INFO_INTS: Final = {"depth": "depth", "seldepth": "seldepth", "nodes": "nodes", "nps": "nps",
                     "time": "time_ms"}
"""The integer words of ``info`` and the :class:`Info` field each sets."""
_INFO_ONE_SPLIT_CHARS: Final = 1024
"""An ``info`` text up to this long is split into words once; a longer one (a flooding bot's
pv) is cut at its ``string`` and ``pv`` first, so that what is thrown away is never split."""
_INFO_SKIP_ONE = frozenset(("multipv", "currmove", "currmovenumber", "hashfull", "tbhits",
                            "sbhits", "cpuload"))


def _word_span(text: str, word: str) -> tuple[int, int] | None:
    """Where ``word`` first stands alone in ``text`` (whitespace or an end on both sides).
    A scan with ``str.find`` (``multipv`` holds ``pv``): a regex costs more than the rest of
    an ``info`` line's parse, and engines send several such lines per move."""
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or text[at - 1].isspace()) and (end == len(text) or text[end].isspace()):
            return at, end
        at = text.find(word, at + 1)
    return None


def _parse_info(line: str, text: str) -> Info:
    """``info`` after its first word. ``string`` takes the rest of the line and ``pv`` runs up
    to ``string`` or the end; both are cut to their caps without splitting what is cut off
    (a flooding bot sends 200,000-move pvs on every move)."""
    info = Info()
    if len(text) <= _INFO_ONE_SPLIT_CHARS:  # an engine's usual line: one split, one pass
        words = text.split()
        if "string" not in words:
            if "pv" in words:
                at = words.index("pv")
                pv = words[at + 1 : at + 1 + MAX_PV_MOVES]
                _keep_pv(info, pv, len(words) - at - 1 - len(pv))
                del words[at:]
            _info_fields(info, line, words)
            return info
    found = _word_span(text, "string")
    if found is not None:
        info.string = clip(line.split(" string ", 1)[1] if " string " in line else "",
                           MAX_INFO_STRING_CHARS)
        text = text[: found[0]]
    found = _word_span(text, "pv")
    if found is not None:
        _parse_pv(info, text[found[1]:])
        text = text[: found[0]]
    _info_fields(info, line, text.split())
    return info


def _info_fields(info: Info, line: str, fields: list[str]) -> None:
    """The numbers and score of an ``info`` line's words before its ``pv`` and ``string``.

    A number is read with :func:`int` in line and handed to :func:`_int` (which raises the
    protocol's error) only when it is missing, not an integer or too large: an engine's line
    holds six or seven numbers, and the referee reads one such line every move."""
    words = iter(fields)
    for key in words:  # an unknown key (or a bound after a score) is skipped, as UCI allows
        name = _INFO_INTS.get(key)
        if name is not None:
            text = next(words, None)
            try:
                value = int(text)  # type: ignore[arg-type]  # None: TypeError, as wanted
            except (TypeError, ValueError):
                value = _int(line, key, text)
            if not -_INT_LIMIT <= value < _INT_LIMIT:
                value = _int(line, key, text)
            setattr(info, name, value)
        elif key == "score":
            kind = next(words, None)
            text = next(words, None)
            try:
                value = int(text)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                value = _int(line, f"score {kind}", text)
            if not -_INT_LIMIT <= value < _INT_LIMIT:
                value = _int(line, f"score {kind}", text)
            if kind == "cp":
                info.score_cp = value
            elif kind == "mate":
                info.score_mate = value
            else:
                raise ProtocolError(line, f"score must be 'cp' or 'mate', got {kind!r}")
        elif key in _INFO_SKIP_ONE:
            next(words, None)


def _parse_pv(info: Info, text: str) -> None:
    """The first :data:`MAX_PV_MOVES` moves of a pv (each at most :data:`MAX_MOVE_CHARS`);
    the moves left out are counted in ``info.pv_more``."""
    moves = text.split(None, MAX_PV_MOVES)
    more = 0
    if len(moves) > MAX_PV_MOVES:
        more = len(moves.pop().split())
    _keep_pv(info, moves, more)


def _keep_pv(info: Info, moves: list[str], more: int) -> None:
    """``moves`` (at most :data:`MAX_PV_MOVES`) as the pv, up to the first one longer than
    :data:`MAX_MOVE_CHARS`; ``more`` moves were left out already."""
    for at, move in enumerate(moves):
        if len(move) > MAX_MOVE_CHARS:
            more += len(moves) - at
            del moves[at:]
            break
    info.pv = moves
    info.pv_more = more
