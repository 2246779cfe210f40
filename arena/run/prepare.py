"""A run directory's lock and its preparation for a (resumed) session, a tournament's or a
league night's.

The journal, the PGN, ``logs/``, the copy of the config and ``schedule.json`` (the fingerprint
that guards resume): their names are in :mod:`arena.rundir.layout`. Nothing here imports trio:
``arena run`` prepares the directory, and starts its first bots, before it imports trio.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from arena.atomicfile import write_atomic
from arena.errors import UserError
from arena.filelock import hold
from arena.formats.schedule import Schedule, ScheduledGame
from arena.rundir.journal import Journal
from arena.rundir.layout import RunDir
from arena.say import Say
from referee.process.botview import hide_from_bots


class ScheduleFile(msgspec.Struct):
    """What ``schedule.json`` holds: the fingerprint that guards resume, and the game list."""

    fingerprint: str
    total: int
    games: list[ScheduledGame]


def write_schedule_file(out: RunDir, schedule: Schedule) -> None:
    """Write ``schedule.json`` (whole or not at all). A knockout's or Swiss tournament's
    holds the rounds known so far: it is rewritten when a session starts and ends."""
    payload = ScheduleFile(schedule.fingerprint, schedule.total, list(schedule.games))
    write_atomic(out.schedule, msgspec.json.format(msgspec.json.encode(payload)))


def lock_run_dir(out: RunDir) -> int:
    """Take the run directory for this process until the returned descriptor is closed (or the
    process exits, even on SIGKILL: the kernel releases it): two runs appending to one journal
    would play the same games twice."""
    return hold(out.lock, f"{out.root} is in use by another 'arena run'; wait for it to "
                "finish or stop it, or choose another --output directory")


def prepare_run_dir(out: RunDir, warn: Say, *, config_text: str, config_path: Path,
                    schedule: Schedule | None, hide: Sequence[Path] = ()) -> Journal:
    """Create or reopen the output directory; with a ``schedule`` (a tournament's), refuse to
    mix two different schedules in it. ``config_text`` is the config copy (read from
    ``config_path``); ``hide`` are more folders no bot may see.

    Returns the open journal (repaired if its last line was torn). On a fresh directory the
    config copy and ``schedule.json`` are written first, so that a run killed at any moment
    can still be resumed. A league night has no schedule: its plan guards its resume.
    """
    out.root.mkdir(parents=True, exist_ok=True)
    rewrite = schedule is not None
    if schedule is not None and out.schedule.exists():
        try:
            stored = msgspec.json.decode(out.schedule.read_bytes(), type=ScheduleFile)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise UserError(
                f"{out.schedule}: unreadable ({exc}); use a new --output directory"
            ) from None
        if stored.fingerprint != schedule.fingerprint:
            raise UserError(
                f"{out.root} holds a run of a different schedule (fingerprint "
                f"{stored.fingerprint}, this config gives {schedule.fingerprint}): the game, "
                "bots, format, rounds, games per pairing, openings, seed or game options changed. "
                "Use a new --output directory, or undo the change to resume that run"
            )
        rewrite = stored.games != list(schedule.games)  # a knockout's or Swiss: more rounds
        if out.config.exists() and out.config.read_text(encoding="utf-8") != config_text:
            warn(
                f"{config_path} differs from the copy in {out.config} in ways that keep the "
                "schedule (time control, commands, concurrency...); resuming with the new config"
            )
    elif schedule is not None and out.journal.exists() and out.journal.stat().st_size > 0:
        raise UserError(
            f"{out.journal} exists but {out.schedule} does not: this directory was not made by "
            "'arena run'; use a new --output directory"
        )
    if not out.config.exists() or out.config.read_text(encoding="utf-8") != config_text:
        # Whole or not at all: a full disk must not leave a truncated copy behind.
        write_atomic(out.config, config_text)
    if schedule is not None and rewrite:
        write_schedule_file(out, schedule)
    out.logs.mkdir(exist_ok=True)
    hide_from_bots(out.root)  # the journal and logs, even inside a folder a bot sees
    for path in hide:
        hide_from_bots(path)
    journal = Journal.open(out.journal, warn)
    unknown = journal.ids() - set(schedule.ids()) if schedule is not None else set()
    if unknown:
        raise UserError(
            f"{out.journal} holds games that are not in this schedule "
            f"({', '.join(sorted(unknown)[:5])}); use a new --output directory"
        )
    return journal
