"""Fuzzing the wire parsers: whatever a bot or a referee writes, parsing a line gives a message,
None, or :class:`ProtocolError` (a ValueError quoting the line), never another exception.

Texts are drawn from the protocol's own words mixed with numbers and junk, so that most
examples get deep into the keyword parsers (``info``, ``option``, ``go``, ``gameover``...).
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.lines import ProtocolError, decode_line, format_message, parse_command, parse_reply
from protocol.messages import BestMove, Info, OptionDecl

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples

FUZZ = settings(max_examples=300, deadline=None, derandomize=True)  # same examples in CI

WORDS = [
    # replies
    "ugiok", "uciok", "readyok", "bestmove", "ponder", "info", "id", "name", "author", "option",
    "type", "spin", "check", "combo", "string", "button", "default", "min", "max", "var",
    "<empty>", "depth", "seldepth", "score", "cp", "mate", "lowerbound", "upperbound", "nodes",
    "nps", "time", "pv", "multipv", "currmove", "hashfull", "tbhits",
    # commands
    "ugi", "uci", "isready", "uginewgame", "ucinewgame", "setoption", "value", "game",
    "position", "startpos", "fen", "moves", "legal", "go", "p1time", "p2time", "p1inc",
    "p2inc", "wtime", "btime", "winc", "binc", "movestogo", "movetime", "infinite", "stop",
    "quit", "gameover", "1-0", "0-1", "1/2-1/2", "*", "partie", "p1", "p2", "none",
    # values
    "0", "-1", "12", "99999999999999999999", "1e3", "x", "a1a2", "(none)", "=", "k=v", "=v",
    "k=", "", "\t", "\x00", "é", "\u2028",
]
word_lines = st.lists(st.sampled_from(WORDS) | st.text(max_size=6), max_size=12).map(" ".join)
any_lines = word_lines | st.text(max_size=80)


@FUZZ
@given(any_lines)
def test_parse_reply_raises_only_protocol_errors(line: str) -> None:
    try:
        reply = parse_reply(line)
    except ProtocolError as exc:
        assert exc.line == line
        return
    if reply is not None:
        format_message(reply)  # what was read can be written back


@FUZZ
@given(any_lines)
def test_parse_command_raises_only_protocol_errors(line: str) -> None:
    try:
        command = parse_command(line)
    except ProtocolError as exc:
        assert exc.line == line
        return
    if command is not None:
        format_message(command)


@FUZZ
@given(st.binary(max_size=200))
def test_any_bytes_decode_to_text_or_a_bad_line(raw: bytes) -> None:
    line = decode_line(raw.replace(b"\n", b""))
    if isinstance(line, str):
        with contextlib.suppress(ProtocolError):
            parse_reply(line)


INT64 = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)
"""Numbers on the wire fit in 64 bits (SPEC.md); larger ones are a protocol error."""


@FUZZ
@given(st.builds(Info, depth=st.none() | INT64, score_cp=st.none() | INT64,
                 nodes=st.none() | st.integers(min_value=0, max_value=(1 << 63) - 1),
                 pv=st.lists(st.from_regex(r"[a-z][0-9][a-z][0-9]", fullmatch=True),
                             max_size=5)),
       st.from_regex(r"[a-z][0-9][a-z][0-9]\+?", fullmatch=True))
def test_replies_round_trip(info: Info, move: str) -> None:
    assert parse_reply(format_message(info)) == info
    assert parse_reply(format_message(BestMove(move=move))) == BestMove(move=move)


@FUZZ
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\n"),
               max_size=40))
def test_option_lines_with_any_name(name: str) -> None:
    line = f"option name {name} type spin default 1 min 0 max 9"
    try:
        decl = parse_reply(line)
    except ProtocolError:
        return
    assert isinstance(decl, OptionDecl)


INFO_WORDS = ["depth", "seldepth", "score", "cp", "mate", "nodes", "pv", "string", "multipv",
              "1", "-3", "x", "b1c2", "lowerbound"]
info_lines = st.lists(st.sampled_from(INFO_WORDS), max_size=8).map(lambda w: " ".join(["info", *w]))


@FUZZ
@given(st.lists(info_lines, max_size=14))
def test_uci_info_parsed_late_reads_what_eager_parsing_reads(lines: list[str]) -> None:
    """Whatever ``info`` lines a UCI engine sends before its move, reading them as text and
    parsing only what the move needs (:attr:`referee.connection.BotConnection.deferred_info`)
    keeps the same report and the same latest score as parsing each on arrival."""
    import trio.testing
    from test_dialects import EagerUci, uci_reports

    from referee.dialects import UciConnection

    async def both() -> None:
        assert await uci_reports(UciConnection, lines) == await uci_reports(EagerUci, lines)

    trio.run(both, clock=trio.testing.MockClock(autojump_threshold=0))
