"""The bot pool: processes stay running between games unless a fault or ``restart`` says not.

Real child processes throughout: ``tests/bots/pool_bot.py`` appends its pid to a file when it
starts, so each test counts the processes a run really started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from proc_scan import tagged
from test_runner import ROOT, arena_run, check_complete, no_leftover_bots, run_argv, write_config

import arena.bots.prestart as prestart_module
from arena.bots.pool import MARKER_PREFIX, BotPool
from arena.bots.prestart import prestart
from referee.botspec import BotSpec, Limits, Restart
from referee.match import play_game
from referee.order import GameOrder
from referee.process.boterrors import BotStartError
from referee.record import GameRecord, Termination
from referee.timecontrol import TimeControl

pytestmark = pytest.mark.slow  # tournaments with bot processes kept between games

POOL_BOT = Path(__file__).resolve().parent / "bots" / "pool_bot.py"
TC = TimeControl.parse("st=5")
"""Roomy: no bot here loses on time unless a test makes it (on a loaded machine a first-legal
answer can take a second)."""


def pool_bot(name: str, pids: Path, *args: str, restart: Restart = "auto",
             **fields: object) -> BotSpec:
    """Unsandboxed: the bot appends its (host) pid to a file of the test's."""
    fields.setdefault("sandbox", "none")
    return BotSpec(name=name, cmd=[sys.executable, str(POOL_BOT), "--pids", str(pids), *args],
                   restart=restart, **fields)  # type: ignore[arg-type]


def started(pids: Path) -> list[int]:
    lines = pids.read_text().splitlines() if pids.exists() else []
    return [int(line) for line in lines if line.isdigit()]


def quit_cleanly(pids: Path) -> bool:
    """Was every process started told to ``quit`` (an orderly end, not a kill at exit)?"""
    told = {int(line.split()[1]) for line in pids.read_text().splitlines()
            if line.startswith("quit ")}
    return set(started(pids)) <= told


async def play_series(pool: BotPool, a: BotSpec, b: BotSpec, games: int,
                      tc: TimeControl = TC) -> list[GameRecord]:
    """``games`` games one after another, colours alternating, through ``pool``; a bot with
    a ``tc`` of its own plays on it, as a config gives it its own."""
    records = []
    for index in range(games):
        p1, p2 = (a, b) if index % 2 == 0 else (b, a)
        clocks = (TimeControl.parse(p1.tc) if p1.tc else tc,
                  TimeControl.parse(p2.tc) if p2.tc else tc)
        with trio.fail_after(60):
            records.append(await play_game(GameOrder.checked("dobutsu", p1, p2, tc=clocks,
                                                             id=f"g{index + 1}"), pool))
    return records


async def test_auto_keeps_one_process_per_bot_across_games(tmp_path: Path) -> None:
    pool = BotPool(tmp_path / "logs")
    a = pool_bot("a", tmp_path / "a.pids", "--say-game", "2")
    b = pool_bot("b", tmp_path / "b.pids")
    try:
        records = await play_series(pool, a, b, 4)
        assert pool.idle("a") == pool.idle("b") == 1
    finally:
        await pool.aclose()
    assert all(r.termination != Termination.CRASH for r in records)
    assert len(started(tmp_path / "a.pids")) == len(started(tmp_path / "b.pids")) == 1
    assert pool.started == {"a": 1, "b": 1}
    # One log for the process, named after its first game; what it said in a game comes
    # after that game's marker line (games where it said nothing have none).
    log = (tmp_path / "logs" / "a" / "g1.stderr.log").read_text().splitlines()
    pid = started(tmp_path / "a.pids")[0]
    assert f"hello from {pid}" in log  # what the bot said at its start
    assert log[-2:] == [f"{MARKER_PREFIX}g2 (game 2 of process {pid})", "said in game 2"]
    assert [line.split()[2] for line in log if line.startswith(MARKER_PREFIX)] in (
        ["g2"], ["g1", "g2"])  # g1's too if the start's hello was drained after it
    assert pool.idle("a") == 0 and not tagged(str(tmp_path / "a.pids"))


