"""Hostile bots against the referee: each loses (or not) with the right result, termination and
reason, and leaves no process behind: not its group, not a child, not a setsid escapee.

The bots are the scripts in ``tests/hostile/``; each writes ``pid P pgid G`` (and ``child C``
for what it spawns) to its stderr log, and carries a unique tag in its command line (and its
children's), which the leftover checks look for in /proc.
"""

from __future__ import annotations

import os
import resource
import sys
import time
import uuid
from pathlib import Path

import pytest
import trio

import referee.match
from referee.adjudication import Adjudication
from referee.botspec import BotSpec, Limits
from referee.gamefiles import stderr_path
from referee.match import FreshBots, open_bot, play_game, play_on
from referee.order import GameOrder
from referee.process import cgroup, proctree
from referee.process.botprocess import BotProcess
from referee.process.proctree import alive
from referee.record import GameRecord, Termination
from referee.timecontrol import TimeControl

pytestmark = pytest.mark.slow  # each hostile bot plays a real game

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "hostile"
FIRST_BOT = HERE / "bots" / "runner_first_bot.py"
GAME = "jungle"  # first-legal games last 16 plies (repetition): room to misbehave at ply 4
CAP = Adjudication(max_plies=12)


def hostile(script: str, *extra: str, **fields: object) -> tuple[BotSpec, str]:
    """The spec of a hostile bot and its unique tag. Unsandboxed unless ``sandbox`` is given:
    these tests prove the referee's own cleanup, the hardest case (the bot's ids in its log
    are host ids); tests/test_hostile_containment.py runs bots in the default sandbox."""
    fields.setdefault("sandbox", "none")
    tag = f"hostile-{uuid.uuid4().hex[:12]}"
    program = HOSTILE / script
    cmd = [sys.executable, str(program)] if script.endswith(".py") else [str(program)]
    return BotSpec(name=program.stem, cmd=[*cmd, tag, *extra], **fields), tag  # type: ignore[arg-type]


INNOCENT_TC = "60+0"
"""The first-legal bot's own clock: never its loss, however loaded the machine."""


def first_bot() -> BotSpec:
    return BotSpec(name="first", cmd=[sys.executable, str(FIRST_BOT)])


async def play(tmp: Path, spec: BotSpec, *, tc: str = "30+0", side: int = 0) -> GameRecord:
    """One game of ``spec`` against the first-legal bot, hostile side first by default. The
    hostile bot's clock is ``tc`` (generous: only the tests of time losses wait it out), the
    first-legal bot's :data:`INNOCENT_TC`."""
    p1, p2 = (spec, first_bot()) if side == 0 else (first_bot(), spec)
    hostile, innocent = TimeControl.parse(tc), TimeControl.parse(INNOCENT_TC)
    clocks = (hostile, innocent) if side == 0 else (innocent, hostile)
    with trio.fail_after(60):
        return await play_game(GameOrder.checked(GAME, p1, p2, tc=clocks, adjudication=CAP),
                               FreshBots(tmp))


def log_of(tmp: Path, spec: BotSpec) -> str:
    path = stderr_path(tmp, spec.name)
    assert path is not None
    return path.read_text(errors="replace")


def ids_from_log(text: str) -> tuple[int, int, list[int]]:
    """(pid, pgid, child pids) the bot wrote to its stderr."""
    pid = pgid = 0
    children: list[int] = []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["pid"] and len(words) == 4:
            pid, pgid = int(words[1]), int(words[3])
        elif words[:1] == ["child"]:
            children.append(int(words[1]))
    assert pid and pgid, f"the bot did not report its ids: {text!r}"
    return pid, pgid, children


def tagged(tag: str) -> list[int]:
    """Live processes whose command line carries ``tag``."""
    return sorted(proctree.tagged(tag))


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    # Killed members not yet reaped by init still answer kill(0); they must all be zombies.
    return not any(alive(int(e.name)) for e in Path("/proc").iterdir() if e.name.isdigit()
                   and _pgid(int(e.name)) == pgid)


