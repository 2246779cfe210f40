"""Interpreters anywhere: a bot whose interpreter lies under a folder only root may enter (a
virtualenv in a private folder, on a Python that may itself be pyenv's under /root), and a
bot started through a version manager's shim (pyenv's ``python3`` is a shell script that runs
pyenv), both pass ``arena check-bot`` under bubblewrap as root; a shim whose manager cannot
name the real program fails before the game with the message that says what to give instead.

Before the fix the shim failed the handshake (``~/.pyenv/libexec/pyenv: No such file or
directory``, exit status 127) and the private interpreter was out of the bot's reach.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_hostile_no_bwrap import private_python

ROOT = Path(__file__).resolve().parent.parent
FAIR = ROOT / "tests" / "hostile" / "plays_fair.py"
SHIM = """#!/usr/bin/env bash
set -e
program="${{0##*/}}"
export PYENV_ROOT="{root}"
exec "{root}/libexec/pyenv" exec "$program" "$@"
"""
MANAGER = """#!/bin/sh
# A stand-in for pyenv: 'which NAME' prints the real program, 'exec NAME ARGS' runs it.
case "$1" in
    which) {which} ;;
    exec) shift; shift; exec "{real}" "$@" ;;
esac
"""

pytestmark = [pytest.mark.needs("bubblewrap"),
              pytest.mark.skipif(os.geteuid() != 0, reason="the arena as root, as CI runs it")]


def fake_pyenv(folder: Path, real: Path, *, knows: bool = True) -> Path:
    """A pyenv-like install in ``folder`` (0700): its ``shims/python3`` and its manager."""
    folder.mkdir(mode=0o700)
    (folder / "libexec").mkdir()
    (folder / "shims").mkdir()
    which = f'echo "{real}"' if knows else 'echo "pyenv: python3: command not found" >&2; exit 127'
    manager = folder / "libexec" / "pyenv"
    manager.write_text(MANAGER.format(which=which, real=real))
    shim = folder / "shims" / "python3"
    shim.write_text(SHIM.format(root=folder))
    for path in (manager, shim):
        path.chmod(0o755)
    return shim


def check_bot(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "check-bot", "dobutsu", "--",
                           *map(str, argv)], capture_output=True, text=True, timeout=240,
                          cwd=ROOT)


def test_an_interpreter_under_a_private_folder_passes_check_bot(tmp_path: Path) -> None:
    done = check_bot(private_python(tmp_path / "private"), FAIR)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all steps passed" in done.stdout


def test_a_pyenv_shim_is_run_as_the_program_it_names(tmp_path: Path) -> None:
    real = private_python(tmp_path / "private")
    shim = fake_pyenv(tmp_path / "pyenv", real)
    done = check_bot(shim, FAIR)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all steps passed" in done.stdout


def test_a_shim_whose_manager_cannot_say_fails_naming_what_to_give(tmp_path: Path) -> None:
    real = private_python(tmp_path / "private")
    shim = fake_pyenv(tmp_path / "pyenv", real, knows=False)
    done = check_bot(shim, FAIR)
    assert done.returncode != 0
    line = next(line for line in done.stdout.splitlines() if line.startswith("FAIL"))
    assert "1. start the process" in line, done.stdout
    assert f"{shim} is a pyenv shim" in line and "`pyenv which python3`" in line, line
    assert "command not found" in line, line  # what the manager said


def test_a_bot_dying_in_the_handshake_is_said_to(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    script = bot / "dies.py"
    script.write_text("import sys\nsys.stdin.readline()\nsys.exit(3)\n")
    done = check_bot(sys.executable, script)
    assert "crashed during the handshake (exit status 3)" in done.stdout, done.stdout
