"""Each dialect (native, UCI, Hub) in-process against a scripted fake bot: no processes.

The fake (tests/fake_channel.py) answers lines as a bot would, with delays on trio's clock;
``autojump_clock`` makes timeouts and late answers cost no real time. Covered per dialect: the
handshake, clocks in the dialect's words, a move arriving right after ``stop``/a timeout,
captures in Hub form, and malformed or missing replies.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path
from typing import Any

import pytest
import trio
from fake_channel import Answer, Exit, Later, ScriptedChannel, table

import referee.connection
from protocol.hubtext import position_to_fen
from protocol.lines import BadLine
from protocol.messages import GameOver, Go
from referee.botspec import BotSpec
from referee.connection import (
    BotConnection,
    BotCrashed,
    BotIllegalMove,
    BotProtocolError,
    BotStalled,
    BotTimedOut,
    Turn,
)
from referee.dialects import HubConnection, NativeConnection, UciConnection, connection_class
from referee.dialects.hub import hub_position
from referee.dialects.uci import can_win_at_once
from referee.games import get_game

HUB_START = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww"


def connect(cls: type[BotConnection], script: Any, **spec: Any) -> tuple[Any, ScriptedChannel]:
    channel = ScriptedChannel(script)
    protocol = {NativeConnection: "native", UciConnection: "uci", HubConnection: "hub"}[cls]
    bot = BotSpec(name="fake", cmd=["fake"], protocol=protocol, **spec)  # type: ignore[arg-type]
    return connection_class(bot.protocol)(channel, bot), channel


def turn(game: str, moves: list[str] = (), go: Go | None = None,  # type: ignore[assignment]
         start: str | None = None) -> Turn:
    rules = get_game(game)
    board = rules.new(start, moves)
    return Turn(board, start, list(moves), board.legal_moves(), go or Go(movetime=100))


NATIVE: dict[str, list[Answer]] = {
    "ugi": ["id name Fake", "id author Tester", "option name Hash type spin default 1 min 1 "
            "max 64", "ugiok"],
    "isready": ["readyok"],
}


# ----- native ----------------------------------------------------------------------------


async def test_native_handshake_options_and_identity(autojump_clock: Any) -> None:
    bot, channel = connect(NativeConnection, table(NATIVE), options={"Hash": 8})
    await bot.handshake()
    assert channel.sent == ["ugi", "setoption name Hash value 8", "isready"]
    assert (bot.id_name, bot.id_author) == ("Fake", "Tester")
    assert bot.options["Hash"].max == 64


async def test_native_clocks_history_and_legal_line(autojump_clock: Any) -> None:
    bot, channel = connect(NativeConnection, table({**NATIVE, "go": ["info depth 3 score cp "
                                                                      "12 pv e3e4",
                                                                      "bestmove e3e4"]}))
    await bot.handshake()
    t = turn("jungle", [], Go(p1time=1000, p2time=2000, p1inc=10, p2inc=20, movestogo=5))
    reply = await bot.request_move(t, 5.0)
    assert channel.sent[-3:] == ["position startpos", "legal " + " ".join(t.legal),
                                 "go p1time 1000 p2time 2000 p1inc 10 p2inc 20 movestogo 5"]
    assert reply.move == "e3e4" and reply.info is not None and reply.info.score_cp == 12
    assert reply.scored is reply.info


async def test_native_sends_game_then_gameover(autojump_clock: Any) -> None:
    bot, channel = connect(NativeConnection, table(NATIVE))
    await bot.handshake()
    await bot.new_game("donkan", {"target": "5"})
    assert channel.sent[-3:] == ["game donkan target=5", "uginewgame", "isready"]
    await bot.game_over(GameOver(result="1-0", termination="normal"))
    assert channel.sent[-1] == "gameover 1-0 normal"


async def test_native_timeout_sends_stop_and_the_late_bestmove_is_drained(
        autojump_clock: Any) -> None:
    """The move arrives right after ``stop``: it must not answer the next game's search."""
    bot, channel = connect(NativeConnection, table({
        **NATIVE, "go": [Later(0.5, "bestmove a1a2")], "stop": []}))
    await bot.handshake()
    with pytest.raises(BotTimedOut, match="no bestmove within 300 ms"):
        await bot.request_move(turn("jungle"), 0.3)
    assert channel.sent[-1] == "stop" and bot.owed_bestmoves == 1
    await bot.new_game("jungle", {})  # settles first: reads the late bestmove
    assert bot.owed_bestmoves == 0
    assert "< bestmove a1a2" in channel.transcript
    assert channel.sent[-2:] == ["uginewgame", "isready"]