async def test_a_silent_bot_has_no_log_and_a_game_that_spoke_is_found_by_its_id(
        tmp_path: Path) -> None:
    pool = BotPool(tmp_path / "logs")
    silent = pool_bot("silent", tmp_path / "s.pids", "--quiet")
    speaker = pool_bot("speaker", tmp_path / "t.pids", "--quiet", "--say-game", "3")
    try:
        records = await play_series(pool, silent, speaker, 4)
    finally:
        await pool.aclose()
    assert all(r.termination != Termination.CRASH for r in records)
    assert len(started(tmp_path / "t.pids")) == 1  # one process played all four games
    assert not (tmp_path / "logs" / "silent").exists() or \
        not list((tmp_path / "logs" / "silent").iterdir())
    logs = list((tmp_path / "logs" / "speaker").glob("*.stderr.log"))
    assert len(logs) == 1, logs
    assert logs[0].read_text().splitlines() == [
        f"{MARKER_PREFIX}g3 (game 3 of process {started(tmp_path / 't.pids')[0]})",
        "said in game 3"]


async def test_a_crash_gets_a_fresh_process_and_the_opponent_keeps_its_own(
        tmp_path: Path) -> None:
    pool = BotPool(tmp_path / "logs")
    a = pool_bot("a", tmp_path / "a.pids", "--crash-game", "2")  # each process, 2nd game
    b = pool_bot("b", tmp_path / "b.pids")
    try:
        records = await play_series(pool, a, b, 4)
    finally:
        await pool.aclose()
    assert [r.termination == Termination.CRASH for r in records] == [False, True, False, True]
    assert records[1].winner == 0 and records[3].winner == 0  # b (p1 in even games) wins
    assert len(started(tmp_path / "a.pids")) == 2  # games 1-2, then a fresh one for 3-4
    assert len(started(tmp_path / "b.pids")) == 1


async def test_an_illegal_move_loses_but_keeps_the_process(tmp_path: Path) -> None:
    pool = BotPool(tmp_path / "logs")
    a = pool_bot("a", tmp_path / "a.pids", "--illegal-game", "1")
    b = pool_bot("b", tmp_path / "b.pids")
    try:
        records = await play_series(pool, a, b, 2)
    finally:
        await pool.aclose()
    assert (records[0].termination, records[0].winner) == (Termination.ILLEGAL_MOVE, 1)
    assert records[1].termination != Termination.ILLEGAL_MOVE
    assert len(started(tmp_path / "a.pids")) == 1


@pytest.mark.parametrize(("restart", "processes"), [("auto", 2), ("never", 1)])
async def test_a_time_loss_gets_a_fresh_process_unless_restart_never(
        tmp_path: Path, restart: Restart, processes: int) -> None:
    pool = BotPool(tmp_path / "logs")
    # Its own clock, 1 s a move: its quick answers fit on a loaded machine, 2 s does not.
    a = pool_bot("a", tmp_path / "a.pids", "--slow-game", "2", "--slow-seconds", "2",
                 restart=restart, tc="st=1")
    b = pool_bot("b", tmp_path / "b.pids")
    try:
        records = await play_series(pool, a, b, 3)
    finally:
        await pool.aclose()
    assert (records[1].termination, records[1].winner) == (Termination.TIME_FORFEIT, 0)
    # The kept process sent its late bestmove before game 3; it must not answer game 3's go.
    assert records[2].termination != Termination.ILLEGAL_MOVE, records[2].reason
    assert records[2].plies > 1, records[2].reason
    assert len(started(tmp_path / "a.pids")) == processes
    assert len(started(tmp_path / "b.pids")) == 1