def _pgid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return None


def assert_nothing_left(tmp: Path, spec: BotSpec, tag: str, *, wait: float = 10.0) -> None:
    """No process of the bot's group, none of its children, nothing carrying its tag.

    Killed children of a dead bot are reparented to init, which here reaps its zombies only
    every couple of seconds; until then ``killpg(pgid, 0)`` still finds them, so the strict
    check waits for the reaping (the live check, which ignores zombies, must pass within the
    moment a SIGKILLed process takes to die)."""
    pid, pgid, children = ids_from_log(log_of(tmp, spec))
    deadline = time.monotonic() + wait
    settle = time.monotonic() + 5.0  # SIGKILL is asynchronous: dying takes a moment
    while True:
        left = {"group": not group_gone(pgid), "bot": alive(pid),
                "children": [c for c in children if alive(c)], "tagged": tagged(tag)}
        if not any(left.values()):
            break
        if time.monotonic() > settle:
            for victim in [*left["children"], *left["tagged"]]:  # type: ignore[misc]
                os.kill(victim, 9)  # do not leak into the next test
            raise AssertionError(f"{spec.name} left live processes behind: {left}")
        time.sleep(0.02)
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        assert time.monotonic() < deadline, f"group {pgid} of {spec.name} still exists"
        time.sleep(0.05)


def assert_lost(record: GameRecord, termination: Termination, *words: str,
                side: int = 0) -> None:
    assert record.termination == termination, record.reason
    assert record.winner == 1 - side
    assert record.result == ("0-1" if side == 0 else "1-0")
    assert record.reason.startswith(f"p{side + 1} ("), record.reason
    for word in words:
        assert word in record.reason, record.reason


# ----- start-up and handshake ----------------------------------------------------------------
async def test_crash_at_start(tmp_path: Path) -> None:
    spec, tag = hostile("crash_at_start.py")
    record = await play(tmp_path, spec)
    assert_lost(record, Termination.CRASH, "exit status 3")
    assert record.plies == 0
    assert_nothing_left(tmp_path, spec, tag)


async def test_crash_at_start_shell_script(tmp_path: Path) -> None:
    spec, tag = hostile("crash_at_start.sh")
    record = await play(tmp_path, spec, side=1)
    assert_lost(record, Termination.CRASH, "exit status 5", side=1)
    assert_nothing_left(tmp_path, spec, tag)


async def test_never_answers_ugi_stalls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Both bots get it: long enough for the first-legal bot's start on a loaded machine.
    monkeypatch.setattr(referee.match, "HANDSHAKE_TIMEOUT_S", 3.0)
    spec, tag = hostile("never_ugiok.py")
    record = await play(tmp_path, spec)
    assert_lost(record, Termination.STALL, "did not answer ugi within 3 s")
    assert_nothing_left(tmp_path, spec, tag)


async def test_ugiok_twice_is_harmless_noise(tmp_path: Path) -> None:
    spec, tag = hostile("ugiok_twice.py")
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    assert record.plies == 12 and record.result == "1/2-1/2"
    assert_nothing_left(tmp_path, spec, tag)


# ----- during the game -----------------------------------------------------------------------
async def test_crash_mid_game(tmp_path: Path) -> None:
    spec, tag = hostile("crash_midgame.py")
    record = await play(tmp_path, spec)
    assert_lost(record, Termination.CRASH, "SIGABRT")
    assert record.plies == 4  # two moves each, then p1 died on its third
    assert "aborting on purpose" in log_of(tmp_path, spec)
    assert_nothing_left(tmp_path, spec, tag)


async def test_exit_zero_without_a_word(tmp_path: Path) -> None:
    spec, tag = hostile("exit_silently.py")
    record = await play(tmp_path, spec, side=1)
    assert_lost(record, Termination.CRASH, "exit status 0", side=1)
    assert_nothing_left(tmp_path, spec, tag)


