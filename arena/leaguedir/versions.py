"""The versions submitted to a league: ``NAME@N``, immutable once accepted, and their state.

Each version is one ``version.json`` in ``bots/<name>/<n>/`` (with its build and check logs
beside it), rewritten whole, atomically, when its state changes: submitted versions are few
(hundreds), so the registry is simply every such file read in order.

States: ``pending`` (being built and checked), ``active`` (plays), ``rejected`` (a step failed:
its upload, copy, ``bot.toml``, build or check; ``step`` and ``reason`` say which and why; the
bot's previous version plays on), ``retired`` (played, kept in the history, no longer
scheduled).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import msgspec

from arena.atomicfile import write_atomic
from arena.leaguedir.directory import VERSION_FILE, LeagueDir
from referee.botspec import BotSpec, Protocol

State = Literal["pending", "active", "rejected", "retired"]
Step = Literal["upload", "copy", "bot.toml", "build", "check", ""]


class Version(msgspec.Struct, omit_defaults=True):
    """One submitted version."""

    name: str
    number: int
    cmd: list[str]
    """The command, relative to the stored folder (``source``) when there is one."""
    submitted_at: float
    state: State = "pending"
    source: str | None = None
    """The hash of the stored folder (``store/<source>/``), None for an installed engine."""
    protocol: Protocol = "native"
    options: dict[str, str | int | float | bool] = {}
    author: str = ""
    build: list[str] = []
    """The build command from ``bot.toml``, run once in the stored folder."""
    step: Step = ""
    """Where a rejected version failed."""
    reason: str = ""
    """One line: why it was rejected or retired."""
    build_seconds: float | None = None
    checked_at: float | None = None
    retired_at: float | None = None

    @property
    def label(self) -> str:
        """``NAME@N``: the player in every game, rating and chart."""
        return f"{self.name}@{self.number}"


def parse_label(text: str) -> tuple[str, int | None]:
    """``NAME@N`` -> (NAME, N); ``NAME`` -> (NAME, None): the one reader of a version label
    (a bot's name holds no ``@``, :data:`~arena.leaguedir.directory.NAME_PATTERN`)."""
    name, at, number = text.rpartition("@")
    if not at:
        return text, None
    if not name or not number.isdigit():
        raise ValueError(f"{text!r}: expected NAME or NAME@N (N a version number)")
    return name, int(number)


def label_sort_key(label: str) -> tuple[str, int]:
    """Labels in order: by name, then by number (``b@2`` before ``b@10``); a text that is no
    label sorts by itself."""
    try:
        name, number = parse_label(label)
    except ValueError:
        return label, 0
    return name, number or 0


def bot_of(label: str) -> str:
    """The bot a label names (``b@2`` -> ``b``), or the text itself when it is no label."""
    try:
        return parse_label(label)[0]
    except ValueError:
        return label


def read_versions(league: LeagueDir) -> list[Version]:
    """Every version, by name then number."""
    found: list[Version] = []
    if not league.bots.is_dir():
        return found
    for bot in sorted(league.bots.iterdir()):
        numbers = sorted(int(p.name) for p in bot.iterdir() if p.name.isdigit())
        for n in numbers:
            path = bot / str(n) / VERSION_FILE
            if path.is_file():
                found.append(msgspec.json.decode(path.read_bytes(), type=Version))
    return found


def write_version(league: LeagueDir, version: Version) -> Path:
    """Write (or rewrite) a version's file atomically; returns its folder."""
    folder = league.version_dir(version.name, version.number)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / VERSION_FILE
    write_atomic(path, msgspec.json.format(msgspec.json.encode(version)) + b"\n")
    return folder


def next_number(league: LeagueDir, name: str) -> int:
    """The number the next version of ``name`` gets (1 for a new bot)."""
    folder = league.bots / name
    if not folder.is_dir():
        return 1
    return max((int(p.name) for p in folder.iterdir() if p.name.isdigit()), default=0) + 1


def active_versions(versions: list[Version]) -> list[Version]:
    return [v for v in versions if v.state == "active"]


def bot_spec(league: LeagueDir, version: Version) -> BotSpec:
    """The bot a night plays for ``version``: its command run in its stored folder (the
    league's limits and sandbox are added by :func:`arena.leaguedir.leaguetoml.versions_config`,
    which every start of a version goes through)."""
    if version.source is None:
        return BotSpec(name=version.label, cmd=list(version.cmd), protocol=version.protocol,
                       options=dict(version.options))
    folder = league.stored(version.source)
    return BotSpec(name=version.label, cmd=list(version.cmd), cwd=os.path.abspath(folder),
                   protocol=version.protocol, options=dict(version.options))
