"""Bot processes: clean start (argv, env, limits, own session), bounded line reading, shutdown."""

from __future__ import annotations

import resource
import sys
from pathlib import Path

import pytest
import trio

from protocol.lines import MAX_LINE_BYTES, BadLine
from referee.botspec import BotSpec, Limits
from referee.process.botprocess import BotExited, BotProcess, BotStartError

BOTS = Path(__file__).resolve().parent / "bots"


def code_bot(code: str, **fields: object) -> BotSpec:
    return BotSpec(name="codebot", cmd=[sys.executable, "-u", "-c", code], **fields)  # type: ignore[arg-type]


async def test_clean_environment_limits_session_and_stderr_log(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.setenv("ARENA_SECRET", "do-not-leak")
    spec = BotSpec(name="echo", cmd=[sys.executable, str(BOTS / "echo_env.py")],
                   cwd=str(tmp_path), env={"BOT_LEVEL": "3"}, limits=Limits(memory_mb=512),
                   sandbox="none")
    log = tmp_path / "logs" / "echo.stderr.log"
    with trio.fail_after(30):
        bot = await BotProcess.start(spec, log)
        try:
            env = await bot.readline()
            assert isinstance(env, str)
            names = set(env.removeprefix("env ").split(","))
            assert "BOT_LEVEL" in names and "ARENA_SECRET" not in names
            assert names <= {"PATH", "HOME", "LANG", "BOT_LEVEL", "LC_CTYPE", "PWD"}
            assert await bot.readline() == f"cwd {tmp_path}"
            limit = await bot.readline()
            if bot.process.cgroup is not None:  # the cgroup counts memory, not RLIMIT_AS
                assert limit == f"as {resource.RLIM_INFINITY}"
                assert bot.process.cgroup.setting("memory", "memory.limit_in_bytes",
                                                  "memory.max") == str(512 << 20)
            else:
                assert limit == f"as {512 << 20}"
            assert await bot.readline() == "session 1"
            await bot.send("hello\nworld")
            assert await bot.readline() == "echo hello"
            assert await bot.readline() == "echo world"
        finally:
            await bot.aclose()
    assert bot.exit_status() == 0  # left on 'quit', no signal needed
    assert "to stderr" in log.read_text()


async def test_overlong_line_is_dropped_and_counted_then_reading_goes_on() -> None:
    code = (f"import sys; sys.stdout.write('x' * {MAX_LINE_BYTES + 10} + '\\nafter\\n'); "
            "sys.stdout.buffer.write(b'\\xff\\xfe\\r\\n'); sys.stdout.write('last')")
    with trio.fail_after(30):
        bot = await BotProcess.start(code_bot(code))
        try:
            long_line = await bot.readline()
            assert isinstance(long_line, BadLine) and "longer than" in long_line.why
            assert bot.dropped_lines == 1
            assert await bot.readline() == "after"
            bad = await bot.readline()
            assert isinstance(bad, BadLine) and "not UTF-8" in bad.why
            assert await bot.readline() == "last"  # unterminated last line still counts
            with pytest.raises(BotExited):
                await bot.readline()
        finally:
            await bot.aclose()


async def test_stubborn_process_group_is_killed() -> None:
    code = ("import os, signal, subprocess, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(60)\n")
    with trio.fail_after(30):
        bot = await BotProcess.start(code_bot(code, sandbox="none"))
        grandchild = int(str(await bot.readline()))
        await bot.aclose()
        assert bot.exit_status() == -9
        while Path(f"/proc/{grandchild}").exists() and \
                Path(f"/proc/{grandchild}/stat").read_text().split(") ")[1][0] != "Z":
            await trio.sleep(0.02)


async def test_start_errors_name_the_bot(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match="cannot start bot 'ghost'"):
        await BotProcess.start(BotSpec(name="ghost", cmd=[str(tmp_path / "missing")]))
    with pytest.raises(BotStartError, match="empty command"):
        await BotProcess.start(BotSpec(name="empty", cmd=[]))


@pytest.mark.needs("bubblewrap")
async def test_bwrap_sandbox_runs_the_bot_privately_without_network(tmp_path: Path) -> None:
    code = ("import os, socket\n"
            "for path in ('written.txt', '/tmp/written.txt'):\n"
            "    try:\n"
            "        open(path, 'w')\n"
            "        print('wrote', flush=True)\n"
            "    except OSError:\n"
            "        print('read-only', flush=True)\n"
            "print('interfaces', ','.join(sorted(n for _, n in socket.if_nameindex())), "
            "flush=True)\n"
            "input()\n")
    spec = code_bot(code, cwd=str(tmp_path), sandbox="bwrap")
    with trio.fail_after(30):
        bot = await BotProcess.start(spec)
        try:
            assert await bot.readline() == "read-only"  # its folder is bound read-only
            assert await bot.readline() == "wrote"  # its private /tmp
            assert await bot.readline() == "interfaces lo"
        finally:
            await bot.aclose()
    assert not (tmp_path / "written.txt").exists()
