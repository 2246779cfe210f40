"""The sandbox from the inside, with bubblewrap and without: a bot that tries to write
everywhere and to reach the network may write only in its private /tmp, and reaches nothing.

Skipped, saying why, where bubblewrap is missing or cannot create namespaces.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import uuid
from pathlib import Path

import pytest
import trio

from referee.botspec import BotSpec
from referee.connection import BotCrashed
from referee.match import open_bot
from referee.process import botview, spawn
from referee.process.botprocess import BotProcess
from referee.process.faults import SandboxSetupError

PROBE = Path(__file__).resolve().parent / "hostile" / "sandbox_probe.py"
CRASH_AT_START = Path(__file__).resolve().parent / "hostile" / "crash_at_start.py"
ATTEMPTS = ("create-in-cwd", "read-back", "overwrite-own-file", "tmp", "outside", "connect",
            "interfaces")


def probe_file() -> Path:
    """A name in the host's /tmp that no other test (nor an earlier run) uses."""
    path = Path("/tmp") / f"arena-probe-{uuid.uuid4().hex}.txt"
    assert not path.exists()
    return path


async def probe(tmp: Path, sandbox: str, tmp_file: Path) -> dict[str, str]:
    """Run the probe bot from its own directory; its answers by attempt. It writes
    ``tmp_file`` (a name in /tmp) as its /tmp attempt."""
    home = tmp / "bot"
    home.mkdir()
    script = home / PROBE.name
    script.write_text(PROBE.read_text())
    outside = tmp / "outside"
    outside.mkdir()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        argv = [sys.executable, script.name, "-", str(port), tmp_file.name]
        spec = BotSpec(name="probe", cmd=argv, cwd=str(home), env={"OUTSIDE": str(outside)},
                       sandbox=sandbox)  # type: ignore[arg-type]
        answers: dict[str, str] = {}
        with trio.fail_after(30):
            bot = await BotProcess.start(spec)
            try:
                for _ in ATTEMPTS:
                    line = await bot.readline()
                    assert isinstance(line, str), line
                    name, _, result = line.partition(" ")
                    answers[name] = result
            finally:
                await bot.aclose()
    return answers


@pytest.mark.parametrize("sandbox", [
    pytest.param("bwrap", marks=pytest.mark.needs("bubblewrap")),
    pytest.param("uid", marks=pytest.mark.skipif(os.geteuid() != 0, reason="needs root"))])
async def test_sandboxed_bot_writes_only_privately_and_has_no_network(tmp_path: Path,
                                                                      sandbox: str) -> None:
    """Under bubblewrap, and under the ``uid`` containment that does without it."""
    host_tmp = probe_file()
    answers = await probe(tmp_path, sandbox, host_tmp)
    assert answers["create-in-cwd"].startswith("refused")  # its folder is read-only
    assert not (tmp_path / "bot" / "scratch.txt").exists()
    assert answers["overwrite-own-file"].startswith("refused")
    assert (tmp_path / "bot" / PROBE.name).read_text() == PROBE.read_text()
    assert answers["tmp"] == "ok" and not host_tmp.exists()  # a private /tmp
    assert answers["outside"].startswith("refused")
    assert not (tmp_path / "outside" / "escaped.txt").exists()
    assert answers["connect"] == "refused ConnectionRefusedError"  # not the host's listener
    assert answers["interfaces"] == "ok lo"


async def test_without_the_sandbox_the_same_probe_gets_out(tmp_path: Path) -> None:
    """The control experiment: what the sandbox prevents does happen without it."""
    host_tmp = probe_file()
    try:
        answers = await probe(tmp_path, "none", host_tmp)
        assert answers["tmp"] == "ok" and host_tmp.read_text() == "escaped"  # the host's /tmp
    finally:
        host_tmp.unlink(missing_ok=True)
    assert answers["outside"] == "ok" and (tmp_path / "outside" / "escaped.txt").exists()
    assert answers["connect"] == "ok"
    assert answers["overwrite-own-file"] == "ok"


@pytest.mark.needs("bubblewrap")
async def test_a_sandbox_that_cannot_be_set_up_is_the_machines_fault_not_the_bots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bubblewrap ending before it starts the bot (no namespace to be had while a fork bomb
    holds every process slot; here an option it rejects) is a :class:`SandboxSetupError`, a
    machine fault: the game is played again and nobody loses it. The control: a bot that
    crashes at once inside a sandbox that was set up still loses (:class:`BotCrashed`)."""
    crash = BotSpec(name="crash", cmd=[sys.executable, str(CRASH_AT_START)], sandbox="bwrap")
    with trio.fail_after(30), pytest.raises(BotCrashed, match="exit status 3"):
        await open_bot(crash, log_dir=tmp_path / "logs")
    real = spawn.sandbox_argv

    def rejected(*args: object, **kwargs: object) -> list[str]:
        argv = real(*args, **kwargs)  # type: ignore[arg-type]
        return [argv[0], "--no-such-option", *argv[1:]]

    monkeypatch.setattr(spawn, "sandbox_argv", rejected)
    with trio.fail_after(30), pytest.raises(
            SandboxSetupError, match=r"bubblewrap could not set up its sandbox \(exit status 1\)"
                                     r": bwrap: .*--no-such-option"):
        await open_bot(crash, log_dir=tmp_path / "logs2")


@pytest.mark.parametrize("sandbox", [
    pytest.param("bwrap", marks=pytest.mark.needs("bubblewrap")),
    pytest.param("uid", marks=pytest.mark.skipif(os.geteuid() != 0, reason="needs root"))])
async def test_a_hidden_folder_inside_a_system_one_is_covered_but_the_bots_own_is_not(
        sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A league kept under /opt (bound read-only into every sandbox): its files are hidden
    from every bot, and a version's own folder inside it stays visible to that version."""
    if os.geteuid() != 0:
        pytest.skip("writes under /opt")
    league = Path("/opt") / f"arena-test-{uuid.uuid4().hex}"
    mine = league / "store" / "abc"
    try:
        mine.mkdir(parents=True)
        league.chmod(0o755)
        (league / "league.toml").write_text("secret = 1\n")
        (league / "store" / "other.py").write_text("# another author's code\n")
        script = mine / "look.py"
        script.write_text(
            "import os\n"
            "for path in [*os.environ['TARGETS'].split(':'), 'look.py']:\n"
            "    try:\n"
            "        open(path).read(); print(path, 'ok', flush=True)\n"
            "    except OSError as exc:\n"
            "        print(path, 'refused', type(exc).__name__, flush=True)\n")
        for path in (league / "store", mine, script):
            path.chmod(0o755)
        monkeypatch.setattr(botview, "_hidden", {str(league)})
        targets = [str(league / "league.toml"), str(league / "store" / "other.py")]
        spec = BotSpec(name="look", cmd=[sys.executable, script.name], cwd=str(mine),
                       sandbox=sandbox,  # type: ignore[arg-type]
                       env={"TARGETS": ":".join(targets)})
        with trio.fail_after(30):
            bot = await BotProcess.start(spec)
            try:
                said = [await bot.readline() for _ in range(3)]
            finally:
                await bot.aclose()
        assert said[0] == f"{targets[0]} refused FileNotFoundError", said
        assert said[1] == f"{targets[1]} refused FileNotFoundError", said
        assert said[2] == "look.py ok", said  # its own folder, inside the hidden league
    finally:
        shutil.rmtree(league, ignore_errors=True)
