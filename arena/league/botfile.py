"""``bot.toml``: what a submitted folder says about itself (its command, its build, its
protocol and options), and the rule that finds a command when nothing says it.

Every key is optional::

    cmd = ["./bot", "--threads", "1"]    # argv, relative to the folder; {python} allowed
    build = ["make"]                     # argv, run once in the folder, in the sandbox
    protocol = "native"                  # native, uci or hub
    author = "Ada"                       # when `arena league submit` is given no --author
    [options]
    Depth = 6

What the command line gives wins: ``-- CMD`` over ``cmd``, ``--protocol`` over ``protocol``,
``--option K=V`` over the same key of ``[options]``, ``--author`` over ``author``.

Without a ``cmd`` anywhere the built folder is looked at (:func:`infer_cmd`): exactly one of
``bot.py`` and ``main.py`` runs as ``{python} FILE``, else an executable file named ``bot``
runs as ``./bot``, else a folder holding nothing but one Python file (an uploaded single
source file) runs it as ``{python} FILE``; anything else is an error asking for ``cmd``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Final

import msgspec

from arena.errors import UserError
from arena.settings.config import OptionValue
from arena.settings.located import ConfigError, decode_toml
from referee.botspec import Protocol

BOT_FILE: Final = "bot.toml"
MAX_BOT_FILE_BYTES: Final = 64 << 10
"""A bot.toml longer than this is refused unread."""
MAX_ARGS: Final = 256
PYTHON_SCRIPTS: Final = ("bot.py", "main.py")
EXECUTABLE: Final = "bot"

_Argv = Annotated[list[Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]],
                  msgspec.Meta(min_length=1, max_length=MAX_ARGS)]


class BotFile(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The whole of ``bot.toml``."""

    cmd: _Argv | None = None
    """How the bot is started, relative to its folder: an argv list, never a shell string."""
    build: _Argv | None = None
    """Run once after the copy, in the folder, sandboxed (:mod:`arena.league.build`)."""
    protocol: Protocol | None = None
    options: dict[str, OptionValue] = {}
    """Sent as ``setoption`` after every handshake."""
    author: str | None = None


def read_bot_file(folder: Path, shown: Path) -> BotFile:
    """``folder``'s ``bot.toml`` (an empty :class:`BotFile` when there is none); a mistake is
    a :class:`ConfigError` reading ``SHOWN/bot.toml:LINE: key: problem; fix``, where ``shown``
    is the folder the author submitted (``folder`` is the stored copy)."""
    path = folder / BOT_FILE
    shown_path = shown / BOT_FILE
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ConfigError(f"{shown_path}: not a regular file")
    if not path.exists():
        return BotFile()
    raw = path.read_bytes()
    if len(raw) > MAX_BOT_FILE_BYTES:
        raise ConfigError(f"{shown_path}: {len(raw):,} bytes, more than "
                          f"{MAX_BOT_FILE_BYTES >> 10} KB: is it the right file?")
    return decode_toml(raw, BotFile, shown_path, hint=_argv_hint)


def _argv_hint(where: list[str | int], problem: str) -> str | None:
    """A command written as a shell string: say it is an argv list."""
    if where[:1] in (["cmd"], ["build"]) and "Expected" in problem:
        return f'an argv list of strings, e.g. {where[0]} = ["./bot"] (no shell string)'
    return None


def infer_cmd(folder: Path, shown: Path) -> list[str]:
    """The command of a folder that names none (the module's rule), or a :class:`UserError`
    saying what was found."""
    scripts = [name for name in PYTHON_SCRIPTS if (folder / name).is_file()]
    if len(scripts) == 1:
        return ["{python}", scripts[0]]
    if len(scripts) > 1:
        raise UserError(f"{shown}: both {' and '.join(scripts)} and no cmd: say which one runs "
                        f'in {BOT_FILE}: cmd = ["{{python}}", "{scripts[0]}"]')
    program = folder / EXECUTABLE
    if program.is_file() and os.access(program, os.X_OK):
        return [f"./{EXECUTABLE}"]
    only = list(folder.iterdir())
    if len(only) == 1 and only[0].suffix == ".py" and only[0].is_file() \
            and not only[0].is_symlink():
        return ["{python}", only[0].name]
    raise UserError(f"{shown}: no command: none of {', '.join(PYTHON_SCRIPTS)}, an "
                    f"executable '{EXECUTABLE}' after the build, or a single Python file; "
                    f"write one in {BOT_FILE} "
                    '(cmd = ["./mybot"]) or give it after --: arena league submit DIR NAME '
                    "FOLDER -- CMD ...")