async def test_restart_always_and_cpu_limits_start_one_process_per_game(tmp_path: Path) -> None:
    pool = BotPool(tmp_path / "logs")
    a = pool_bot("a", tmp_path / "a.pids", restart="always")
    b = pool_bot("b", tmp_path / "b.pids", limits=Limits(cpu_seconds=60))
    try:
        await play_series(pool, a, b, 3)
        assert pool.idle("a") == pool.idle("b") == 0
    finally:
        await pool.aclose()
    assert len(started(tmp_path / "a.pids")) == 3
    assert len(started(tmp_path / "b.pids")) == 3
    # One log per game, as before the pool.
    assert sorted(p.name for p in (tmp_path / "logs" / "a").iterdir()) == [
        "g1.stderr.log", "g2.stderr.log", "g3.stderr.log"]


async def test_a_changed_spec_gets_a_fresh_process(tmp_path: Path) -> None:
    pool = BotPool()
    a = pool_bot("a", tmp_path / "a.pids")
    b = pool_bot("b", tmp_path / "b.pids")
    try:
        await play_series(pool, a, b, 1)
        await play_series(pool, pool_bot("a", tmp_path / "a.pids", options={"Hash": 1}), b, 1)
    finally:
        await pool.aclose()
    assert len(started(tmp_path / "a.pids")) == 2
    assert len(started(tmp_path / "b.pids")) == 1


async def test_an_idle_process_is_taken_without_awaiting_and_an_unfit_one_is_left(
        tmp_path: Path) -> None:
    """``take_idle`` (how a game takes its pooled bots without a nursery): the kept process
    at once, nothing for a spec it does not fit (``acquire`` replaces that one)."""
    pool = BotPool()
    a = pool_bot("a", tmp_path / "a.pids")
    b = pool_bot("b", tmp_path / "b.pids")
    try:
        await play_series(pool, a, b, 1)
        assert pool.take_idle(pool_bot("a", tmp_path / "a.pids", options={"Hash": 1}),
                              "g2") is None
        assert pool.idle("a") == 1
        with trio.CancelScope() as scope:
            scope.cancel()  # any await would raise Cancelled
            taken = pool.take_idle(a, "g2")
        assert taken is not None and taken.alive and pool.idle("a") == 0
        assert pool.take_idle(a, "g3") is None  # none left
        await pool.release(taken, 0, None)  # no record: not kept
    finally:
        await pool.aclose()
    assert len(started(tmp_path / "a.pids")) == 1


async def test_silent_pooled_bot_leaves_no_log(tmp_path: Path) -> None:
    pool = BotPool(tmp_path / "logs")
    quiet = BotSpec(name="quiet", cmd=[sys.executable, str(Path(__file__).resolve().parent.parent
                                                           / "sample_bots" / "random_bot.py")])
    b = pool_bot("b", tmp_path / "b.pids")
    try:
        await play_series(pool, quiet, b, 2)
    finally:
        await pool.aclose()
    assert not (tmp_path / "logs" / "quiet").exists() or not list(
        (tmp_path / "logs" / "quiet").iterdir())


async def test_prestarted_processes_are_taken_first_and_the_rest_are_ended(
        tmp_path: Path) -> None:
    a = pool_bot("a", tmp_path / "a.pids")
    b = pool_bot("b", tmp_path / "b.pids")
    missing = BotSpec(name="m", cmd=[str(tmp_path / "no-such-bot")], sandbox="none")
    launched = prestart([a, a, b, missing], capture_stderr=True)
    assert [spec.name for spec, _ in launched] == ["a", "a", "b"]  # best effort: m left out
    pids = {spec.name + str(i): process.pid for i, (spec, process) in enumerate(launched)}
    pool = BotPool(tmp_path / "logs", prestarted=launched)
    try:
        records = await play_series(pool, a, b, 2)
        with pytest.raises(BotStartError, match="no-such-bot"):  # reported when needed
            await pool.acquire(missing, "g3")
    finally:
        await pool.aclose()
    assert all(r.termination != Termination.CRASH for r in records)
    assert launched == []  # each one taken by the pool or ended by it
    # Both games were played by prestarted processes (one of each bot); none was started
    # on demand, and the "a" no game needed was ended with the pool (on a loaded machine
    # that can be before its interpreter got as far as writing its pid).
    assert pids["a0"] in started(tmp_path / "a.pids")
    assert set(started(tmp_path / "a.pids")) <= {pids["a0"], pids["a1"]}
    assert started(tmp_path / "b.pids") == [pids["b2"]]
    assert pool.started == {"a": 1, "b": 1}
    assert not tagged(str(tmp_path / "a.pids")) and not tagged(str(tmp_path / "b.pids"))