async def test_native_owed_bestmove_never_sent_is_a_stall(autojump_clock: Any) -> None:
    bot, _ = connect(NativeConnection, table({**NATIVE, "go": []}))
    await bot.handshake()
    with pytest.raises(BotTimedOut):
        await bot.request_move(turn("jungle"), 0.1)
    with pytest.raises(BotStalled, match="did not send the bestmove it owed"):
        await bot.new_game("jungle", {})


@pytest.mark.parametrize(("answer", "words"), [
    ("bestmove", "bestmove without a move"),
    ("hello there", "unknown message 'hello'"),
    ("info depth x", "expected an integer after 'depth'"),
    (BadLine(b"\xff", "not UTF-8"), "not UTF-8"),
])
async def test_native_malformed_replies_are_protocol_errors(autojump_clock: Any, answer: Any,
                                                             words: str) -> None:
    bot, _ = connect(NativeConnection, table({**NATIVE, "go": [answer]}))
    await bot.handshake()
    with pytest.raises(BotProtocolError, match=words):
        await bot.request_move(turn("jungle"), 1.0)


async def test_silent_and_crashing_bots(autojump_clock: Any) -> None:
    bot, _ = connect(NativeConnection, table({}))
    with pytest.raises(BotStalled, match="did not answer ugi within 10 s"):
        await bot.handshake()
    bot, _ = connect(NativeConnection, table({**NATIVE, "go": [Exit(3)]}))
    await bot.handshake()
    with pytest.raises(BotCrashed, match="exit status 3"):
        await bot.request_move(turn("jungle"), 1.0)


# ----- UCI -------------------------------------------------------------------------------

UCI: dict[str, list[Answer]] = {
    "uci": ["Fairy-Stockfish by the authors", "id name FSF", "uciok"],
    "isready": ["readyok"],
}


async def test_uci_words_variant_and_noise(autojump_clock: Any) -> None:
    bot, channel = connect(UciConnection, table({
        **UCI, "go": ["info string some chatter", "nonsense line", "bestmove b1c2"]}),
        variant="dobutsu")
    await bot.handshake()
    await bot.new_game("dobutsu", {})
    assert channel.sent == ["uci", "isready", "setoption name UCI_Variant value dobutsu",
                            "ucinewgame", "isready"]
    reply = await bot.request_move(turn("dobutsu", [], Go(p1time=900, p2time=800, p1inc=5,
                                                          p2inc=6)), 1.0)
    assert channel.sent[-1] == "go wtime 900 btime 800 winc 5 binc 6"
    assert reply.move == "b1c2"


async def test_uci_variant_is_set_again_only_when_it_changes(autojump_clock: Any) -> None:
    """The same process's next game of the same variant gets no ``setoption`` (an engine
    keeps its options across ``ucinewgame``); another variant gets it again."""
    bot, channel = connect(UciConnection, table(UCI))
    await bot.handshake()
    await bot.new_game("dobutsu", {})
    await bot.new_game("dobutsu", {})
    await bot.new_game("jungle", {})
    assert channel.sent[2:] == ["setoption name UCI_Variant value dobutsu", "ucinewgame",
                                "isready", "ucinewgame", "isready",
                                "setoption name UCI_Variant value jungle", "ucinewgame",
                                "isready"]


