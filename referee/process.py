"""A bot's child process: start it safely, read and write its lines, and end it with its children.

A bot is started from its :class:`BotSpec` as an argv list (never a shell) in a clean
environment (PATH, HOME, LANG plus ``spec.env``), in its own session and process group, with
setrlimit limits applied in the child; stderr goes to a log file. Lines are read with a cap
(:data:`MAX_LINE_BYTES`): an overlong line is counted and dropped, not stored. Shutdown sends
``quit``, waits briefly, then SIGTERMs and SIGKILLs the whole process group, always reaping,
and runs shielded so that a cancelled game still leaves no process behind.

Containment, and where it ends (no cgroups needed):

* The bot gets ``PR_SET_PDEATHSIG = SIGKILL``, so it dies with the referee even when the
  referee is SIGKILLed and cannot clean up. Linux sends that signal when the *thread* that
  forked the child ends, so bots are forked by one long-lived spawner thread
  (:func:`_spawn`), never by a pooled worker thread that may exit while the bot runs.
* At shutdown the bot's descendants are listed from ``/proc`` before any signal, and each one
  still alive after the group kill is SIGKILLed too: a child that called ``setsid()`` to leave
  the group is caught this way while it is still a descendant of the bot.
* Best effort only: a daemon that double-forked (its parent exited, so it was reparented to
  init) before the shutdown is no longer anyone's descendant and escapes. ``sandbox =
  "bwrap"`` closes that gap: the bot runs in its own PID namespace, and everything in it dies
  with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import resource
import shutil
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, Final

import trio

from protocol.lines import MAX_LINE_BYTES, BadLine, decode_line
from referee.botspec import BotSpec, Limits

QUIT_GRACE_S: Final = 0.5
"""How long a bot may take to exit after ``quit`` before it is sent SIGTERM."""
TERM_GRACE_S: Final = 0.5
"""How long after SIGTERM before SIGKILL."""
TRANSCRIPT_LINES: Final = 64
"""Lines of the conversation kept for error messages and ``check-bot`` output."""
_ENV_KEEP: Final = ("PATH", "HOME", "LANG")
TRANSCRIPT_CHARS: Final = 300
"""Longest transcript entry; a longer line is cut and its length noted (memory stays bounded)."""
_PR_SET_PDEATHSIG: Final = 1


class BotStartError(Exception):
    """The bot's program could not be started (missing file, not executable, bad cwd)."""


class BotExited(Exception):
    """The bot closed its output or exited while a line was expected."""


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


async def _spawn(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
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


def _proc_stat(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, process group, start time) from /proc/PID/stat; None if gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] in (b"Z", b"X"):
        return None
    return int(fields[1]), int(fields[2]), int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every live descendant of ``pid`` (children, theirs, ...) -> its start time, from /proc."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = _proc_stat(int(entry))
        if stat is not None:
            children.setdefault(stat[0], []).append(int(entry))
            started[int(entry)] = stat[2]
    found: dict[int, int] = {}
    todo = list(children.get(pid, ()))
    while todo:
        child = todo.pop()
        if child not in found:
            found[child] = started[child]
            todo.extend(children.get(child, ()))
    return found


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


def sandbox_argv(spec: BotSpec, argv: list[str]) -> list[str]:
    """The bot under bubblewrap: the whole file system read-only, a private /tmp, a private
    writable working directory, no network, its own PID namespace (everything in it dies with
    it), and no new session, so that the referee's process-group shutdown still reaches it.

    The working directory is a fresh tmpfs at the same path with each of its entries bound
    read-only into it: the bot finds its files where they are, cannot change them, and may
    create new files there, which only it sees and which vanish with it (bwrap 0.8 has no
    overlay mounts). Entries created after the start are not seen."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise BotStartError(f"bot {spec.name!r} asks for sandbox = 'bwrap' but bwrap is not "
                            "installed (apt-get install bubblewrap)")
    cwd = os.path.abspath(spec.cwd) if spec.cwd else os.getcwd()
    mounts = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for root in _tmp_roots([*argv, cwd]):
        mounts += ["--ro-bind", root, root]  # the private /tmp must not hide the bot itself
    if cwd == "/":
        mounts += ["--chdir", cwd]
    else:
        mounts += ["--tmpfs", cwd]
        try:
            names = sorted(os.listdir(cwd))
        except OSError as exc:
            raise BotStartError(f"bot {spec.name!r}: cannot list its directory {cwd}: "
                                f"{exc.strerror or exc}") from None
        for name in names:
            path = os.path.join(cwd, name)
            if os.path.islink(path):
                mounts += ["--symlink", os.readlink(path), path]
            else:
                mounts += ["--ro-bind", path, path]
        mounts += ["--chdir", cwd]
    return [bwrap, *mounts, "--unshare-all", "--die-with-parent", "--", *argv]


def _tmp_roots(paths: list[str]) -> list[str]:
    """The top folders under /tmp (``/tmp/X``) that hold any of ``paths`` or their targets: a
    project cloned under /tmp keeps its interpreter, virtualenv and bot files in view, read-only,
    under the sandbox's private /tmp."""
    roots: set[str] = set()
    for path in paths:
        if not os.path.isabs(path):
            continue
        for candidate in (path, os.path.realpath(path)):
            parts = candidate.split("/")
            if len(parts) > 2 and parts[1] == "tmp" and parts[2] and os.path.exists(candidate):
                roots.add(f"/tmp/{parts[2]}")
    return sorted(roots)


