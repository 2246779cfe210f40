"""The versions submitted to a league: ``NAME@N``, immutable once accepted, and their state.

Each version is one ``version.json`` in ``bots/<name>/<n>/`` (with its build and check logs
beside it), rewritten whole, atomically, when its state changes: submitted versions are few
(hundreds), so the registry is simply every such file read in order.

A version number is given on acceptance only: a submission is first the bot's submission
``K`` (``attempt``, counted over every submission of the name), kept in ``bots/<name>/try-K/``
and shown as ``NAME#K`` while it is pending; accepted, it takes the next number ``N`` and its
folder is renamed to ``bots/<name>/N/`` under the league's lock (:func:`numbered`); rejected,
it stays ``NAME#K`` and no number is used up. Versions written by an earlier arena (a number
from the start, rejected or not) read as they are.

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
from arena.leaguedir.directory import ATTEMPT_PREFIX, VERSION_FILE, LeagueDir
from referee.botspec import BotSpec, Protocol
from referee.process.sandbox import SANDBOX_PATH

State = Literal["pending", "active", "rejected", "retired"]
Step = Literal["upload", "copy", "bot.toml", "build", "check", ""]


class Version(msgspec.Struct, omit_defaults=True):
    """One submitted version."""

    name: str
    number: int
    """``N`` of ``NAME@N``, given on acceptance; 0 while the submission is pending, and for
    good when it was rejected."""
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
    attempt: int = 0
    """``K``: the bot's submission this is, counted over all its submissions (0: a version of
    an earlier arena, numbered at once)."""
    notice: str = ""
    """One line the author is told about an accepted version (``same content as x@1``)."""
    env: dict[str, str] = {}
    """``bot.toml``'s ``[env]``: added to the bot's environment (and its build's)."""
    toolchain: str = ""
    """``bot.toml``'s ``toolchain``: put before the sandbox's PATH of the bot and its build."""

    @property
    def label(self) -> str:
        """``NAME@N``: the player in every game, rating and chart; ``NAME#K`` for a
        submission with no number (pending or rejected)."""
        return f"{self.name}@{self.number}" if self.number else f"{self.name}#{self.attempt}"

    @property
    def key(self) -> str:
        """What names this submission for good, before and after it takes a number:
        ``NAME#K`` (``NAME@N`` for a version of an earlier arena, numbered at once)."""
        return f"{self.name}#{self.attempt}" if self.attempt else f"{self.name}@{self.number}"

    @property
    def order(self) -> int:
        """Its place among its bot's submissions (``K``, or ``N`` for an earlier arena's)."""
        return self.attempt or self.number

    @property
    def ref(self) -> str:
        """The name of its folder under ``bots/<name>/``: ``N``, or ``try-K`` without a
        number."""
        return str(self.number) if self.number else f"{ATTEMPT_PREFIX}{self.attempt}"


def parse_label(text: str) -> tuple[str, int | None]:
    """``NAME@N`` -> (NAME, N); ``NAME`` -> (NAME, None): the one reader of a version label
    (a bot's name holds no ``@``, :data:`~arena.leaguedir.directory.NAME_PATTERN`)."""
    name, at, number = text.rpartition("@")
    if not at:
        return text, None
    if not name or not number.isdigit():
        raise ValueError(f"{text!r}: expected NAME or NAME@N (N a version number)")
    return name, int(number)


def name_of_key(key: str) -> str:
    """The bot a :attr:`Version.key` (or a label) names: ``b#3`` and ``b@2`` -> ``b``."""
    name, hashed, _ = key.rpartition("#")
    return name if hashed else bot_of(key)


def ref_of_label(label: str) -> tuple[str, str] | None:
    """(NAME, the folder name under ``bots/NAME/``) of ``NAME@N`` or ``NAME#K``, or None for a
    text that is neither."""
    name, hashed, k = label.rpartition("#")
    if hashed:
        return (name, f"{ATTEMPT_PREFIX}{k}") if name and k.isdigit() else None
    try:
        name, number = parse_label(label)
    except ValueError:
        return None
    return None if number is None else (name, str(number))


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
    """Every version and submission, by name, then in the order they were submitted
    (:attr:`Version.order`: numbered versions keep the order of their numbers)."""
    found: list[Version] = []
    if not league.bots.is_dir():
        return found
    for bot in sorted(league.bots.iterdir()):
        of_bot = []
        for folder in bot.iterdir():
            path = folder / VERSION_FILE
            if (folder.name.isdigit() or _attempt_of(folder.name) is not None) \
                    and path.is_file():
                of_bot.append(msgspec.json.decode(path.read_bytes(), type=Version))
        found += sorted(of_bot, key=lambda v: v.order)
    return found


def _attempt_of(folder_name: str) -> int | None:
    rest = folder_name.removeprefix(ATTEMPT_PREFIX)
    return int(rest) if rest != folder_name and rest.isdigit() else None


def version_folder(league: LeagueDir, version: Version) -> Path:
    """Where ``version`` keeps its ``version.json`` and logs."""
    return league.bots / version.name / version.ref


def write_version(league: LeagueDir, version: Version) -> Path:
    """Write (or rewrite) a version's file atomically; returns its folder."""
    folder = version_folder(league, version)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / VERSION_FILE
    write_atomic(path, msgspec.json.format(msgspec.json.encode(version)) + b"\n")
    return folder


def next_number(league: LeagueDir, name: str) -> int:
    """The number the next accepted version of ``name`` gets (1 for a new bot)."""
    folder = league.bots / name
    if not folder.is_dir():
        return 1
    return max((int(p.name) for p in folder.iterdir() if p.name.isdigit()), default=0) + 1


def next_attempt(league: LeagueDir, name: str) -> int:
    """``K`` of the next submission of ``name``: one more than every submission so far,
    numbered or not (the numbered ones of an earlier arena count by their number)."""
    folder = league.bots / name
    if not folder.is_dir():
        return 1
    seen = [0]
    for path in folder.iterdir():
        k = _attempt_of(path.name)
        if k is not None:
            seen.append(k)
        elif path.name.isdigit():
            try:
                old = msgspec.json.decode((path / VERSION_FILE).read_bytes(), type=Version)
            except (OSError, msgspec.DecodeError):
                old = None
            seen.append(old.attempt if old is not None and old.attempt else int(path.name))
    return max(seen) + 1


def numbered(league: LeagueDir, version: Version) -> Version:
    """``version`` (a submission without a number) with the next number of its bot, its
    folder renamed from ``try-K`` to ``N`` with its logs; the caller holds the league's lock
    and writes the version afterwards."""
    given = msgspec.structs.replace(version, number=next_number(league, version.name))
    os.rename(version_folder(league, version), version_folder(league, given))
    return given


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
                   protocol=version.protocol, options=dict(version.options),
                   env=version_env(version))


def version_env(version: Version) -> dict[str, str]:
    """The variables a version's bot (and its build) gets besides the sandbox's own: its
    ``[env]``, and a PATH that searches its ``toolchain`` first."""
    env = dict(version.env)
    if version.toolchain:
        env["PATH"] = f"{version.toolchain}:{SANDBOX_PATH}"
    return env
