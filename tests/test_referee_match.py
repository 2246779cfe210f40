"""play_game: whole games between real child processes (every game, Fairy-Stockfish, what a
process leaves behind), and the referee's rules (every loss reason, the opening, per-bot clocks,
Donkan's parties) between scripted bots on trio's autojump clock (tests/scripted.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio
from fake_channel import Later
from scripted import (
    NativeBot,
    ScriptedBot,
    ScriptedBots,
    misbehaving,
    native,
    play_scripted,
)
from scripted import random_bot as scripted_random
from system_packages import FAIRY_STOCKFISH
from trio.testing import MockClock

from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.games import GAME_NAMES, GameError, get_game
from referee.match import FreshBots, play_game
from referee.order import GameOrder
from referee.process.spawn import Launched
from referee.record import GameRecord, MoveRecord, Termination, decode_record, encode_record
from referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
MISBEHAVE = str(Path(__file__).resolve().parent / "bots" / "misbehave.py")
FSF = FAIRY_STOCKFISH
FAST = TimeControl.parse("2+0.05")
ROOMY = TimeControl.parse("60+1")
"""Processes' clock: a random bot's answers take no time, but on a loaded machine a move can
take a second, and a long game many of them."""


# Unsandboxed: these tests are about the referee's rules for failures, with tight handshake
# timeouts; a bubblewrap start adds 0.1-0.2 s on a loaded machine, and the grandchild pids a
# bot reports must be host pids. Sandboxed games: test_hostile_containment.py, test_runner.py.
def random_bot(name: str, seed: int) -> BotSpec:
    return BotSpec(name=name, cmd=[sys.executable, RANDOM_BOT, "--seed", str(seed)],
                   sandbox="none")


def misbehaving_process(mode: str, after: int = 2) -> BotSpec:
    return BotSpec(name=f"bad-{mode}", cmd=[sys.executable, MISBEHAVE, mode, str(after)],
                   sandbox="none")




def check_consistent(record: GameRecord) -> None:
    """The record replays: every move legal in turn, and the final position matches."""
    board = get_game(record.game).new(record.start_position, [m.move for m in record.moves],
                                      **record.options)
    assert board.position() == record.final_position
    assert record.plies == len(record.moves)
    assert decode_record(encode_record(record)) == record
    sides = [m.side for m in record.moves]
    assert set(sides) <= {0, 1}


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.slow
async def test_random_bots_play_every_game_to_its_end(game: str, tmp_path: Path) -> None:
    seen: list[MoveRecord] = []
    with trio.fail_after(60):
        record = await play_game(GameOrder.checked(game, random_bot("alice", 1),
                                                   random_bot("bob", 2), tc=ROOMY, id="g1",
                                                   round=3),
                                 FreshBots(tmp_path), on_move=seen.append)
    assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION), record.reason
    assert record.result in ("1-0", "0-1", "1/2-1/2")
    assert (record.p1, record.p2, record.id, record.round) == ("alice", "bob", "g1", 3)
    assert seen == record.moves
    assert record.started_at <= record.ended_at
    assert all(m.clock_ms is not None and m.elapsed_ms >= 0 for m in record.moves)
    assert record.moves[0].info is None  # the random bot sends no info
    check_consistent(record)
    final = get_game(game).from_position(record.final_position, **record.options)
    if record.termination is Termination.NORMAL:
        outcome = final.outcome()
        assert outcome is not None and outcome.result == record.result
    assert not list(tmp_path.rglob("*.stderr.log"))  # bots silent on stderr leave no log
    if game == "donkan":
        assert record.parties and len(record.score) == 2


async def test_opening_moves_are_book_and_max_plies_adjudicates(autojump_clock: MockClock) -> None:
    game = "dobutsu"
    opening = ["b1a2", "b4c3"]
    with trio.fail_after(30):
        record = await play_scripted(game, scripted_random("a", 3), scripted_random("b", 4),
                                     tc=FAST, opening=opening,
                                     adjudication=Adjudication(max_plies=4, draw_rules=False))
    assert [m.move for m in record.moves][:2] == opening
    assert [m.book for m in record.moves] == [True, True, False, False]
    assert [m.elapsed_ms for m in record.moves[:2]] == [0.0, 0.0]
    assert record.opening == opening
    assert record.termination is Termination.ADJUDICATION, record.reason
    assert record.result == "1/2-1/2" and record.plies == 4
    assert "max_plies = 4" in record.reason


async def test_bad_opening_is_an_error_before_any_process_starts() -> None:
    with pytest.raises(GameError, match="opening move 1 'z9z9'"):
        await play_game(GameOrder.checked("dobutsu", random_bot("a", 1), random_bot("b", 2),
                                          opening=["z9z9"]))


@pytest.mark.needs("fairy-stockfish")
@pytest.mark.slow
async def test_fairy_stockfish_beats_random_at_dobutsu(tmp_path: Path) -> None:
    """Depth-limited Fairy-Stockfish is deterministic, and so is the seeded random bot: these
    four games always end with FSF capturing the random bot's lion."""
    fsf = BotSpec(name="fsf", cmd=[FSF], protocol="uci")
    tc = TimeControl.parse("inf depth=6")
    records = []
    with trio.fail_after(60):
        for seed in (5, 6):
            for p1, p2 in ((fsf, random_bot("rnd", seed)), (random_bot("rnd", seed), fsf)):
                records.append(await play_game(GameOrder.checked("dobutsu", p1, p2, tc=tc),
                                               FreshBots(tmp_path)))
    for record in records:
        assert record.termination is Termination.NORMAL, record.reason
        check_consistent(record)
        fsf_side = 0 if record.p1 == "fsf" else 1
        assert record.winner == fsf_side, record.reason
        assert "lion" in record.reason
        fsf_moves = [m for m in record.moves if m.side == fsf_side]
        assert all(m.info is not None and m.info.depth == 6 for m in fsf_moves)
    assert not list(tmp_path.rglob("*.stderr.log"))  # FSF is silent on stderr: no log files


