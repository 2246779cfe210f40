"""Starting a bot's program: its argv, a clean environment, its limits, and the spawn itself.

A bot is started from its :class:`BotSpec` as an argv list (never a shell) in a clean
environment (PATH, HOME, LANG plus ``spec.env``), in its own session and process group.

* The bot gets ``PR_SET_PDEATHSIG = SIGKILL``, so it dies with the referee even when the
  referee is SIGKILLed and cannot clean up. Linux sends that signal when the *thread* that
  forked the child ends, so bots are forked by one long-lived spawner thread
  (:func:`spawn`), never by a pooled worker thread that may exit while the bot runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import resource
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import IO, Any, Final

import trio

from referee.botspec import BotSpec, Limits
from referee.errors import BotStartError
from referee.sandbox import sandbox_argv

__all__ = ["BotStartError", "ChildProcess", "clean_environment", "resolve_command", "spawn",
           "start_child"]

_ENV_KEEP: Final = ("PATH", "HOME", "LANG")
_PR_SET_PDEATHSIG: Final = 1


def clean_environment(spec: BotSpec) -> dict[str, str]:
    """PATH, HOME and LANG from the arena's environment, then the spec's own variables."""
    env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
    env.update(spec.env)
    return env


def _limit_setter(limits: Limits) -> Callable[[], None]:
    """A preexec function applying ``limits`` with setrlimit in the child, before exec."""
    pairs: list[tuple[int, int]] = []
    if limits.memory_mb is not None:
        pairs.append((resource.RLIMIT_AS, limits.memory_mb << 20))
    if limits.cpu_seconds is not None:
        pairs.append((resource.RLIMIT_CPU, limits.cpu_seconds))
    if limits.processes is not None:
        pairs.append((resource.RLIMIT_NPROC, limits.processes))
    if limits.file_mb is not None:
        pairs.append((resource.RLIMIT_FSIZE, limits.file_mb << 20))

    prctl = _prctl()
    parent = os.getpid()

    def apply() -> None:
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # the referee died before prctl: nobody will read us
                os.kill(os.getpid(), signal.SIGKILL)
        for which, value in pairs:
            _soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            # CPU: SIGXCPU at the soft limit names the cause; SIGKILL a second later if caught.
            grace = 1 if which == resource.RLIMIT_CPU else 0
            resource.setrlimit(which, (value, value + grace if hard == resource.RLIM_INFINITY
                                       else hard))

    return apply


def _prctl() -> Any:
    """libc's ``prctl``, looked up in the parent (never dlopen in a forked child), or None."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


class _Spawner:
    """The one thread that forks bots. PR_SET_PDEATHSIG fires when the forking *thread* ends,
    so forking from trio's pooled worker threads (which exit after 10 s idle) would kill
    healthy bots; this daemon thread lives as long as the referee process."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="bot-spawner",
                                                daemon=True)
                self._thread.start()
        self._jobs.put(job)

    def _loop(self) -> None:
        while True:
            self._jobs.get()()


_SPAWNER = _Spawner()


async def spawn(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **options)`` run on the spawner thread; not cancellable (a
    process started for a cancelled caller would have no owner), but it takes milliseconds."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    box: list[Any] = []

    def job() -> None:
        try:
            box.append(subprocess.Popen(argv, **options))
        except BaseException as exc:  # handed back to the trio task below
            box.append(exc)
        token.run_sync_soon(done.set)

    _SPAWNER.submit(job)
    with trio.CancelScope(shield=True):
        await done.wait()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]  # type: ignore[no-any-return]


class ChildProcess:
    """The running program behind a :class:`BotProcess`: pid, non-blocking pipe streams, and
    an async ``wait`` on a pidfd (what ``trio.Process`` offers, for a child we forked)."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin_fd: int, stdout_fd: int) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin = trio.lowlevel.FdStream(stdin_fd)
        self.stdout = trio.lowlevel.FdStream(stdout_fd)
        self._pidfd: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(popen.pid)
        self._wait_lock = trio.Lock()

    def poll(self) -> int | None:
        return self.popen.poll()

    async def wait(self) -> int:
        """Wait for the exit and reap; several tasks may wait at once."""
        async with self._wait_lock:
            if self.popen.returncode is None:
                if self._pidfd is not None:
                    await trio.lowlevel.wait_readable(self._pidfd)
                else:  # pragma: no cover - kernels before 5.3
                    while self.popen.poll() is None:
                        await trio.sleep(0.01)
            code = self.popen.wait()
        self._close_pidfd()
        return code

    def close(self) -> None:
        """Release the pidfd (call once the process is reaped or no longer waited for)."""
        self._close_pidfd()

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None


def resolve_command(spec: BotSpec) -> list[str]:
    """argv with ``cmd[0]`` resolved against ``cwd`` when it names a file there, wrapped in
    bubblewrap when the spec asks for the sandbox."""
    argv = list(spec.cmd)
    if not argv:
        raise BotStartError(f"bot {spec.name!r} has an empty command")
    if spec.cwd and os.sep in argv[0] and not os.path.isabs(argv[0]):
        candidate = os.path.join(spec.cwd, argv[0])
        if os.path.exists(candidate):
            argv[0] = os.path.abspath(candidate)
    if spec.sandbox == "bwrap":
        argv = sandbox_argv(spec, argv)
    return argv


async def start_child(spec: BotSpec, stderr: IO[bytes] | None) -> ChildProcess:
    """Start the bot's program with pipes for its stdin and stdout and ``stderr`` (or
    nothing) as its stderr; raises :class:`BotStartError` naming the bot and the cause."""
    argv = resolve_command(spec)
    pipes: list[int] = []
    try:
        child_in, our_in = os.pipe()
        pipes += (child_in, our_in)
        our_out, child_out = os.pipe()
        pipes += (our_out, child_out)
        popen = await spawn(
            argv,
            stdin=child_in,
            stdout=child_out,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            cwd=spec.cwd,
            env=clean_environment(spec),
            start_new_session=True,
            preexec_fn=_limit_setter(spec.limits),
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        for fd in pipes:
            os.close(fd)
        raise BotStartError(f"cannot start bot {spec.name!r} ({argv!r}): {exc}") from exc
    os.close(child_in)
    os.close(child_out)
    return ChildProcess(popen, our_in, our_out)
