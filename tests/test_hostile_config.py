"""Config errors about hostile-bot defences, as a person meets them: ``arena run`` prints one
line naming file, line, key and the fix, exits non-zero, and shows no traceback. Plus the
happy path: ``[bots.limits]`` and ``sandbox`` decode into the bot's spec."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.settings.config import load_config
from referee.botspec import Limits

pytestmark = pytest.mark.slow  # each case runs the `arena` CLI in a child process

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """\
game = "dobutsu"
tc = "10+0.1"

[[bots]]
name = "a"
cmd = ["{python}", "bot.py"]
sandbox = "bwrap"

[bots.limits]
memory_mb = 300
cpu_seconds = 20
processes = 16

[[bots]]
name = "b"
cmd = ["{python}", "bot.py"]
"""


def write(tmp: Path, text: str) -> Path:
    (tmp / "bot.py").write_text("")
    path = tmp / "t.toml"
    path.write_text(text)
    return path


def test_limits_and_sandbox_decode_into_the_bot_spec(tmp_path: Path) -> None:
    a, b = load_config(write(tmp_path, CONFIG)).bots
    assert a.limits == Limits(memory_mb=300, cpu_seconds=20, processes=16, file_mb=256)
    assert a.sandbox == "bwrap"
    assert b.limits == Limits() and b.limits.memory_mb == 1024 and b.sandbox == "auto"


ERRORS = {
    # name: (old, new, line, words that must be in the message)
    "typo in limits": ("memory_mb = 300", "memory = 300", 10,
                       ["bots[0].limits.memory: unknown key 'memory'",
                        "did you mean 'memory_mb'?"]),
    "zero memory": ("memory_mb = 300", "memory_mb = 0", 10,
                    ["bots[0].limits.memory_mb: Expected int >= 1"]),
    "cpu as text": ("cpu_seconds = 20", 'cpu_seconds = "20s"', 11,
                    ["bots[0].limits.cpu_seconds", "got str"]),
    "unknown sandbox": ('sandbox = "bwrap"', 'sandbox = "docker"', 7,
                        ["bots[0].sandbox: Invalid enum value 'docker'",
                         "use one of: 'auto', 'bwrap', 'uid', 'none'"]),
    "missing cwd": ('sandbox = "bwrap"', 'cwd = "nowhere"', 7,
                    ["bots[0].cwd: bot 'a': directory", "not found",
                     "relative to the config file's directory"]),
    "wrong bot path": ('cmd = ["{python}", "bot.py"]\nsandbox', 'cmd = ["./bot"]\nsandbox', 6,
                       ["bots[0].cmd: bot 'a': program './bot' not found", "chmod +x"]),
    "bad per-bot tc": ('sandbox = "bwrap"', 'tc = "fast"', 7,
                       ["bots[0].tc: bad time control 'fast'", "examples: '10+0.1'"]),
    "unknown game": ('game = "dobutsu"', 'game = "go"', 1,
                     ["game: unknown game 'go'", "known games: draughts"]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_config_error_is_one_located_line_with_the_fix(case: str, tmp_path: Path) -> None:
    old, new, line, words = ERRORS[case]
    assert old in CONFIG
    config = write(tmp_path, CONFIG.replace(old, new, 1))
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(config), "--output",
                           str(tmp_path / "out"), "--no-report"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"arena: error: {config}:{line}: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    assert not (tmp_path / "out").exists()