def test_the_launching_thread_gets_the_lock_often_until_its_launches_are_done(
        tmp_path: Path) -> None:
    """While the first bots launch in their thread, the interpreter switches threads every
    :data:`arena.bots.prestart.LAUNCH_SWITCH_S` (a launch waits for the lock a dozen times,
    the main thread importing meanwhile); once they are launched, the interval is the one
    the process had."""
    seen: list[float] = []
    real = prestart_module.prestart

    def spy(specs: Any, **kwargs: Any) -> Any:
        seen.append(sys.getswitchinterval())
        return real(specs, **kwargs)

    before = sys.getswitchinterval()
    a = pool_bot("a", tmp_path / "a.pids")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prestart_module, "prestart", spy)
        early = prestart_module.prestart_soon([a], capture_stderr=False)
        launched = early.join()
        early.discard()
    assert seen == [prestart_module.LAUNCH_SWITCH_S] < [before]
    assert len(launched) == 0 and sys.getswitchinterval() == before  # ended by discard


async def test_a_bot_with_no_game_left_exits_while_its_game_goes_on_to_the_journal(
        tmp_path: Path) -> None:
    """With :meth:`BotPool.end_in` (the runner's nursery), a process whose bot has no game
    left to start is ended in a task of that nursery: the game returns its record while the
    bot is still reading ``quit`` and exiting, and the nursery waits for the end."""
    hold = tmp_path / "hold"
    a = pool_bot("a", tmp_path / "a.pids", "--hold-quit", str(hold))
    b = pool_bot("b", tmp_path / "b.pids", "--hold-quit", str(hold))
    pool = BotPool(tmp_path / "logs", wanted=lambda name: False)
    try:
        async with trio.open_nursery() as nursery:
            pool.end_in(nursery)
            (record,) = await play_series(pool, a, b, 1)
            assert record.termination != Termination.CRASH, record.reason
            # Both were told to quit, and both wait for the hold file: the record came first.
            for pids in (tmp_path / "a.pids", tmp_path / "b.pids"):
                with trio.fail_after(60):
                    while not quit_cleanly(pids):
                        await trio.sleep(0.01)
                (pid,) = started(pids)
                os.kill(pid, 0)  # alive (or an unreaped zombie): not waited for
            assert pool.idle("a") == pool.idle("b") == 0
            hold.touch()
    finally:
        await pool.aclose()
    for pid in (started(tmp_path / "a.pids") + started(tmp_path / "b.pids")):
        with pytest.raises(ProcessLookupError):  # exited and reaped when the nursery closed
            os.kill(pid, 0)


