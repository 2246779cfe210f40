"""A bot's command made ready to start: its program found, its folder resolved, ``{python}``
replaced; the one place a config's, a bots file's and a league build's commands are resolved.

A program is looked for relative to the bot's folder first (a config names a bot's program
from its folder), then, for a bare name, on PATH. A bot without a ``cwd`` gets its own folder:
its script's (the first argument naming a file beside the config), else its program's; never
the config's, which holds other bots, configs and runs.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Final

import msgspec

from arena.settings.located import Fail
from referee.botspec import BotSpec

PYTHON_PLACEHOLDER: Final = "{python}"
"""Replaced in every ``cmd`` element by ``sys.executable``."""

SCRIPT_SUFFIXES: Final = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".jar", ".lua")
"""A script argument right after the program with one of these suffixes must exist."""


def prepare_bot(bot: BotSpec, i: int, base: Path, fail: Fail) -> BotSpec:
    """Bot ``i`` of a file whose folder is ``base``, ready to start (absolute program and
    cwd); a mistake is ``fail``'s error at the bot's key."""
    if not bot.cmd or not bot.cmd[0]:
        raise fail(
            ["bots", i, "cmd"], f"bot {bot.name!r} has an empty cmd", 'e.g. cmd = ["./mybot"]'
        )
    if bot.ship and not bot.cwd:
        raise fail(
            ["bots", i, "ship"],
            f"bot {bot.name!r}: ship = true sends the bot's folder to the cluster's workers, "
            "and this bot has no cwd (it would send the config's whole directory)",
            'set cwd = "path/to/the/bot/folder" (relative to the config file)',
        )
    cwd = (base / bot.cwd).resolve() if bot.cwd else base
    if not cwd.is_dir():
        raise fail(
            ["bots", i, "cwd"],
            f"bot {bot.name!r}: directory {str(cwd)!r} not found",
            "cwd is relative to the config file's directory",
        )
    cmd = [arg.replace(PYTHON_PLACEHOLDER, sys.executable) for arg in bot.cmd]
    program = resolve_program_cwd_first(cmd[0], cwd)
    if program is None:
        raise fail(
            ["bots", i, "cmd"],
            f"bot {bot.name!r}: program {bot.cmd[0]!r} not found or not executable "
            f"(looked in {cwd} and on PATH)",
            "fix the path (relative to the bot's cwd), chmod +x it, or start it with an "
            'interpreter: cmd = ["{python}", "bot.py"]',
        )
    cmd[0] = program
    if len(cmd) > 1 and cmd[1].endswith(SCRIPT_SUFFIXES) and not (cwd / cmd[1]).is_file():
        raise fail(
            ["bots", i, "cmd"],
            f"bot {bot.name!r}: script {cmd[1]!r} not found in {cwd}",
            "fix the path (relative to the bot's cwd, which defaults to the config's directory)",
        )
    if not bot.cwd:
        cmd, cwd = own_folder(cmd, base)
    return msgspec.structs.replace(bot, cmd=cmd, cwd=str(cwd))


def own_folder(cmd: list[str], base: Path) -> tuple[list[str], Path]:
    """A bot without ``cwd``: its arguments that name files beside the config made absolute,
    and its folder the one of its script (the first such file), else of its program. Not the
    config's folder: a bot sees its own folder, and the config's holds other bots, configs
    and runs."""
    args = [str((base / arg).resolve()) if not arg.startswith("-") and not os.path.isabs(arg)
            and (base / arg).is_file() else arg for arg in cmd[1:]]
    script = next((arg for arg in args if os.path.isabs(arg) and os.path.isfile(arg)), None)
    return [cmd[0], *args], Path(os.path.dirname(script or cmd[0]))


def resolve_program_cwd_first(program: str, cwd: Path) -> str | None:
    """An absolute path to ``program``: relative to ``cwd`` first (also a bare name: the
    config names a bot's program from its folder), then (bare names) on PATH; None when
    neither holds an executable file."""
    candidate = cwd / program
    if candidate.is_file() and os.access(candidate, os.X_OK):
        # abspath, not resolve(): a virtualenv's python is a symlink that must stay one.
        return os.path.abspath(candidate)
    if os.sep not in program:
        found = shutil.which(program)
        if found:
            return os.path.abspath(found)
    return None