async def test_hang_on_go_loses_on_time(tmp_path: Path) -> None:
    spec, tag = hostile("hang_on_go.py")
    record = await play(tmp_path, spec, tc="2+0")  # its two moves fit, however loaded
    assert_lost(record, Termination.TIME_FORFEIT, "lost on time")
    assert record.plies == 4
    assert_nothing_left(tmp_path, spec, tag)


async def test_info_forever_loses_on_time(tmp_path: Path) -> None:
    spec, tag = hostile("info_forever.py", "0")  # from its first move
    record = await play(tmp_path, spec, tc="1+0")
    assert_lost(record, Termination.TIME_FORFEIT, "lost on time")
    assert_nothing_left(tmp_path, spec, tag)


async def test_100_mb_without_a_newline_is_a_protocol_error_at_once(tmp_path: Path) -> None:
    spec, tag = hostile("flood_no_newline.py")
    record = await play(tmp_path, spec, tc="300+0")
    assert_lost(record, Termination.PROTOCOL_ERROR, f"longer than {1 << 20} bytes")
    # Reported when the line overflowed the cap, not at the end of the line or the deadline.
    assert record.ended_at - record.started_at < 100
    assert_nothing_left(tmp_path, spec, tag)


async def test_10_mb_line_is_a_protocol_error(tmp_path: Path) -> None:
    spec, tag = hostile("ten_mb_line.py")
    record = await play(tmp_path, spec)
    assert_lost(record, Termination.PROTOCOL_ERROR, "line longer than")
    assert_nothing_left(tmp_path, spec, tag)


async def test_10_mb_line_where_noise_is_tolerated_is_dropped_and_reading_goes_on(
        tmp_path: Path) -> None:
    """Where lines are not strict (the UCI dialect, the handshake) the overlong line is
    dropped and counted, the move after it still read, and nothing big is kept."""
    spec, tag = hostile("ten_mb_line.py", "0")
    with trio.fail_after(30):
        connection = await open_bot(spec, log_dir=tmp_path)
        try:
            process = connection.channel
            assert isinstance(process, BotProcess)
            await process.send("legal a1a2\ngo")
            reply = await connection.read_reply(strict=False)
            assert getattr(reply, "move", None) == "a1a2"
            assert process.dropped_lines == 1 and process.dropped_bytes >= 10 << 20
            assert max(len(line) for line in process.transcript) < 400
        finally:
            await connection.aclose()
    # Counted and logged, not stored: the bot's stderr log says what was dropped.
    assert f"[arena] dropped a stdout line of {(10 << 20) + len('info string ')} bytes" \
        in log_of(tmp_path, spec)
    assert_nothing_left(tmp_path, spec, tag)


async def test_invalid_utf8_is_a_protocol_error(tmp_path: Path) -> None:
    spec, tag = hostile("bad_utf8.py")
    record = await play(tmp_path, spec)
    assert_lost(record, Termination.PROTOCOL_ERROR, "not UTF-8")
    assert_nothing_left(tmp_path, spec, tag)


async def test_illegal_move(tmp_path: Path) -> None:
    spec, tag = hostile("illegal_move.py")
    record = await play(tmp_path, spec)
    assert_lost(record, Termination.ILLEGAL_MOVE, "illegal move 'a2a5'")
    assert record.plies == 4 and "a2a5" not in [m.move for m in record.moves]
    assert_nothing_left(tmp_path, spec, tag)


async def test_move_in_another_games_notation(tmp_path: Path) -> None:
    spec, tag = hostile("wrong_game_move.py")
    record = await play(tmp_path, spec, side=1)
    assert_lost(record, Termination.ILLEGAL_MOVE, "illegal move '32x23x14'", side=1)
    assert_nothing_left(tmp_path, spec, tag)