async def test_under_think_slots_a_bot_with_no_game_left_waits_idle_until_retired(
        tmp_path: Path) -> None:
    """``keep_until_retired`` (the runner sets it under think slots): the same bots as above
    are kept idle and alive after their game, with the nursery of early ends given, and end
    only when retired."""
    a = pool_bot("a", tmp_path / "a.pids")
    b = pool_bot("b", tmp_path / "b.pids")
    pool = BotPool(tmp_path / "logs", wanted=lambda name: False)
    pool.keep_until_retired = True
    try:
        async with trio.open_nursery() as nursery:
            pool.end_in(nursery)
            (record,) = await play_series(pool, a, b, 1)
            assert record.termination != Termination.CRASH, record.reason
        assert pool.idle("a") == pool.idle("b") == 1
        pids = started(tmp_path / "a.pids") + started(tmp_path / "b.pids")
        for pid in pids:
            os.kill(pid, 0)  # alive
        assert not any(quit_cleanly(path) for path in (tmp_path / "a.pids", tmp_path / "b.pids"))
        await pool.retire("a")
        await pool.retire("b")
        assert pool.idle("a") == pool.idle("b") == 0
        assert quit_cleanly(tmp_path / "a.pids") and quit_cleanly(tmp_path / "b.pids")
    finally:
        await pool.aclose()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_a_kept_process_hears_of_its_next_game_as_soon_as_it_is_given_back(
        tmp_path: Path) -> None:
    """It resets while the referee journals the last game; the next game then only reads
    the readiness answer, or announces itself again when it is another game."""
    log = tmp_path / "a.log"
    pool = BotPool(tmp_path / "logs")
    a = pool_bot("a", tmp_path / "a.pids", "--log", str(log))
    b = pool_bot("b", tmp_path / "b.pids")

    def announced() -> list[str]:
        return [line.split()[0] + (" " + line.split()[1] if line.startswith("game ") else "")
                for line in log.read_text().splitlines()
                if line.startswith(("game ", "uginewgame", "isready"))]

    async def read_by_the_bot(count: int) -> list[str]:
        """The lines once the bot has read ``count`` of them (it logs what it reads)."""
        while len(announced()) < count:
            await trio.sleep(0.01)
        return announced()

    try:
        with trio.fail_after(60):
            first = await play_game(GameOrder.checked("dobutsu", a, b, tc=TC, id="g1"), pool)
            # Given back: told of a next dobutsu game already, before anyone asked for one.
            assert (await read_by_the_bot(7))[-6:] == ["game dobutsu", "uginewgame",
                                                       "isready"] * 2
            second = await play_game(GameOrder.checked("dobutsu", b, a, tc=TC, id="g2"), pool)
            await read_by_the_bot(10)  # g2 used the announcement and made none of its own:
            await trio.sleep(0.1)
            assert len(announced()) == 10  # only the one ahead of the next game came since
            third = await play_game(GameOrder.checked("jungle", a, b, tc=TC, id="g3"), pool)
    finally:
        await pool.aclose()
    assert all(r.termination != Termination.CRASH for r in (first, second, third))
    assert len(started(tmp_path / "a.pids")) == 1
    assert announced() == [
        "isready",  # the handshake
        "game dobutsu", "uginewgame", "isready",  # g1
        "game dobutsu", "uginewgame", "isready",  # ahead, and g2 used it
        "game dobutsu", "uginewgame", "isready",  # ahead, but g3 is jungle: announced again
        "game jungle", "uginewgame", "isready",
        "game jungle", "uginewgame", "isready",  # ahead of a game that never came
    ]


def runner_config(tmp: Path, restart: str, games: int) -> Path:
    head = (f'game = "dobutsu"\ntc = "st=5"\nconcurrency = 2\ngames_per_pairing = {games}\n'
            "[adjudication]\nmax_plies = 20\n")
    bots = [
        f'[[bots]]\nname = "{name}"\nrestart = "{restart}"\nsandbox = "none"\n'
        f'cmd = ["{{python}}", "{POOL_BOT}", "--pids", "{tmp / (name + ".pids")}"]\n'
        for name in ("a", "b")
    ]
    return write_config(tmp, head, bots)


@pytest.mark.parametrize(("restart", "most"), [("auto", 2), ("always", 12)])
def test_arena_run_at_concurrency_two(tmp_path: Path, restart: str, most: int) -> None:
    out = tmp_path / "out"
    done = arena_run(runner_config(tmp_path, restart, 12), out)
    assert done.returncode == 0, done.stderr
    assert len(check_complete(out)) == 12
    for name in ("a", "b"):
        count = len(started(tmp_path / f"{name}.pids"))
        assert (count <= most) if restart == "auto" else (count == most), (name, count)
    assert no_leftover_bots(str(tmp_path / "a.pids"))
    assert no_leftover_bots(str(tmp_path / "b.pids"))
    if restart == "auto":  # the idle processes got 'quit' at the end of the run
        assert quit_cleanly(tmp_path / "a.pids") and quit_cleanly(tmp_path / "b.pids")


