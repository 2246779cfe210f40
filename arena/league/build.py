"""A submission's build: its ``build`` argv run once in its copied folder, contained like a bot.

The build is a bot's first process in all but its folder: the same spawn (an unprivileged uid
of its own, never root; bubblewrap with no network but a loopback, a read-only system and
private /tmp; a cgroup), but its own folder bound read-write, and limits of its own: wall
time ``build_seconds`` and memory ``build_memory_mb`` from ``[league]``, processes
:data:`BUILD_PROCESSES`. Its stdout and stderr both go to ``build.log``, the first
:data:`MAX_LOG_BYTES` kept. A build that exits with a status other than 0, is killed, or
outlives its time is a failure whose one-line reason names the log.

Without bubblewrap (``sandbox = "uid"``, or ``auto`` on a machine without it) the build runs
under its own uid and mount namespace, but sees the network, as such bots do.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from arena.settings.botcommand import PYTHON_PLACEHOLDER, resolve_program_cwd_first
from referee.botspec import BotSpec, Limits, Sandbox
from referee.process.boterrors import BotStartError
from referee.process.faults import SandboxSetupError
from referee.process.spawn import launch

MAX_LOG_BYTES: Final = 1 << 20
"""Bytes of a build's output kept in ``build.log``; the rest is counted, not stored."""
BUILD_PROCESSES: Final = 256
"""Processes and threads of a build at once (``make -j`` with compilers fits)."""
BUILD_TMP_MB: Final = 512
"""Its private /tmp (compilers' intermediate files; counted in its memory)."""
BUILD_FILE_MB: Final = 512
"""The largest file a build may write."""
EXIT_GRACE_S: Final = 1.0
"""How long the log is read after the build exited, for what its children still write."""


@dataclass(frozen=True)
class BuildResult:
    """How a build went: ``ok``, and when not, one line saying why."""

    ok: bool
    seconds: float
    reason: str = ""


def build_spec(name: str, argv: list[str], folder: Path, memory_mb: int,
               sandbox: Sandbox) -> BotSpec:
    """The build as a bot to launch: ``argv`` (``{python}`` replaced, its program found in the
    folder first, then on PATH) in ``folder``, with the build's limits."""
    cmd = [arg.replace(PYTHON_PLACEHOLDER, sys.executable) for arg in argv]
    program = resolve_program_cwd_first(cmd[0], folder)
    if program is not None:
        cmd[0] = program
    limits = Limits(memory_mb=memory_mb, processes=BUILD_PROCESSES, file_mb=BUILD_FILE_MB,
                    tmp_mb=BUILD_TMP_MB)
    return BotSpec(name=name, cmd=cmd, cwd=str(folder), limits=limits, sandbox=sandbox)


def run_build(spec: BotSpec, log_path: Path, seconds: float, shown_log: str) -> BuildResult:
    """Run the build of ``spec`` for at most ``seconds``, its output to ``log_path``; always
    ends it (and whatever it started) before returning. ``shown_log`` is the log's name in
    the reason (relative to the league)."""
    started = time.monotonic()
    with open(log_path, "wb") as log:
        log.write(f"[arena] build: {' '.join(spec.cmd)}\n[arena] in {spec.cwd}\n".encode())
        log.flush()
        try:
            launched = launch(spec, capture_stderr=True, writable=True)
        except (BotStartError, SandboxSetupError) as exc:
            log.write(f"[arena] {exc}\n".encode())
            return BuildResult(False, 0.0, f"build could not start: {exc}")
        try:
            os.close(launched.stdin_fd)  # the build reads nothing: end of file at once
            launched.stdin_fd = -1  # closed: discard() must not close the number again
            kept = _drain(launched.stdout_fd, launched.stderr_fd, launched.popen, log,
                          started + seconds)
            status = launched.popen.poll()
            oom = launched.cgroup is not None and launched.cgroup.oom_kills() > 0
        finally:
            launched.discard()  # kills what is left of its tree, frees cgroup and uid
        took = time.monotonic() - started
        if kept.dropped:
            log.write(f"\n[arena] {kept.dropped} more bytes of output not kept (the log "
                      f"keeps {MAX_LOG_BYTES} bytes)\n".encode())
        if status is None:
            reason = f"build still running after {seconds:g} s: killed; see {shown_log}"
        elif status == 0:
            log.write(f"[arena] build succeeded in {took:.1f} s\n".encode())
            return BuildResult(True, took)
        else:
            reason = f"build {_describe(status, launched.mode, oom, spec)} after {took:.1f} s; " \
                f"see {shown_log}"
        log.write(f"[arena] {reason}\n".encode())
        return BuildResult(False, took, reason)


def _describe(status: int, mode: str, oom: bool, spec: BotSpec) -> str:
    if mode == "bwrap" and status > 128:
        status = 128 - status  # bubblewrap reports a signal death as 128 + signal
    memory = (f" (its memory limit of {spec.limits.memory_mb} MiB was reached)" if oom
              else "")
    if status < 0:
        return f"was killed by signal {-status}{memory}"
    return f"exited with status {status}{memory}"


@dataclass
class _Kept:
    written: int = 0
    dropped: int = 0


def _drain(out_fd: int, err_fd: int | None, proc: subprocess.Popen[bytes], sink: BinaryIO,
           deadline: float) -> _Kept:
    """Copy the build's stdout and stderr into ``log`` as they come, until both pipes end (or
    :data:`EXIT_GRACE_S` after the build exited: a child that kept them open is not waited
    for) or the deadline passes."""
    kept = _Kept()
    fds = [fd for fd in (out_fd, err_fd) if fd is not None]
    exited_at: float | None = None
    with selectors.DefaultSelector() as selector:
        for fd in fds:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        while fds:
            now = time.monotonic()
            if now >= deadline:
                break
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > EXIT_GRACE_S:
                break
            for key, _ in selector.select(min(deadline - now, 0.1)):
                fd = int(key.fd)
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    selector.unregister(fd)
                    fds.remove(fd)
                    continue
                room = MAX_LOG_BYTES - kept.written
                sink.write(chunk[:room])
                kept.written += min(room, len(chunk))
                kept.dropped += max(0, len(chunk) - room)
            sink.flush()
    if not fds:  # both pipes ended: wait for the exit itself within the deadline
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    return kept