async def test_uci_sends_the_start_and_every_move(autojump_clock: Any) -> None:
    bot, channel = connect(UciConnection, table({**UCI, "go": ["bestmove b1a2"]}))
    await bot.handshake()
    await bot.request_move(turn("dobutsu", ["b2b3", "c4b3"]), 1.0)
    assert channel.sent[-2] == "position startpos moves b2b3 c4b3"
    start = get_game("dobutsu").start().position()
    await bot.request_move(turn("dobutsu", ["b2b3"], start=start), 1.0)
    assert channel.sent[-2] == f"position fen {start} moves b2b3"


def _game_through_a_win_at_once(seed: int) -> tuple[list[str], str] | None:
    """Random dobutsu moves up to a position where the side to move can win at once (take
    the lion), and a reply there that neither ends the game nor leaves a win at once."""
    rng = random.Random(seed)
    board = get_game("dobutsu").start()
    moves: list[str] = []
    while not board.is_over():
        if moves and can_win_at_once(board):
            for reply in board.legal_moves():
                after = board.copy()
                after.play(reply)
                if not after.is_over() and not can_win_at_once(after):
                    return moves, reply
            return None
        move = rng.choice(board.legal_moves())
        board.play(move)
        moves.append(move)
    return None


async def test_uci_resyncs_after_a_move_a_check_rule_engine_rejects(
        autojump_clock: Any) -> None:
    """Fairy-Stockfish rejects a move that leaves the lion attacked: from there on the
    position is sent as the FEN reached plus the moves since."""
    moves, reply = next(g for g in map(_game_through_a_win_at_once, range(200)) if g)
    bot, channel = connect(UciConnection, table({**UCI, "go": ["bestmove x"]}))
    await bot.handshake()
    await bot.request_move(turn("dobutsu", moves[:-1]), 1.0)
    assert channel.sent[-2] == "position startpos moves " + " ".join(moves[:-1])
    t = turn("dobutsu", moves)
    await bot.request_move(t, 1.0)
    assert channel.sent[-2] == f"position fen {t.board.position()}"
    board = t.board.copy()
    board.play(reply)
    await bot.request_move(Turn(board, None, [*moves, reply], board.legal_moves(),
                                Go(movetime=10)), 1.0)
    assert channel.sent[-2] == f"position fen {t.board.position()} moves {reply}"
    await bot.new_game("dobutsu", {})  # a new game starts from the start again
    await bot.request_move(turn("dobutsu", ["b2b3"]), 1.0)
    assert channel.sent[-2] == "position startpos moves b2b3"


class EagerUci(UciConnection):
    """UCI with every ``info`` line parsed as it comes: what deferred parsing must equal."""

    deferred_info = None


async def uci_reports(cls: type[UciConnection], lines: list[str]) -> tuple[Any, Any]:
    """The ``info`` and ``scored`` a UCI connection of ``cls`` keeps for a search answered
    with ``lines`` then ``bestmove``."""
    bot = cls(ScriptedChannel(table({**UCI, "go": [*lines, "bestmove b1c2"]})),
              BotSpec(name="fake", cmd=["fake"], protocol="uci"))
    reply = await bot.request_move(turn("dobutsu"), 1.0)
    return reply.info, reply.scored