FAILURES = [
    ("hang", Termination.TIME_FORFEIT, "lost on time"),
    ("crash", Termination.CRASH, "exit status 3"),
    ("illegal", Termination.ILLEGAL_MOVE, "'zz99'"),
    ("none", Termination.ILLEGAL_MOVE, "bestmove (none)"),
    ("garbage", Termination.PROTOCOL_ERROR, "hello there"),
    ("badutf8", Termination.PROTOCOL_ERROR, "not UTF-8"),
    ("nohandshake", Termination.STALL, "did not answer ugi"),
    ("noready", Termination.STALL, "did not answer isready"),
]


def check_failure(record: GameRecord, mode: str, termination: Termination, words: str,
                  bad_side: int) -> None:
    assert record.termination is termination, record.reason
    assert record.winner == 1 - bad_side
    assert record.result == ("0-1" if bad_side == 0 else "1-0")
    assert words in record.reason
    assert f"p{bad_side + 1} (bad-{mode})" in record.reason
    if mode in ("hang", "crash", "illegal", "garbage"):
        assert sum(1 for m in record.moves if m.side == bad_side) == 2  # behaved twice
        check_consistent(record)


@pytest.mark.parametrize(("mode", "termination", "words"), FAILURES)
@pytest.mark.parametrize("bad_side", [0, 1])
async def test_each_failure_loses_with_its_reason(
    mode: str, termination: Termination, words: str, bad_side: int,
    autojump_clock: MockClock,
) -> None:
    """The referee's rule for each failure, scripted: the stalls wait out the real 10 s
    handshake timeout, the hang its 0.3 s clock, on the autojump clock."""
    game = "jungle"
    bad, good = misbehaving(mode), scripted_random("good", 7)
    p1, p2 = (bad, good) if bad_side == 0 else (good, bad)
    with trio.fail_after(30):
        record = await play_scripted(game, p1, p2, tc="st=0.3")
    check_failure(record, mode, termination, words, bad_side)


@pytest.mark.parametrize(
    ("mode", "termination", "words"),
    [
        ("crash", Termination.CRASH, "exit status 3"),
        ("longline", Termination.PROTOCOL_ERROR, "longer than"),
    ],
)
@pytest.mark.parametrize("bad_side", [0, 1])
@pytest.mark.slow
async def test_each_failure_of_a_real_process_loses_with_its_reason(
    mode: str, termination: Termination, words: str, bad_side: int,
) -> None:
    """The failures whose words come from a real process: its exit status, and the line cap
    of the reader of its pipe (tests/bots/misbehave.py)."""
    game = "jungle"
    bad, good = misbehaving_process(mode), random_bot("good", 7)
    p1, p2 = (bad, good) if bad_side == 0 else (good, bad)
    with trio.fail_after(60):
        record = await play_game(GameOrder.checked(game, p1, p2, tc=TimeControl.parse("60+1")))
    check_failure(record, mode, termination, words, bad_side)


