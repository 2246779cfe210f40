"""The queue of web submissions: each upload becomes ``arena league submit`` in a child process.

The pipeline is the command's own (unpack, store by hash, build in the sandbox, check-bot:
:mod:`arena.league.submit`), run out of the server's process, so that whatever an upload
does (a bomb unpacked, a build that loops, a check that hangs) costs the child, never the
server's memory or its event loop; the server only waits for the child and reads its output.

One folder per submission under ``submissions/<id>/``: ``job.json`` (who, what, its state
here), ``events.jsonl`` (the child's steps as typed events, ``arena league submit --events``:
submitted, building, checking, finished with the version's state, step and reason; decoded
with :func:`arena.league.submit.decode_event`, never parsed from text), ``progress.log``
(anything else the child wrote: its warnings, an ``arena: error:`` line) and, until the child
is done, the upload.

Rate limits: an author has at most ``[league] pending_per_author`` submissions waiting or
running; their submissions run one at a time, in order (a fair :class:`trio.Lock` per
author); and at most :data:`MAX_RUNNING` children run at once, whoever sent them.

A submission the server was stopped in the middle of is marked failed at the next start
("submit again"): its child was interrupted with it, and its version (if it took a number)
says so itself (:func:`arena.league.submit.submit` marks an interrupted version rejected).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any, Final, Literal

import msgspec
import trio

from arena.atomicfile import write_atomic
from arena.errors import UserError
from arena.league.submit import (
    Building,
    Checking,
    Finished,
    SubmitEvent,
    Submitted,
    decode_event,
)
from arena.leaguedir.directory import BUILD_LOG, CHECK_LOG, LeagueDir
from arena.leaguedir.versions import parse_label

MAX_RUNNING: Final = 2
"""Submissions processed at once, over all authors (a build may use a core)."""
JOB_FILE: Final = "job.json"
EVENTS_FILE: Final = "events.jsonl"
"""The child's steps, one JSON event per line (its stdout)."""
PROGRESS_LOG: Final = "progress.log"
"""Anything else the child wrote (its stderr)."""
UPLOAD_DIR: Final = "upload"
MAX_PROGRESS_BYTES: Final = 64 << 10
"""Bytes of ``progress.log`` (or of the events) read for the page (the first and the last
half of it)."""
INTERRUPT_GRACE_S: Final = 10.0
"""After Ctrl-C, how long a child may take to mark its version rejected before it is killed."""

JobState = Literal["queued", "running", "done", "failed"]


class QueueFull(UserError):
    """The author has as many submissions waiting as ``pending_per_author`` allows."""


class Job(msgspec.Struct, omit_defaults=True):
    """One web submission, as the server keeps it (``job.json``)."""

    id: str
    author: str
    bot: str
    filename: str
    submitted_at: float
    state: JobState = "queued"
    exit_status: int | None = None
    finished_at: float | None = None
    note: str = ""
    """The server's own word on a job it could not run to its end."""


def _job_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-", time.gmtime()) + secrets.token_hex(4)