def test_a_bot_with_no_game_left_to_start_is_not_told_of_another(tmp_path: Path) -> None:
    """A real run, 3 bots, 6 games, one at a time: a process given back when its bot has
    games to come hears of the next game at once; after its bot's last game it reads only
    ``quit`` (no reset for a game that never comes)."""
    head = ('game = "dobutsu"\ntc = "st=5"\nconcurrency = 1\ngames_per_pairing = 2\n'
            "[adjudication]\nmax_plies = 6\n")
    bots = [
        f'[[bots]]\nname = "{name}"\nsandbox = "none"\n'
        f'cmd = ["{{python}}", "{POOL_BOT}", "--pids", "{tmp_path / (name + ".pids")}", '
        f'"--log", "{tmp_path / (name + ".log")}"]\n'
        for name in ("a", "b", "c")
    ]
    done = arena_run(write_config(tmp_path, head, bots), tmp_path / "out")
    assert done.returncode == 0, done.stderr
    records = check_complete(tmp_path / "out")
    for name in ("a", "b", "c"):
        assert len(started(tmp_path / f"{name}.pids")) == 1  # one process played all its games
        lines = [line.split()[0] for line in (tmp_path / f"{name}.log").read_text().splitlines()
                 if line.strip()]
        games = sum(name in (r.p1, r.p2) for r in records)
        assert games == 4
        assert lines.count("uginewgame") == games, lines  # one per game played, none ahead
        assert lines[-1] == "quit"
        last_game = len(lines) - lines[::-1].index("uginewgame")
        assert "go" in lines[last_game:], lines  # the last announcement was for a real game


def test_arena_run_launches_its_first_bots_before_it_imports_trio(tmp_path: Path) -> None:
    """The first games' engines load while the runner imports trio and the referee."""
    out = tmp_path / "out"
    code = (
        "import sys\n"
        "import arena.bots.prestart as p\n"
        "seen = []\n"
        "real = p.prestart_soon\n"
        "def spy(specs, **how):\n"
        "    seen.append(('trio' in sys.modules, [spec.name for spec in specs]))\n"
        "    return real(specs, **how)\n"
        "p.prestart_soon = spy\n"
        "from arena.cli import main\n"
        "status = main(['run', sys.argv[1], '-o', sys.argv[2], '--plain', '--no-report'])\n"
        "print('SEEN', seen)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(runner_config(tmp_path, "auto", 4)),
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # Concurrency 2: the two bots of each of the first two games, trio not imported yet.
    assert "SEEN [(False, ['a', 'b', 'b', 'a'])]" in done.stdout, done.stdout
    records = check_complete(out)
    assert len(records) == 4
    # They are launched by a thread that lives on as their parent: a bot's death signal
    # follows the thread that started it, and a thread that ended would have killed them.
    assert all(r.termination != Termination.CRASH for r in records), [r.reason for r in records]
    for name in ("a", "b"):
        assert len(started(tmp_path / f"{name}.pids")) == 2  # the two prestarted ones
        assert no_leftover_bots(str(tmp_path / f"{name}.pids"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_no_pooled_process(tmp_path: Path, signum: int) -> None:
    """Ctrl-C (running games finish) or SIGTERM (they are aborted): either way the idle
    processes of the pool are ended with the run."""
    out = tmp_path / "out"
    proc = subprocess.Popen(run_argv(runner_config(tmp_path, "auto", 40), out), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # the header: the run has started
    proc.stdout.readline()  # a first finished game: the pool holds live processes
    assert started(tmp_path / "a.pids")
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0, stderr
    for name in ("a", "b"):
        assert no_leftover_bots(str(tmp_path / f"{name}.pids"))
        if signum == signal.SIGINT:  # the pool ended its idle processes itself
            pids = tmp_path / f"{name}.pids"
            assert quit_cleanly(pids), pids.read_text()