async def test_slow_handshake_stalls_and_the_bot_is_killed(autojump_clock: MockClock) -> None:
    with trio.fail_after(60):  # the bot answers after 30 s; the handshake timeout is 10 s
        record = await play_scripted("dobutsu", scripted_random("good", 1),
                                     misbehaving("slowhandshake"))
    assert record.termination is Termination.STALL
    assert record.result == "1-0" and record.plies == 0


async def test_the_first_move_does_not_wait_for_the_other_bots_reset(
        autojump_clock: MockClock) -> None:
    """The side that moves second takes 1 s over ``uginewgame``: the first side's ``go`` goes
    out well before that reset ends, and the slow side's own clock (0.2 s a move) starts only
    once it has answered ``isready``: it does not lose on time."""
    first = native("first")
    second = ScriptedBot("second", lambda: NativeBot(name="second", reset_seconds=1.0))
    bots = ScriptedBots(first, second)
    with trio.fail_after(60):
        record = await play_scripted("dobutsu", first, second, tc="st=0.2", game_id="g1",
                                     bots=bots, adjudication=Adjudication(max_plies=4))
    assert record.termination == Termination.ADJUDICATION, record.reason
    assert all(m.elapsed_ms < 200 for m in record.moves)

    def when(log: list[tuple[float, str]], text: str, after: str = "uginewgame") -> float:
        """When the bot first read (or wrote, ``< ...``) ``text`` after it read ``after``."""
        lines = [(t, said.removeprefix("> ")) for t, said in log]
        start = next(i for i, (_, said) in enumerate(lines) if said.startswith(after))
        return next(t for t, said in lines[start:] if said.startswith(text))

    first_log, second_log = bots.channels["first"][0].log, bots.channels["second"][0].log
    assert when(first_log, "go") < when(second_log, "< readyok") - 0.5


async def test_missing_program_is_a_crash_naming_the_bot() -> None:
    ghost = BotSpec(name="ghost", cmd=["/nonexistent/bot"])
    with trio.fail_after(20):
        record = await play_game(GameOrder.checked("dobutsu", ghost, random_bot("good", 1)))
    assert record.termination is Termination.CRASH
    assert record.result == "0-1"
    assert "cannot start bot 'ghost'" in record.reason


async def test_per_bot_time_control_override(autojump_clock: MockClock) -> None:
    # The override is resolved where the config is read (arena.settings.config); the referee plays
    # each side on the clock its order gives it.
    slow = native("slow", lambda legal, made: [Later(0.3, f"bestmove {legal[0]}")])
    with trio.fail_after(20):
        record = await play_scripted("dobutsu", scripted_random("quick", 1), slow,
                                     tc=(FAST, TimeControl.parse("st=0.05")))
    assert record.termination is Termination.TIME_FORFEIT
    assert record.winner == 0
    assert record.time_control == "p1: 2+0.05 | p2: st=0.05"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); read its state
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


async def test_cancelled_game_leaves_no_process_behind(tmp_path: Path) -> None:
    """Cancel mid-game: both process groups end (grandchild included) and Cancelled passes."""
    spawner = BotSpec(name="spawner", cmd=[sys.executable, MISBEHAVE, "spawn+hang", "1"],
                      sandbox="none")
    stubborn = BotSpec(name="stubborn", cmd=[sys.executable, MISBEHAVE, "stubborn", "1000"],
                       sandbox="none")
    log_file = tmp_path / "spawner.stderr.log"

    def grandchild_started() -> bool:
        return log_file.exists() and "grandchild " in log_file.read_text()

    async def cancel_once_started(scope: trio.CancelScope) -> None:
        while not grandchild_started():  # the game is on, however loaded the machine
            await trio.sleep(0.05)
        await trio.sleep(0.2)
        scope.cancel()

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            with trio.CancelScope() as scope:
                nursery.start_soon(cancel_once_started, scope)
                await play_game(GameOrder.checked("dobutsu", spawner, stubborn,
                                                  tc=TimeControl.parse("st=10")),
                                FreshBots(tmp_path))
            assert scope.cancelled_caught
    log = log_file.read_text()
    grandchild = int(log.split("grandchild ")[1].split()[0])
    with trio.fail_after(15):
        while _alive(grandchild):
            await trio.sleep(0.05)
    assert not _alive(grandchild)