async def test_bestmove_none_with_legal_moves(tmp_path: Path) -> None:
    spec, tag = hostile("bestmove_none.py")
    record = await play(tmp_path, spec)
    assert_lost(record, Termination.ILLEGAL_MOVE, "'bestmove (none)'")
    assert_nothing_left(tmp_path, spec, tag)


async def test_late_bestmove_after_stop_does_not_leak_into_the_next_game(
        tmp_path: Path) -> None:
    """Game 1: the bot runs out of time on its first move, is sent ``stop``, answers ``zz99``
    0.5 s later while answering ``isready`` at once. Game 2 on the same processes must not
    take ``zz99``."""
    spec, tag = hostile("late_bestmove.py", "0")
    innocent = TimeControl.parse(INNOCENT_TC)
    racing = GameOrder.checked(GAME, spec, first_bot(), tc=(TimeControl.parse("1+0"), innocent),
                               adjudication=CAP)
    calm = GameOrder.checked(GAME, spec, first_bot(), tc=innocent, adjudication=CAP)
    with trio.fail_after(60):
        bad = await open_bot(spec, log_dir=tmp_path)
        good = await open_bot(first_bot(), log_dir=tmp_path)
        try:
            first = await play_on(racing, (bad, good))
            assert_lost(first, Termination.TIME_FORFEIT, "lost on time")
            assert bad.owed_bestmoves == 1
            assert "> stop" in bad.channel.transcript
            second = await play_on(calm, (bad, good))
        finally:
            await bad.aclose()
            await good.aclose()
    assert bad.owed_bestmoves == 0
    assert "< bestmove zz99" in bad.channel.transcript  # read, and thrown away
    assert second.termination == Termination.ADJUDICATION, second.reason
    assert second.plies == 12 and "zz99" not in [m.move for m in second.moves]
    assert_nothing_left(tmp_path, spec, tag)


async def test_bot_that_never_answers_stop_stalls_its_next_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.connection.STOP_GRACE_S", 0.5)
    spec, tag = hostile("hang_on_go.py", "0")  # hangs on its first move
    tcs = (TimeControl.parse("1+0"), TimeControl.parse(INNOCENT_TC))
    order = GameOrder.checked(GAME, spec, first_bot(), tc=tcs, adjudication=CAP)
    with trio.fail_after(60):
        bad = await open_bot(spec, log_dir=tmp_path)
        good = await open_bot(first_bot(), log_dir=tmp_path)
        try:
            first = await play_on(order, (bad, good))
            assert_lost(first, Termination.TIME_FORFEIT)
            second = await play_on(order, (bad, good))
        finally:
            await bad.aclose()
            await good.aclose()
    assert_lost(second, Termination.STALL, "did not send the bestmove it owed")
    assert second.plies == 0
    assert_nothing_left(tmp_path, spec, tag)


# ----- shutdown ----------------------------------------------------------------------------
async def test_ignoring_quit_and_sigterm_ends_in_sigkill(tmp_path: Path) -> None:
    spec, tag = hostile("ignore_sigterm.py")
    with trio.fail_after(30):
        bad = await open_bot(spec, log_dir=tmp_path)
        good = await open_bot(first_bot(), log_dir=tmp_path)
        try:
            record = await play_on(GameOrder.checked(GAME, spec, first_bot(), adjudication=CAP),
                                   (bad, good))
        finally:
            await bad.aclose()
            await good.aclose()
    assert record.termination == Termination.ADJUDICATION
    assert bad.channel.exit_status() == -9  # neither quit nor SIGTERM: SIGKILL did it
    assert_nothing_left(tmp_path, spec, tag)


@pytest.mark.parametrize("script", ["fork_child.py", "fork_child.sh"])
async def test_child_in_the_group_dies_with_the_bot(script: str, tmp_path: Path) -> None:
    spec, tag = hostile(script)
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    _, _, children = ids_from_log(log_of(tmp_path, spec))
    assert children
    assert_nothing_left(tmp_path, spec, tag)


