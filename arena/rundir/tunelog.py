"""A tune's log (``tune.jsonl``): its start, each iteration planned and its update, the tuned
values and the proof's games, as typed records, one per line.

The journal holds the games; this log holds what SPSA made of them, so that a tune stopped
anyhow (SIGKILL included) resumes without losing or repeating an iteration:

- :class:`Planned` is written (fsync'd) before an iteration's two games are handed out, with
  the values each side plays: a resume plays the missing games of a planned iteration with
  exactly those values;
- :class:`Updated` is written once both games are journaled, with ``θ`` after the update:
  ``θ`` is the last one written, and an iteration whose games are journaled but whose update
  is not is updated on resume, once;
- :class:`Tuned` closes the tuning: the values the proof plays (and the bots file gets).

One reader (:func:`read_tune_log`), with the journal's rule for the last line: a line without
its newline is a record still being written (a killed tune's) and is left out; a line that is
not a record elsewhere is an error naming the file and the line.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from arena.errors import UserError
from arena.rundir.textlines import LastLine, LineReader

Value = float | int


class Began(msgspec.Struct, tag="began", frozen=True, omit_defaults=True):
    """The tune's settings as it began (a resume checks them)."""

    bot: str
    options: list[str]
    start: list[float]
    c: list[float]
    """Each option's ``c_end`` (the report draws the trajectories in units of it)."""
    iterations: int
    seed: int
    at: float
    """When the first session began (Unix seconds): a ``minutes`` budget counts from it."""
    proof: list[float] = []
    """The proof's ``elo0, elo1, alpha, beta`` (logistic Elo), for the report's LLR chart."""


class Planned(msgspec.Struct, tag="planned", frozen=True, omit_defaults=True):
    """Iteration ``k``, handed out: its signs and what each side plays."""

    k: int
    flips: list[int]
    plus: list[Value]
    minus: list[Value]
    games: list[str]
    """Its two game ids: the ``+`` side first, then second."""


class Updated(msgspec.Struct, tag="updated", frozen=True, omit_defaults=True):
    """Iteration ``k``'s games are journaled: its result and ``θ`` after the update."""

    k: int
    result: float
    """The ``+`` side's wins minus losses over the pair."""
    theta: list[float]
    games: int
    """Tuning games journaled when it was written (the report's x axis)."""


class Tuned(msgspec.Struct, tag="tuned", frozen=True, omit_defaults=True):
    """The tuning is over: the values the tuned side plays from now on."""

    theta: list[float]
    values: list[Value]
    iterations: int
    """Iterations updated (fewer than planned when a deadline ended the tune)."""


TuneRecord = Began | Planned | Updated | Tuned
_decoder = msgspec.json.Decoder(TuneRecord)


@dataclass
class TuneLog:
    """Everything a tune's log says, read once."""

    began: Began | None = None
    planned: dict[int, Planned] = field(default_factory=dict)
    updated: list[Updated] = field(default_factory=list)
    """In the order they were written: ``θ`` is the last one's."""
    tuned: Tuned | None = None

    @property
    def updated_ks(self) -> set[int]:
        return {u.k for u in self.updated}


def read_tune_log(path: Path) -> TuneLog:
    """The log at ``path`` (an empty one when there is no file)."""
    log = TuneLog()
    if not path.is_file():
        return log
    for line in LineReader(path, LastLine.PENDING):
        try:
            record = _decoder.decode(line.data)
        except msgspec.DecodeError as exc:
            raise UserError(f"{path}:{line.number}: not a tune record ({exc})") from None
        match record:
            case Began():
                log.began = log.began or record
            case Planned():
                log.planned[record.k] = record
            case Updated():
                log.updated.append(record)
            case Tuned():
                log.tuned = record
    return log


def append_tune_records(path: Path, records: Sequence[TuneRecord]) -> None:
    """Add records at the end of the log and make them durable before returning (an
    iteration is planned before its games are handed out)."""
    data = b"".join(msgspec.json.encode(r) + b"\n" for r in records)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):  # no torn line left behind
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)