async def test_stubborn_bot_is_killed_after_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that ignores quit and SIGTERM still ends (SIGKILL to its group) after the game."""
    from referee.process.botprocess import BotProcess

    pids: list[int] = []
    original = BotProcess.start

    async def spy(spec: BotSpec, stderr_path: Path | None = None,
                  launched: Launched | None = None) -> BotProcess:
        process = await original(spec, stderr_path, launched)
        pids.append(process.pid)
        return process

    monkeypatch.setattr(BotProcess, "start", spy)
    stubborn = BotSpec(name="stubborn", cmd=[sys.executable, MISBEHAVE, "stubborn", "1000"])
    with trio.fail_after(20):
        record = await play_game(GameOrder.checked("jungle", stubborn, random_bot("r", 2),
                                                   adjudication=Adjudication(max_plies=2),
                                                   tc=ROOMY))
    assert record.termination is Termination.ADJUDICATION
    assert len(pids) == 2 and not any(_alive(pid) for pid in pids)


async def test_donkan_round_with_target_option_records_parties(autojump_clock: MockClock) -> None:
    with trio.fail_after(30):
        record = await play_scripted("donkan", scripted_random("a", 11),
                                     scripted_random("b", 12), tc=FAST,
                                     game_options={"target": "2"})
    assert record.options == {"target": "2", "draw_rules": "true"}
    assert record.termination is Termination.NORMAL, record.reason
    assert max(record.score) >= 2 and record.winner == record.score.index(max(record.score))
    assert sum(p.points for p in record.parties if p.winner == record.winner) == max(record.score)
    assert sum(p.plies for p in record.parties) <= record.plies
    check_consistent(record)


async def test_donkan_partie_ended_by_the_opening_is_announced(autojump_clock: MockClock) -> None:
    """Issue 39: a king taken by a book move ended a partie that no ``partie`` line announced
    (the referee counted parties only after the opening). Both bots hear of it, with the
    round's score after it, before the first search; the record keeps it."""
    bots = ScriptedBots(native("a"), native("b"))
    with trio.fail_after(30):
        record = await play_scripted("donkan", bots.bots["a"], bots.bots["b"], tc=FAST,
                                     bots=bots, opening=["c1c2", "d7c7", "c2c7"],
                                     adjudication=Adjudication(max_plies=5))
    assert record.parties[0].reason == "king" and record.parties[0].winner == 0
    assert record.moves[2].book and not record.moves[3].book
    for name in ("a", "b"):
        sent = bots.channels[name][0].sent
        assert "partie p1 1 1 0" in sent, sent
        assert sent.index("partie p1 1 1 0") < next(
            i for i, line in enumerate(sent) if line.startswith("go"))
        assert sent.count("partie p1 1 1 0") == 1


async def test_donkan_parties_inside_the_game_are_announced_once(
        autojump_clock: MockClock) -> None:
    """The same partie ended by a bot's own move: one line, after that move, not before."""
    def takes_the_king(legal: Sequence[str], made: int) -> list[str]:
        return [f"bestmove {'c2c7' if 'c2c7' in legal else legal[0]}"]

    bots = ScriptedBots(ScriptedBot("a", lambda: NativeBot(takes_the_king, name="a")),
                        native("b"))
    with trio.fail_after(30):
        record = await play_scripted("donkan", bots.bots["a"], bots.bots["b"], tc=FAST,
                                     bots=bots, opening=["c1c2", "d7c7"],
                                     adjudication=Adjudication(max_plies=4))
    assert [p.reason for p in record.parties] == ["king"] and not record.moves[2].book
    for name in ("a", "b"):
        sent = bots.channels[name][0].sent
        assert [line for line in sent if line.startswith("partie")] == ["partie p1 1 1 0"]
    sent = bots.channels["a"][0].sent
    assert sent.index("partie p1 1 1 0") > next(i for i, x in enumerate(sent) if x.startswith("go"))
