"""No silent root: with bubblewrap hidden from PATH and the bots' interpreter in a 0700
folder (a virtualenv in a private folder, on a Python that may itself lie under /root),
``sandbox = "auto"`` runs each bot as an unprivileged uid of its own in namespaces of its own,
never as root. Through a real ``arena run``: a bot that SIGKILLs its parent, the
referee's session and its opponent, and a bot that forges a journal line, each leave the run
complete, the innocent bot never losing, and the journal exact.

Before the fix such bots ran as root: ``kill -9 $PPID`` ended the run with 0 games
journaled, the innocent lost "crashed (killed by SIGKILL)", and a forged game was counted.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_hostile_bots import CAP, FIRST_BOT, GAME, HOSTILE, tagged

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="the arena as root, as CI runs it")]


def private_python(folder: Path) -> Path:
    """A virtualenv inside a folder only root may enter (as pyenv's or conda's under /root)."""
    folder.mkdir(mode=0o700)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / "venv")],
                   check=True, timeout=120)
    return folder / "venv" / "bin" / "python"


def path_without_bwrap(folder: Path) -> str:
    """A PATH holding only what the arena itself calls (setpriv, unshare): no bwrap."""
    folder.mkdir()
    for tool in ("setpriv", "unshare"):
        found = shutil.which(tool)
        assert found is not None, f"{tool} (util-linux) is needed"
        (folder / tool).symlink_to(found)
    assert shutil.which("bwrap", path=str(folder)) is None
    return str(folder)


def test_hostile_bots_without_bubblewrap_run_as_no_root_and_leave_the_run_exact(
        tmp_path: Path) -> None:
    python = private_python(tmp_path / "private")
    tag = f"nobwrap-{os.urandom(6).hex()}"
    out = tmp_path / "out"
    config = tmp_path / "run.toml"
    innocent = f"innocent.{tag}"  # in the innocent's command line only: not another test's
    marker = innocent.replace(".", "?")  # matches the innocent's, not the attacker's own
    bots = {  # the innocent first, and one game at a time: its kept process is there
        # when the attacker, started afresh for each game, looks for it
        "innocent": ["{python}", str(FIRST_BOT), "--tag", innocent],  # (its helper needs
        # msgspec: the arena's own Python)
        "attacker": [str(python), str(HOSTILE / "attack_others.py"), tag, "2", marker],
        "forger": [str(python), str(HOSTILE / "read_run_dir.py"), tag, "2"],
    }
    paths = ":".join(map(str, (config, out / "games.jsonl", out)))
    lines = [f'game = "{GAME}"', 'tc = "10+0"', "games_per_pairing = 2", "concurrency = 1",
             "[adjudication]", f"max_plies = {CAP.max_plies}"]
    for name, cmd in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', "cmd = [" + ", ".join(f'"{a}"' for a in cmd)
                  + "]", 'restart = "always"' if name == "attacker" else "",
                  f'env = {{ RUN_PATHS = "{paths}" }}' if name == "forger" else ""]
    config.write_text("\n".join(lines) + "\n")
    env = {**os.environ, "PATH": path_without_bwrap(tmp_path / "bin")}
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(config), "--output",
                           str(out), "--no-report", "--plain"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "bubblewrap (bwrap) is not installed" in done.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    scheduled = [g["id"] for g in json.loads((out / "schedule.json").read_text())["games"]]
    assert sorted(r["id"] for r in records) == sorted(scheduled)  # each game once, none forged
    assert len(records) == 6
    for record in records:
        assert "forged" not in (record["p1"], record["p2"])
        assert record["termination"] == "adjudication", record  # nobody crashed or was killed
    logs = "\n".join(p.read_text() for p in (out / "logs").rglob("*.stderr.log"))
    for attempt in ("kill-session", "read-config", "append-journal"):
        assert f"{attempt} refused" in logs and f"{attempt} ok" not in logs, attempt
    assert "opponents seen 0" in logs  # its own PID namespace: the innocent is not visible,
    # and its parent is the namespace's init, which ignores its SIGKILL (the run went on)
    assert not tagged(tag)


@pytest.mark.parametrize("referees", ["1", "2"])
def test_without_bubblewrap_a_bot_reaches_no_port_reads_no_run_file_and_leaves_nothing(
        tmp_path: Path, referees: str) -> None:
    """The ``uid`` containment is bubblewrap's sandbox without bubblewrap: through a real
    ``arena run``, a bot finds no port of the host's loopback (a listener of the test's own
    hears nothing), cannot read the config, the journal, the live files or the logs, runs with
    ``no_new_privs``, and what it leaves in /tmp, /var/tmp and /dev/shm goes with it. The
    same when referee processes of the runner's own play the games (``--referees 2``)."""
    tag = f"outside-{os.urandom(6).hex()}"
    out = tmp_path / "out"
    config = tmp_path / "run.toml"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    heard: list[object] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                heard.append(listener.accept()[0].getpeername())
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    targets = [config, out / "games.jsonl", out / "live", out / "logs", out / "schedule.json"]
    probe = ["{python}", str(HOSTILE / "outside_probe.py"), tag, "2"]
    env_line = (f'env = {{ PROBE_PORT = "{listener.getsockname()[1]}", '
                f'PROBE_PATHS = "{":".join(map(str, targets))}" }}')
    config.write_text("\n".join([
        f'game = "{GAME}"', 'tc = "10+0"', "games_per_pairing = 2",
        f"concurrency = {referees}",  # a referee process has one game at least
        "[adjudication]", f"max_plies = {CAP.max_plies}",
        "[[bots]]", 'name = "probe"', "cmd = [" + ", ".join(f'"{a}"' for a in probe) + "]",
        env_line, 'restart = "always"',  # a new process, and sandbox, for each game
        "[[bots]]", 'name = "first"', f'cmd = ["{{python}}", "{FIRST_BOT}"]', ""]))
    env = {**os.environ, "PATH": path_without_bwrap(tmp_path / "bin")}
    try:
        done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(config),
                               "--output", str(out), "--no-report", "--plain",
                               "--referees", referees],
                              capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    finally:
        stop.set()
        thread.join()
        listener.close()
    assert done.returncode == 0, done.stderr[-3000:]
    assert "bubblewrap (bwrap) is not installed" in done.stderr
    assert ("referees: 2 processes" in done.stdout) == (referees == "2"), done.stdout
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["termination"] == "adjudication" for r in records)
    logs = "\n".join(p.read_text() for p in (out / "logs" / "probe").rglob("*.stderr.log"))
    assert logs.count("connect refused") == 2 and "connect ok" not in logs, logs
    assert heard == []
    for target in targets:
        said = [line for line in logs.splitlines() if line.startswith(f"read {target} ")]
        assert len(said) == 2 and all(" refused " in line for line in said), (target, said)
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        assert logs.count(f"leave {folder} ok") == 2, logs  # it could, in its own
        assert not list(Path(folder).glob(f"{tag}-*")), folder  # and none of it is left
    statuses = [line.split()[1:] for line in logs.splitlines() if line.startswith("status ")]
    assert len(statuses) == 2
    for uid, no_new_privs in statuses:
        assert int(uid) >= 1_000_000_000 and no_new_privs == "1", statuses
    assert not tagged(tag)