@pytest.mark.parametrize("lines", [
    ["info depth 1 score cp 5 pv b1c2", "info depth 2 nodes 3 pv b1c2 c3c2"],
    ["info depth 1 score cp 5", "info depth x score cp 9"],  # the last does not parse
    ["info depth 1 score mate 2", "info depth 2 score cp nine", "info depth 3 nodes 5"],
    ["info depth 3 score cp 1", "info string hello"],  # a string joins the report before
    ["info string first", "info depth 2", "info depth 3 string both", "info nodes 4"],
    [f"info depth {d}" + (" score cp 7" if d == 3 else "") for d in range(1, 30)],
    [f"info depth {d} score cp {d}" for d in range(1, 30)] + ["info depth q"] * 20,
    ["info", "info  depth 4", "infodepth 5", "info\tdepth 6 score cp 2", " info depth 7"],
])
async def test_uci_info_parsed_late_reads_what_eager_parsing_reads(
        autojump_clock: Any, lines: list[str]) -> None:
    """A UCI search's ``info`` lines are kept as text and only the ones the move needs are
    parsed at its ``bestmove``: the move's report and latest score are the same as when
    every line is parsed on arrival, bad lines and ``string`` lines included."""
    deferred, eager = await uci_reports(UciConnection, lines), await uci_reports(EagerUci, lines)
    assert deferred == eager
    assert deferred[0] is not None


async def test_uci_info_lines_wait_unparsed_up_to_a_bound(autojump_clock: Any) -> None:
    """A flooding engine's reports do not pile up as text: past
    :data:`referee.connection.UNPARSED_INFO_KEPT` the oldest is parsed."""
    kept = referee.connection.UNPARSED_INFO_KEPT
    bot, _ = connect(UciConnection, table({**UCI, "go": [
        *(f"info depth {d} score cp {d}" for d in range(1, 1000)), Later(5.0, "bestmove b1c2")]}))
    t = turn("dobutsu")
    await bot.start_search(t)
    reading = referee.connection._Reading()
    assert await bot.read_move(t, trio.current_time(), trio.current_time() + 1.0, reading) is None
    assert len(reading.unparsed) == kept
    assert reading.info is not None and reading.info.depth == 999 - kept
    reply = await bot.read_move(t, trio.current_time(), float("inf"), reading)
    assert reply is not None and reply.info is not None and reply.info.depth == 999
    assert reply.scored is reply.info


async def test_uci_promotion_without_plus_is_read_as_the_legal_move() -> None:
    bot, _ = connect(UciConnection, table(UCI))
    t = Turn(None, None, [], ["a3a4+", "b1b2"], Go())
    assert bot.move_text("a3a4", t) == "a3a4+"
    assert bot.move_text("b1b2", t) == "b1b2"


# ----- Hub -------------------------------------------------------------------------------

HUB: dict[str, list[Answer]] = {
    "hub": ['id name=Scan version=3.1 author="Fabien Letouzey" country=France',
            'param name=variant value=normal type=enum values="normal killer bt frisian losing"',
            "param name=book value=true type=bool",
            "param name=threads value=1 type=int min=1 max=16", "wait"],
    "init": [Later(0.2, "ready")],
    "ping": ["pong"],
}


async def test_hub_handshake_params_and_new_game(autojump_clock: Any) -> None:
    bot, channel = connect(HubConnection, table(HUB), options={"book": False, "threads": 1})
    await bot.handshake()
    assert channel.sent == ["hub", "set-param name=book value=false",
                            "set-param name=threads value=1", "init"]
    assert bot.id_name == "Scan 3.1" and bot.id_author == "Fabien Letouzey"
    assert bot.options["variant"].type == "combo"
    assert bot.options["variant"].vars == ["normal", "killer", "bt", "frisian", "losing"]
    assert bot.options["threads"].max == 16 and bot.options["book"].type == "check"
    await bot.new_game("draughts", {})
    assert channel.sent[-2:] == ["new-game", "ping"]
    with pytest.raises(BotProtocolError, match="cannot play jungle"):
        await bot.new_game("jungle", {})


