"""Version-manager shims: ``python3`` from pyenv (or ``ruby`` from rbenv, ``node`` from
nodenv, anything from asdf) is a small shell script that runs the manager, which looks up the
version and then runs the real program. In a sandbox the manager's files and its view of the
user's configuration are out of reach (and its script expects a home the bot has not got), so
a contained bot is started with the real program the shim would have run instead, found by
asking the manager the way its users do (``pyenv which python3``), from the bot's folder
(version files such as ``.python-version`` are looked up from there).
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import cache
from typing import Final

from referee.process.boterrors import BotStartError

SHIM_HEAD: Final = 8192
"""Bytes of a program read to tell whether it is a shim (shims are a few hundred bytes)."""
_MANAGER_EXEC: Final = re.compile(rb'exec\s+"?([^"\s]+/libexec/[a-z]+env)"?\s+exec\b')
"""pyenv, rbenv, nodenv, goenv...: ``exec "/root/.pyenv/libexec/pyenv" exec "$program"``."""
_ASDF_EXEC: Final = re.compile(rb'exec\s+"?([^"\s]*asdf)"?\s+exec\b')


def real_program(name: str, program: str, cwd: str) -> str:
    """``program`` itself, or the real program when it is a version manager's shim; a shim
    whose manager cannot name the real program is a :class:`BotStartError` that says which
    path to give instead."""
    manager = _manager_of(program)
    if manager is None:
        return program
    return _which(name, program, manager, cwd)


def _manager_of(program: str) -> str | None:
    try:
        with open(program, "rb") as f:
            head = f.read(SHIM_HEAD)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    found = _MANAGER_EXEC.search(head) or _ASDF_EXEC.search(head)
    if found is None:
        return None
    return os.fsdecode(found.group(1))


@cache
def _which(name: str, program: str, manager: str, cwd: str) -> str:
    tool = os.path.basename(manager)
    command = os.path.basename(program)
    hint = (f"cannot start bot {name!r}: {program} is a {tool} shim (a script that runs "
            f"{tool}, which a sandboxed bot cannot reach); give the real program instead, "
            f"as printed by `{tool} which {command}`")
    try:
        done = subprocess.run([manager, "which", command], capture_output=True, text=True,
                              cwd=cwd if os.path.isdir(cwd) else None, timeout=30,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BotStartError(f"{hint} ({exc})") from None
    real = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0 or not os.path.isabs(real) or not os.access(real, os.X_OK):
        said = (done.stderr.strip().splitlines() or [""])[0][:200]
        raise BotStartError(f"{hint}{f' ({said})' if said else ''}")
    return real
