"""The session log of a run directory (``sessions.jsonl``): when each ``arena run`` started and
ended, with which arena version and concurrency, so a report can say when and how a run was
played (a resumed run has several sessions). One JSON line per event, appended and flushed;
a failure to write it is a warning, never a lost tournament."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import msgspec

from arena.rundir.layout import RunDir
from arena.say import Say


class Session(msgspec.Struct, omit_defaults=True):
    """One line of ``sessions.jsonl``."""

    event: Literal["start", "end"]
    at: float
    """Unix time of the event."""
    arena_version: str = ""
    concurrency: int = 0
    """Games at once in this session (``start`` lines)."""


def arena_version() -> str:
    from arena import __version__

    return __version__


def log_session(
    run_dir: Path, event: Literal["start", "end"], concurrency: int, warn: Say
) -> None:
    line = Session(event, time.time(), arena_version(), concurrency)
    path = RunDir(run_dir).sessions
    try:
        with path.open("ab") as fh:
            fh.write(msgspec.json.encode(line) + b"\n")
    except OSError as exc:
        warn(f"cannot write {path}: {exc.strerror or exc}")


def read_sessions(run_dir: Path) -> tuple[list[Session], list[str]]:
    """The sessions of ``run_dir`` and a problem per unreadable line (skipped)."""
    path = RunDir(run_dir).sessions
    sessions: list[Session] = []
    problems: list[str] = []
    if not path.is_file():
        return sessions, problems
    for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            sessions.append(msgspec.json.decode(raw, type=Session))
        except (msgspec.DecodeError, msgspec.ValidationError):
            problems.append(f"{path}:{number}: not a session line; skipped")
    return sessions, problems