def _clip(line: str) -> str:
    if len(line) <= TRANSCRIPT_CHARS:
        return line
    return f"{line[:TRANSCRIPT_CHARS]}... ({len(line)} chars)"


class BotProcess:
    """A running bot: line I/O over its pipes plus a guaranteed, group-wide shutdown."""

    def __init__(self, spec: BotSpec, process: ChildProcess,
                 stderr_file: BinaryIO | None) -> None:
        self.spec = spec
        self.process = process
        self._stderr_file = stderr_file
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._stdin_fd: int = process.stdin.fileno()
        self._stdin_closed = False
        self._stdout = process.stdout
        self._buffer = bytearray()
        self._scan_from = 0
        self._dropping = False
        self._eof = False
        self.dropped_lines = 0
        """Overlong lines seen (each counted once, its bytes thrown away)."""
        self.dropped_bytes = 0
        """Bytes of overlong lines read and thrown away (counted, never stored)."""
        self._line_dropped = 0
        self.transcript: deque[str] = deque(maxlen=TRANSCRIPT_LINES)
        """Recent lines both ways, ``> `` sent and ``< `` received."""
        self.closed = False

    @property
    def pid(self) -> int:
        return self.process.pid

    @classmethod
    async def start(cls, spec: BotSpec, stderr_path: Path | None = None) -> BotProcess:
        """Start the bot; raises :class:`BotStartError` naming the bot and the cause."""
        argv = resolve_command(spec)
        stderr_file = None
        pipes: list[int] = []
        try:
            if stderr_path is not None:
                stderr_path.parent.mkdir(parents=True, exist_ok=True)
                stderr_file = open(stderr_path, "ab")  # noqa: SIM115 - closed in aclose()
            child_in, our_in = os.pipe()
            pipes += (child_in, our_in)
            our_out, child_out = os.pipe()
            pipes += (our_out, child_out)
            popen = await _spawn(
                argv,
                stdin=child_in,
                stdout=child_out,
                stderr=stderr_file if stderr_file is not None else subprocess.DEVNULL,
                cwd=spec.cwd,
                env=clean_environment(spec),
                start_new_session=True,
                preexec_fn=_limit_setter(spec.limits),
                close_fds=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            for fd in pipes:
                os.close(fd)
            if stderr_file is not None:
                stderr_file.close()
            raise BotStartError(f"cannot start bot {spec.name!r} ({argv!r}): {exc}") from exc
        os.close(child_in)
        os.close(child_out)
        return cls(spec, ChildProcess(popen, our_in, our_out), stderr_file)

    # ----- lines ----------------------------------------------------------------------------
    async def send(self, text: str) -> None:
        """Write one or more lines (``text`` without the final newline) in one write.

        Raises :class:`BotExited` when the pipe is closed."""
        for line in text.split("\n"):
            self.transcript.append("> " + _clip(line))
        if self._stdin_closed:  # the fd number may already belong to another file
            raise BotExited(f"bot {self.spec.name!r}: its input is already closed")
        data = (text + "\n").encode()
        try:
            # Fast path: one direct write to the non-blocking pipe, which almost always takes
            # the whole line; trio's send_all (a scheduler pass first) only for the rest.
            written = os.write(self._stdin_fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            raise BotExited(f"bot {self.spec.name!r} closed its input ({exc})") from None
        if written < len(data):
            try:
                await self._stdin.send_all(data[written:])
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                raise BotExited(f"bot {self.spec.name!r} closed its input ({exc})") from None

    async def readline(self) -> str | BadLine:
        """The next line: text, or a :class:`BadLine` (not UTF-8, or longer than the cap).

        Raises :class:`BotExited` at end of output. Cancellation leaves the buffer intact."""
        while True:
            newline = self._buffer.find(b"\n", self._scan_from)
            if newline >= 0:
                self._scan_from = 0
                if self._dropping:  # the end of an overlong line, reported when it overflowed
                    self.dropped_bytes += newline
                    self._line_dropped += newline
                    self._log_dropped("ended")
                    del self._buffer[: newline + 1]
                    self._dropping = False
                    continue
                raw = bytes(self._buffer[: min(newline, MAX_LINE_BYTES + 1)])
                del self._buffer[: newline + 1]
                if newline > MAX_LINE_BYTES:
                    self.dropped_lines += 1
                    self.dropped_bytes += newline
                    self._line_dropped = newline
                    self._log_dropped("ended")
                    return self._record(BadLine(b"", f"line longer than {MAX_LINE_BYTES} bytes"))
                return self._record(decode_line(raw))
            if len(self._buffer) > MAX_LINE_BYTES:
                # Report an overlong line as soon as it overflows, not at its end: a flooding
                # bot may never end it. The rest of it is read and thrown away.
                self.dropped_bytes += len(self._buffer)
                self._line_dropped = self._line_dropped * self._dropping + len(self._buffer)
                self._buffer.clear()
                self._scan_from = 0
                if not self._dropping:
                    self._dropping = True
                    self.dropped_lines += 1
                    return self._record(BadLine(b"", f"line longer than {MAX_LINE_BYTES} bytes"))
            self._scan_from = len(self._buffer)
            if self._eof:
                if self._buffer and not self._dropping:
                    raw = bytes(self._buffer)
                    self._buffer.clear()
                    self._scan_from = 0
                    return self._record(decode_line(raw))
                if self._dropping:
                    self.dropped_bytes += len(self._buffer)
                    self._line_dropped += len(self._buffer)
                    self._buffer.clear()
                    self._dropping = False
                    self._log_dropped("cut by the end of the output")
                raise BotExited(f"bot {self.spec.name!r} closed its output")
            try:
                chunk = await self._stdout.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                chunk = b""
            if not chunk:
                self._eof = True
            self._buffer += chunk

    def _log_dropped(self, how: str) -> None:
        """Note a dropped overlong line in the bot's stderr log: counted, never stored."""
        if self._stderr_file is not None and not self._stderr_file.closed:
            note = (f"[arena] dropped a stdout line of {self._line_dropped} bytes ({how}; "
                    f"the limit is {MAX_LINE_BYTES})\n")
            with contextlib.suppress(OSError):
                self._stderr_file.write(note.encode())
                self._stderr_file.flush()
        self._line_dropped = 0

    def _record(self, line: str | BadLine) -> str | BadLine:
        self.transcript.append("< " + (_clip(line) if isinstance(line, str) else repr(line)))
        return line

    def exit_status(self) -> int | None:
        """The exit code (negative = signal) if the process has ended, else None."""
        return self.process.poll()

    def describe_exit(self) -> str:
        code = self.exit_status()
        if code is None:
            return "still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"

    async def wait_exit(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the process to exit; its code or None."""
        with trio.move_on_after(timeout):
            await self.process.wait()
        return self.exit_status()

    # ----- shutdown -------------------------------------------------------------------------
    async def aclose(self, *, send_quit: bool = True) -> None:
        """End the bot and every process in its group, then reap it. Never raises; shielded."""
        if self.closed:
            return
        self.closed = True
        with trio.CancelScope(shield=True):
            # Listed before anything can exit: once the bot is gone, a child that left its
            # process group (setsid) is no longer anyone's descendant that we could find.
            tree = descendants(self.process.pid)
            if send_quit and self.process.poll() is None:
                with contextlib.suppress(BotExited), trio.move_on_after(QUIT_GRACE_S):
                    await self.send("quit")
            self._stdin_closed = True
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError, OSError):
                await self._stdin.aclose()
            if self.process.poll() is None:
                await self.wait_exit(QUIT_GRACE_S if send_quit else 0.0)
            if self.process.poll() is None:
                self._signal_group(signal.SIGTERM)
                await self.wait_exit(TERM_GRACE_S)
            if self.process.poll() is None:
                self._signal_group(signal.SIGKILL)
                await self.process.wait()
            # The leader is gone; its group may still hold children. The group id cannot be
            # reused while any member lives, so this reaches only the bot's own descendants.
            self._signal_group(signal.SIGKILL)
            _kill_escaped(tree)
            self.process.close()  # a bot that exited by itself was never waited for
            with contextlib.suppress(trio.ClosedResourceError, OSError):
                await self._stdout.aclose()
            if self._stderr_file is not None:
                self._stderr_file.close()
                _remove_if_empty(Path(self._stderr_file.name))

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)


def _kill_escaped(tree: dict[int, int]) -> None:
    """SIGKILL each listed descendant still alive (the group kill missed those that left the
    group), with its own group and its descendants. The start time guards against a pid
    reused since the listing."""
    for pid, started in tree.items():
        stat = _proc_stat(pid)
        if stat is None or stat[2] != started:
            continue
        more = descendants(pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            if stat[1] == pid:  # it leads its own group (setsid/setpgid): the group too
                os.killpg(pid, signal.SIGKILL)
        for other in more:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(other, signal.SIGKILL)


def _remove_if_empty(path: Path) -> None:
    """A bot that wrote nothing to stderr leaves no log file (one per game adds up)."""
    with contextlib.suppress(OSError):
        if path.stat().st_size == 0:
            path.unlink()
