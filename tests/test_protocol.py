"""Protocol lines: every message formats and parses back, errors quote the line, framing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.lines import (
    BadLine,
    ProtocolError,
    decode_line,
    format_message,
    parse_command,
    parse_reply,
    split_lines,
)
from protocol.messages import (
    BestMove,
    GameAnnounce,
    GameOver,
    Go,
    Id,
    Info,
    IsReady,
    Legal,
    OptionDecl,
    Partie,
    Position,
    Quit,
    ReadyOk,
    SetOption,
    Stop,
    Ugi,
    UgiNewGame,
    UgiOk,
    from_json,
    to_json,
)
from referee.dialects.uci import format_go

COMMANDS = [
    (Ugi(), "ugi"),
    (IsReady(), "isready"),
    (SetOption(name="Skill Level", value="3"), "setoption name Skill Level value 3"),
    (SetOption(name="Clear Hash"), "setoption name Clear Hash"),
    (GameAnnounce(name="donkan", options={"target": "5"}), "game donkan target=5"),
    (GameAnnounce(name="dobutsu"), "game dobutsu"),
    (UgiNewGame(), "uginewgame"),
    (Position(), "position startpos"),
    (Position(moves=["32-28", "19-23"]), "position startpos moves 32-28 19-23"),
    (Position(fen="gle/1c1/1C1/ELG[-] w 0 1", moves=["b2b3"]),
     "position fen gle/1c1/1C1/ELG[-] w 0 1 moves b2b3"),
    (Position(fen="W:W31-50:B1-20"), "position fen W:W31-50:B1-20"),
    (Legal(moves=["E3", "pass"]), "legal E3 pass"),
    (Go(p1time=1000, p2time=900, p1inc=100, p2inc=100, movestogo=12),
     "go p1time 1000 p2time 900 p1inc 100 p2inc 100 movestogo 12"),
    (Go(movetime=500), "go movetime 500"),
    (Go(depth=6, nodes=1000), "go depth 6 nodes 1000"),
    (Go(infinite=True), "go infinite"),
    (Go(), "go"),
    (Stop(), "stop"),
    (GameOver(result="1-0", termination="normal", text="p1 wins (den)"),
     "gameover 1-0 normal string p1 wins (den)"),
    (GameOver(result="1/2-1/2", termination="adjudication", score=[7, 7]),
     "gameover 1/2-1/2 adjudication score 7 7"),
    (Partie(winner="p2", points=2, score1=3, score2=5), "partie p2 2 3 5"),
    (Quit(), "quit"),
]

REPLIES = [
    (Id(key="name", value="Random Bot 1.0"), "id name Random Bot 1.0"),
    (Id(key="author", value="someone"), "id author someone"),
    (OptionDecl(name="Seed", type="spin", default="0", min=0, max=100),
     "option name Seed type spin default 0 min 0 max 100"),
    (OptionDecl(name="Style", type="combo", default="Solid", vars=["Solid", "Risky Play"]),
     "option name Style type combo default Solid var Solid var Risky Play"),
    (OptionDecl(name="Ponder", type="check", default="false"),
     "option name Ponder type check default false"),
    (OptionDecl(name="Clear Hash", type="button"), "option name Clear Hash type button"),
    (UgiOk(), "ugiok"),
    (ReadyOk(), "readyok"),
    (BestMove(move="C@b2"), "bestmove C@b2"),
    (BestMove(move="b3b4+", ponder="a4a3"), "bestmove b3b4+ ponder a4a3"),
    (Info(depth=12, seldepth=20, score_cp=-35, nodes=12345, nps=100000, time_ms=123,
          pv=["b2b3", "a4a3"]),
     "info depth 12 seldepth 20 score cp -35 nodes 12345 nps 100000 time 123 pv b2b3 a4a3"),
    (Info(score_mate=-3, string="losing, but fighting"),
     "info score mate -3 string losing, but fighting"),
]


@pytest.mark.parametrize(("message", "line"), COMMANDS, ids=[c[1] for c in COMMANDS])
def test_commands_round_trip(message: object, line: str) -> None:
    assert format_message(message) == line  # type: ignore[arg-type]
    assert parse_command(line) == message
    assert from_json(to_json(message)) == message  # type: ignore[arg-type]


@pytest.mark.parametrize(("message", "line"), REPLIES, ids=[r[1] for r in REPLIES])
def test_replies_round_trip(message: object, line: str) -> None:
    assert format_message(message) == line  # type: ignore[arg-type]
    assert parse_reply(line) == message
    assert from_json(to_json(message)) == message  # type: ignore[arg-type]


def test_uci_dialect_words() -> None:
    go = Go(p1time=1000, p2time=2000, p1inc=10, p2inc=20)
    assert format_go(go) == "go wtime 1000 btime 2000 winc 10 binc 20"
    assert parse_command("go wtime 1000 btime 2000 winc 10 binc 20") == go
    assert parse_reply("uciok") == UgiOk()


def test_fairy_stockfish_info_line_skips_unknown_keys() -> None:
    line = ("info depth 21 seldepth 6 multipv 1 score cp 0 lowerbound nodes 198908 nps 789317 "
            "tbhits 0 time 252 pv c1c2 a4a3")
    assert parse_reply(line) == Info(depth=21, seldepth=6, score_cp=0, nodes=198908,
                                     nps=789317, time_ms=252, pv=["c1c2", "a4a3"])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("info multipv 2 pv e2e4", Info(pv=["e2e4"])),  # 'multipv' holds 'pv': not the pv
        ("info depth 3\tpv a1a2", Info(depth=3, pv=["a1a2"])),  # any whitespace separates
        ("info pvx 1 depth 2", Info(depth=2)),  # a word starting with 'pv' is another key
        ("info string pv here", Info(string="pv here")),  # 'pv' inside the string is text
        ("info depth 4 string a  b", Info(depth=4, string="a  b")),
        ("info substring 1 depth 5", Info(depth=5)),
        ("info score mate -3 upperbound depth 7", Info(score_mate=-3, depth=7)),
        ("info pv", Info()),
    ],
)
def test_info_words_stand_alone(line: str, expected: Info) -> None:
    assert parse_reply(line) == expected


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("hello there", "unknown message 'hello'"),
        ("bestmove", "bestmove without a move"),
        ("info depth x", "expected an integer after 'depth', got 'x'"),
        ("info score pawns 3", "score must be 'cp' or 'mate'"),
        ("option name X type slider", "option type must be one of"),
        ("option name X type spin min two", "expected an integer after 'min'"),
        ("id nickname bob", "id needs"),
    ],
)
def test_bad_replies_quote_the_line(line: str, words: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_reply(line)
    assert words in str(caught.value)
    assert repr(line) in str(caught.value)


@pytest.mark.parametrize(
    "line",
    ["position", "position fen", "go movetime soon", "setoption value 3", "game",
     "game donkan target", "partie p3 1 0 0", "gameover maybe normal"],
)
def test_bad_commands_raise(line: str) -> None:
    with pytest.raises(ProtocolError, match="in line"):
        parse_command(line)


def test_unknown_and_empty_lines() -> None:
    assert parse_command("xyzzy 1 2 3") is None
    assert parse_command("   ") is None
    assert parse_reply("") is None
    assert parse_command("go ponder movetime 10") == Go(movetime=10)


def test_line_framing_strips_cr_and_keeps_bad_utf8_as_a_value() -> None:
    lines = list(split_lines(b"ugiok\r\nbestmove \xff\nreadyok"))
    assert lines[0] == "ugiok" and lines[2] == "readyok"
    bad = lines[1]
    assert isinstance(bad, BadLine) and "not UTF-8" in bad.why
    assert decode_line("é".encode()) == "é"


moves = st.lists(st.text("abcdefg1234567+@x-", min_size=1, max_size=6), max_size=8)
ms = st.none() | st.integers(min_value=0, max_value=10**9)


@given(moves=moves, fen=st.none() | st.sampled_from(["W:W31-50:B1-20", "9/10/11/10/9 w 0"]))
def test_position_round_trip_property(moves: list[str], fen: str | None) -> None:
    message = Position(fen=fen, moves=moves)
    assert parse_command(format_message(message)) == message


@given(p1=ms, p2=ms, i1=ms, i2=ms, mtg=ms, mt=ms, depth=ms, nodes=ms, inf=st.booleans())
def test_go_round_trip_property(p1: int | None, p2: int | None, i1: int | None, i2: int | None,
                                mtg: int | None, mt: int | None, depth: int | None,
                                nodes: int | None, inf: bool) -> None:
    go = Go(p1time=p1, p2time=p2, p1inc=i1, p2inc=i2, movestogo=mtg, movetime=mt, depth=depth,
            nodes=nodes, infinite=inf)
    assert parse_command(format_message(go)) == go
    assert parse_command(format_go(go)) == go


# ----- caps on what is kept (protocol/bounds.py) --------------------------------------------


def test_a_flooded_pv_keeps_its_first_moves_and_counts_the_rest() -> None:
    from protocol.bounds import MAX_PV_MOVES

    moves = [f"a{i % 9}b{i % 7}" for i in range(200_000)]
    info = parse_reply("info depth 1 score cp 5 pv " + " ".join(moves) + " string hi")
    assert isinstance(info, Info)
    assert info.pv == moves[:MAX_PV_MOVES] and info.pv_more == 200_000 - MAX_PV_MOVES
    assert (info.depth, info.score_cp, info.string) == (1, 5, "hi")


def test_an_overlong_pv_move_ends_the_kept_pv() -> None:
    from protocol.bounds import MAX_MOVE_CHARS

    info = parse_reply(f"info pv a1a2 {'x' * (MAX_MOVE_CHARS + 1)} b1b2")
    assert isinstance(info, Info) and info.pv == ["a1a2"] and info.pv_more == 2


def test_info_string_and_id_are_cut_with_a_note() -> None:
    from protocol.bounds import MAX_ID_CHARS, MAX_INFO_STRING_CHARS

    info = parse_reply("info depth 2 string " + "s" * 100_000)
    assert isinstance(info, Info) and info.string is not None
    assert info.string == "s" * MAX_INFO_STRING_CHARS + \
        f"... ({100_000 - MAX_INFO_STRING_CHARS} more chars)"
    name = parse_reply("id name " + "n" * 5000)
    assert isinstance(name, Id) and len(name.value) < MAX_ID_CHARS + 30
    assert name.value.endswith(f"({5000 - MAX_ID_CHARS} more chars)")


def test_option_declarations_are_bounded() -> None:
    from protocol.bounds import MAX_OPTION_NAME_CHARS, MAX_OPTION_VARS

    combo = parse_reply("option name Style type combo default a" +
                        "".join(f" var v{i}" for i in range(10_000)))
    assert isinstance(combo, OptionDecl) and len(combo.vars) == MAX_OPTION_VARS
    with pytest.raises(ProtocolError, match="option name longer"):
        parse_reply(f"option name {'o' * (MAX_OPTION_NAME_CHARS + 1)} type check")


def test_numbers_must_fit_in_64_bits() -> None:
    """A bigger number could not be journaled (JSON via msgspec): a protocol error instead."""
    with pytest.raises(ProtocolError, match="64 bits"):
        parse_reply(f"info nodes {1 << 64}")
    assert parse_reply(f"info nodes {(1 << 63) - 1}") == Info(nodes=(1 << 63) - 1)