async def test_hub_position_level_and_info(autojump_clock: Any) -> None:
    bot, channel = connect(HubConnection, table({**HUB, "go": [
        'info depth=21 mean-depth=20.8 score=-0.01 nodes=31261613 time=3.906 nps=8.0 '
        'pv="32-28 17-22 28x17x22"', "done move=32-28 ponder=17-22"]}))
    await bot.handshake()
    t = turn("draughts", [], Go(p1time=5000, p2time=4000, p1inc=50, p2inc=50))
    reply = await bot.request_move(t, 6.0)
    assert channel.sent[-3:] == [f"pos pos={HUB_START}", "level time=4.950 inc=0.050",
                                 "go think"]
    assert reply.move == "32-28"
    info = reply.info
    assert info is not None
    assert (info.depth, info.score_cp, info.nodes, info.time_ms, info.nps) == (
        21, -1, 31261613, 3906, 8_000_000)
    assert info.pv == ["32-28", "17-22", "28x17x22"]


@pytest.mark.parametrize(("go", "level"), [
    (Go(movetime=1500), "level move-time=1.500"),
    (Go(depth=7), "level depth=7"),
    (Go(nodes=1000), "level nodes=1000"),
    (Go(p1time=60000, p2time=1, movestogo=40), "level moves=40 time=60.000"),
    (Go(infinite=True), "level infinite"),
])
async def test_hub_level_forms(autojump_clock: Any, go: Go, level: str) -> None:
    bot, channel = connect(HubConnection, table({**HUB, "go": ["done move=32-28"]}))
    await bot.start_search(turn("draughts", [], go))
    assert channel.sent[-2] == level


async def test_hub_black_to_move_uses_black_clock_and_the_king_moves_since(
        autojump_clock: Any) -> None:
    start = "B:WK47,40:BK4,11"
    bot, channel = connect(HubConnection, table({**HUB, "go": ["done move=4-10"]}))
    t = turn("draughts", ["4-9", "47-15", "9-4", "15-47"], Go(p1time=1, p2time=2500),
             start=start)
    await bot.request_move(t, 3.0)
    base = hub_position(get_game("draughts").from_position(start))
    assert channel.sent[-3] == f'pos pos={base} moves="4-9 47-15 9-4 15-47"'

    assert channel.sent[-2] == "level time=2.500"
    # a man move is irreversible: the position after it is sent, without moves
    t = turn("draughts", ["4-9", "40-35"], Go(movetime=10), start=start)
    await bot.start_search(t)
    assert channel.sent[-3] == f"pos pos={hub_position(t.board)}"
    assert position_to_fen(hub_position(t.board)) == t.board.position()


AMBIGUOUS = "W:WK14,K15:B35,29,50,41,23,37,13"


@pytest.mark.parametrize(("position", "done", "move"), [
    ("W:W28:B23", "28x19x23", "28x19"),
    ("W:W28:B23", "28x19", "28x19"),
    (AMBIGUOUS, "15x4x13x29x37", "15x42x31x4"),
    (AMBIGUOUS, "15x4x37x29x13", "15x42x31x4"),
    (AMBIGUOUS, "15x9x41x29x13", "15x47x36x9"),
])
async def test_hub_captures_are_read_as_the_legal_move(autojump_clock: Any, position: str,
                                                       done: str, move: str) -> None:
    bot, _ = connect(HubConnection, table({**HUB, "go": [f"done move={done}"]}))
    reply = await bot.request_move(turn("draughts", [], start=position), 1.0)
    assert reply.move == move


@pytest.mark.parametrize(("position", "done", "words"), [
    (AMBIGUOUS, "15x4", "ambiguous move '15x4': it fits 15x4x13x29x37, 15x4x13x29x41"),
    (AMBIGUOUS, "15x4x13x29", "illegal move '15x4x13x29'"),
    ("W:W28:B23", "32-28", "illegal move '32-28'"),
    ("W:W28:B23", "28-22", "illegal move '28-22'"),
    ("W:W28:B23", "e4", "'e4' is not a Hub move"),
])
async def test_hub_bad_moves_are_illegal_moves(autojump_clock: Any, position: str, done: str,
                                               words: str) -> None:
    bot, _ = connect(HubConnection, table({**HUB, "go": [f"done move={done}"]}))
    with pytest.raises(BotIllegalMove, match=words):
        await bot.request_move(turn("draughts", [], start=position), 1.0)