class SubmissionQueue:
    """The jobs of one league, and the task that runs them (:meth:`run`)."""

    def __init__(self, league: LeagueDir, pending_per_author: int,
                 python: str = sys.executable) -> None:
        self.league = league
        self.pending_per_author = pending_per_author
        self.python = python
        self.jobs: dict[str, Job] = {}
        self._locks: dict[str, trio.Lock] = {}
        self._limiter = trio.CapacityLimiter(MAX_RUNNING)
        self._nursery: trio.Nursery | None = None
        self._load()

    # ------------------------------------------------------------------ the jobs on disk
    def folder(self, job: Job) -> Path:
        return self.league.submissions / job.id

    def upload_path(self, job: Job) -> Path:
        return self.folder(job) / UPLOAD_DIR / job.filename

    def _save(self, job: Job) -> None:
        write_atomic(self.folder(job) / JOB_FILE, msgspec.json.encode(job))

    def _load(self) -> None:
        """The jobs of earlier starts; those left unfinished are failed now."""
        if not self.league.submissions.is_dir():
            return
        for folder in sorted(self.league.submissions.iterdir()):
            try:
                job = msgspec.json.decode((folder / JOB_FILE).read_bytes(), type=Job)
            except (OSError, msgspec.DecodeError):
                continue
            if job.state in ("queued", "running"):
                job.state, job.finished_at = "failed", time.time()
                job.note = "the server stopped before this submission finished: submit again"
                shutil.rmtree(folder / UPLOAD_DIR, ignore_errors=True)
                self._save(job)
            self.jobs[job.id] = job

    # ------------------------------------------------------------------ adding
    def pending(self, author: str) -> int:
        return sum(1 for j in self.jobs.values()
                   if j.author == author and j.state in ("queued", "running"))

    def reserve(self, author: str, bot: str, filename: str) -> Job:
        """A new queued job (its folder made, its upload still to be written by the caller),
        or :class:`QueueFull`."""
        if self.pending(author) >= self.pending_per_author:
            raise QueueFull(f"{author} has {self.pending(author)} submissions waiting or "
                            f"running already (at most {self.pending_per_author}): wait for "
                            "one to finish")
        job = Job(id=_job_id(), author=author, bot=bot, filename=filename,
                  submitted_at=time.time())
        (self.folder(job) / UPLOAD_DIR).mkdir(parents=True)
        self.jobs[job.id] = job
        self._save(job)
        return job

    def drop(self, job: Job) -> None:
        """Forget a reserved job whose upload failed."""
        self.jobs.pop(job.id, None)
        shutil.rmtree(self.folder(job), ignore_errors=True)

    def start(self, job: Job) -> None:
        """Queue a reserved job whose upload is written."""
        if self._nursery is None:
            raise RuntimeError("the submission queue is not running")
        self._nursery.start_soon(self._process, job)

    # ------------------------------------------------------------------ running
    async def run(self) -> None:
        """Run queued jobs until cancelled (beside the web server)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            await trio.sleep_forever()

    def argv(self, job: Job) -> list[str]:
        return [self.python, "-u", "-m", "arena.cli", "league", "submit",
                str(self.league.root.resolve()), job.bot, str(self.upload_path(job).resolve()),
                "--author", job.author, "--events"]

    async def _process(self, job: Job) -> None:
        lock = self._locks.setdefault(job.author, trio.Lock())
        async with lock, self._limiter:
            job.state = "running"
            self._save(job)
            folder = self.folder(job)
            with open(folder / EVENTS_FILE, "wb") as events, \
                    open(folder / PROGRESS_LOG, "wb") as log:
                try:
                    done = await trio.run_process(
                        self.argv(job), stdin=None, stdout=events, stderr=log, check=False,
                        deliver_cancel=_interrupt_then_kill)
                    job.exit_status = done.returncode
                    job.state = "done"
                except OSError as exc:  # the machine could not start Python
                    job.state, job.note = "failed", f"could not start the submission: {exc}"
                finally:
                    if job.state == "running":
                        job.state, job.note = "failed", "the server stopped: submit again"
                    job.finished_at = time.time()
                    shutil.rmtree(self.folder(job) / UPLOAD_DIR, ignore_errors=True)
                    self._save(job)

    # ------------------------------------------------------------------ reading
    def of_author(self, author: str) -> list[Job]:
        """The author's jobs, newest first."""
        return sorted((j for j in self.jobs.values() if j.author == author),
                      key=lambda j: j.submitted_at, reverse=True)

    def status(self, job: Job) -> dict[str, Any]:
        """What the page shows of a job: its stage, the progress lines, and once done the
        version's state, step, reason and logs (from the child's events)."""
        events = self.events(job)
        # The child names files by absolute path: shown relative to the league.
        root = f"{self.league.root.resolve()}/"
        lines = [line.replace(root, "") for line in
                 [event.text() for event in events]
                 + _progress_lines(self.folder(job) / PROGRESS_LOG)]
        label, stage, seen = "", "queued" if job.state == "queued" else "started", []
        step = reason = ""
        for event in events:
            label = event.label
            stage = stage_of(event)
            if stage not in seen:
                seen.append(stage)
            if isinstance(event, Finished):
                step, reason = event.step, event.reason
        if job.state in ("done", "failed") and stage not in ("accepted", "rejected"):
            stage = "failed"
            reason = job.note or _error_line(lines) or f"the submission exited with status " \
                f"{job.exit_status}"
        logs = {}
        if label:
            name, number = parse_label(label)
            for log in (BUILD_LOG, CHECK_LOG):
                if (self.league.version_dir(name, number or 0) / log).is_file():
                    logs[log] = f"/authors/{job.author}/logs/{name}/{number}/{log}"
        return {"id": job.id, "bot": job.bot, "filename": job.filename,
                "submitted_at": job.submitted_at, "state": job.state, "stage": stage,
                "seen": seen, "label": label, "step": step, "reason": reason, "logs": logs,
                "lines": lines[-40:]}

    def events(self, job: Job) -> list[SubmitEvent]:
        """The child's events so far (a torn last line, the child still writing it, is left
        for the next look; a line that is no event is not the child's and is skipped)."""
        found: list[SubmitEvent] = []
        for line in _progress_lines(self.folder(job) / EVENTS_FILE, cut=None):
            try:
                found.append(decode_event(line))
            except msgspec.DecodeError:
                continue
        return found


def stage_of(event: SubmitEvent) -> str:
    """The page's stage for an event: submitted, building, checking, accepted, rejected."""
    match event:
        case Building():
            return "building"
        case Checking():
            return "checking"
        case Finished(state="active"):
            return "accepted"
        case Finished(state=state):
            return state
        case Submitted() | _:
            return "submitted"


def _progress_lines(path: Path, cut: int | None = 500) -> list[str]:
    """The lines of a progress log, the middle of a huge one left out, each cut to ``cut``
    characters (None: whole)."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size <= MAX_PROGRESS_BYTES:
                data = f.read()
            else:
                head = f.read(MAX_PROGRESS_BYTES // 2)
                f.seek(size - MAX_PROGRESS_BYTES // 2)
                data = head + b"\n[...]\n" + f.read()
    except OSError:
        return []
    return [line[:cut] for line in data.decode("utf-8", errors="replace").splitlines()]


def _error_line(lines: list[str]) -> str:
    """The child's ``arena: error: ...`` line, without its prefix."""
    for line in reversed(lines):
        if line.startswith("arena: error: "):
            return line.removeprefix("arena: error: ")
    return ""


async def _interrupt_then_kill(process: trio.Process) -> None:
    """Cancel a child as Ctrl-C would (its version is then marked rejected), then kill it."""
    process.send_signal(signal.SIGINT)
    with trio.move_on_after(INTERRUPT_GRACE_S):
        await process.wait()
        return
    process.kill()