async def test_child_that_left_the_group_with_setsid_is_killed_too(tmp_path: Path) -> None:
    """setsid() takes a child out of the group kill; the /proc descendant list catches it."""
    spec, tag = hostile("fork_setsid.py")
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    pid, pgid, children = ids_from_log(log_of(tmp_path, spec))
    assert children and all(_pgid(c) != pgid for c in children if alive(c))
    assert_nothing_left(tmp_path, spec, tag)


@pytest.mark.needs("bubblewrap")
async def test_double_forked_daemon_dies_with_a_sandboxed_bot(tmp_path: Path) -> None:
    """Without a sandbox a daemon reparented to init escapes (documented best effort in
    referee/process/botprocess.py); in the bwrap sandbox's PID namespace it dies with the bot."""
    spec, tag = hostile("double_fork.py", sandbox="bwrap")
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    assert "daemonised" in log_of(tmp_path, spec)
    deadline = time.monotonic() + 15
    while tagged(tag):
        assert time.monotonic() < deadline, f"daemon outlived the sandbox: {tagged(tag)}"
        await trio.sleep(0.05)


# ----- resources and environment --------------------------------------------------------------
async def test_unbounded_allocation_is_stopped_by_the_memory_limit(tmp_path: Path) -> None:
    spec, tag = hostile("memory_hog.py", limits=Limits(memory_mb=300))
    record = await play(tmp_path, spec, tc="20+0")
    if cgroup.hierarchies():  # the cgroup's OOM killer ends it, and the reason says why
        assert_lost(record, Termination.CRASH, "SIGKILL", "memory limit of 300 MiB")
    else:  # RLIMIT_AS: the allocation fails inside the bot
        assert_lost(record, Termination.CRASH, "exit status 1")
        assert "MemoryError" in log_of(tmp_path, spec)
    assert_nothing_left(tmp_path, spec, tag)


async def test_cpu_spinning_is_stopped_by_the_cpu_limit(tmp_path: Path) -> None:
    spec, tag = hostile("cpu_burner.py", limits=Limits(cpu_seconds=1))
    record = await play(tmp_path, spec, tc="30+0")
    assert_lost(record, Termination.CRASH, "SIGXCPU")
    assert_nothing_left(tmp_path, spec, tag)


async def test_bot_sees_a_clean_environment_its_limits_and_a_death_signal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_HOSTILE_SECRET", "s3cret")
    spec, tag = hostile("snoop.py", "0", env={"BOT_LEVEL": "3"},
                        limits=Limits(memory_mb=700, cpu_seconds=60, processes=64))
    record = await play(tmp_path, spec)
    assert record.termination == Termination.ADJUDICATION, record.reason
    seen = record.moves[0].info
    assert seen is not None and seen.string is not None
    report = dict(item.split("=", 1) for item in seen.string.split())
    names = set(report["env"].split(","))
    assert "ARENA_HOSTILE_SECRET" not in names and "s3cret" not in seen.string
    assert "BOT_LEVEL" in names and names <= {"PATH", "HOME", "LANG", "BOT_LEVEL", "LC_CTYPE",
                                              "PWD"}
    assert report["session"] == "1"
    assert report["pdeathsig"] == "9"  # SIGKILL when the referee dies
    assert report["RLIMIT_CPU"] == "60"
    if cgroup.hierarchies():  # memory and processes are the cgroup's, summed over the tree
        assert report["RLIMIT_AS"] == str(resource.RLIM_INFINITY)
        assert report["RLIMIT_NPROC"] != "64"
    else:
        assert report["RLIMIT_AS"] == str(700 << 20)
        assert report["RLIMIT_NPROC"] == "64"
    assert report["RLIMIT_FSIZE"] == str(256 << 20)
    assert_nothing_left(tmp_path, spec, tag)