async def test_hub_error_and_malformed_lines(autojump_clock: Any) -> None:
    bot, _ = connect(HubConnection, table({**HUB, "go": ['error message="bad position"']}))
    with pytest.raises(BotProtocolError, match="reported an error: 'bad position'"):
        await bot.request_move(turn("draughts"), 1.0)
    bot, _ = connect(HubConnection, table({**HUB, "go": ['info score="0.1', "gibberish=",
                                                         "info score=abc", "done move=32-28"]}))
    reply = await bot.request_move(turn("draughts"), 1.0)  # noise is skipped, as Hub asks
    assert reply.move == "32-28" and reply.info is None


async def test_hub_done_after_stop_is_drained_before_the_next_game(autojump_clock: Any) -> None:
    bot, channel = connect(HubConnection, table({
        **HUB, "go": [Later(2.0, "done move=32-28")]}))
    with pytest.raises(BotTimedOut, match="no done within 500 ms"):
        await bot.request_move(turn("draughts"), 0.5)
    assert channel.sent[-1] == "stop"
    await bot.new_game("draughts", {})
    assert "< done move=32-28" in channel.transcript and bot.owed_bestmoves == 0


async def test_hub_infinite_then_stop(autojump_clock: Any) -> None:
    bot, channel = connect(HubConnection, table({**HUB, "go": [], "stop": ["done move=31-26"]}))
    t = turn("draughts", [], Go(infinite=True))
    await bot.start_search(t)
    with trio.move_on_after(0.2):
        await bot.read_move(t, trio.current_time(), float("inf"))
    reply = await bot.stop_and_read(1.0, t)
    assert channel.sent[-1] == "stop" and reply.move == "31-26"


async def test_hub_quit(autojump_clock: Any) -> None:
    bot, channel = connect(HubConnection, table({**HUB, "quit": [Exit(0)]}))
    assert await bot.quit(1.0) == 0
    assert channel.sent == ["quit"]


# ----- the match loop, in-process -----------------------------------------------------------


def _native_first_legal() -> Any:
    legal: list[str] = []

    def script(line: str) -> list[Any]:
        nonlocal legal
        word = line.split(" ", 1)[0]
        if word == "legal":
            legal = line.split()[1:]
        if word == "go":
            return ["info depth 1 score cp 3", f"bestmove {legal[-1]}"]
        return {"isready": ["readyok"]}.get(word, [])

    return script


async def test_a_whole_game_hub_against_native_without_processes(autojump_clock: Any) -> None:
    from scripted import HubEngine, play_on_scripted

    from referee.adjudication import Adjudication

    hub_bot, hub_channel = connect(HubConnection, HubEngine())
    native, _ = connect(NativeConnection, _native_first_legal())
    record = await play_on_scripted("draughts", (hub_bot, native), tc="5+0.05",
                                    adjudication=Adjudication(max_plies=80))
    board = get_game("draughts").new(None, [m.move for m in record.moves])
    assert board.position() == record.final_position
    hub_moves = [m for m in record.moves if m.side == 0]
    assert any("x" in m.move for m in hub_moves)  # captures came back in PDN
    assert all(m.info is not None and m.info.depth == 2 for m in hub_moves)
    assert sum(1 for line in hub_channel.sent if line == "go think") == len(hub_moves)
    assert not any(line.startswith("gameover") for line in hub_channel.sent)


def test_the_base_connection_imports_no_dialect_nor_the_process_layer() -> None:
    """The caller picks the class (``referee.dialects.start_connection``): the base class
    imports none of its subclasses, nor what starts a process, not even inside a function."""
    tree = ast.parse(Path(referee.connection.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    assert imported  # the walk found the module's imports
    assert not {m for m in imported if m and m.startswith(
        ("referee.dialects", "referee.process.botprocess", "referee.process.spawn"))}
