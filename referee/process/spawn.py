"""Starting a bot's program: its argv, a clean environment, its limits, and the spawn itself.

A bot is started from its :class:`BotSpec` as an argv list (never a shell string) in a clean
environment (PATH, HOME, LANG plus ``spec.env``), in its own session and process group, under
the containment of :mod:`referee.process.sandbox` and the limits of :mod:`referee.process.cgroup`.

Spawns are cheap: no ``preexec_fn`` (which makes CPython fork the whole, large referee instead
of vfork-ing it). What used to run in the child before exec is done by two small programs and
by the referee after the spawn, while the child waits at a gate:

1. ``setpriv`` (util-linux) sets PR_SET_PDEATHSIG = SIGKILL, so the bot dies with the referee
   even when the referee is SIGKILLed;
2. ``/bin/sh`` waits for one line on the bot's stdin (the gate) before it ``exec``s the rest;
3. meanwhile the referee moves the waiting process into the bot's cgroup and sets its rlimits
   (``prlimit``), then opens the gate: the bot's first instruction already runs with every
   limit in place, and whatever it forks is in its cgroup;
4. then bubblewrap, or for ``uid`` containment ``unshare`` and the arena's own set-up
   (:mod:`referee.process.jail`), builds the bot's sandbox, and ``setpriv`` switches to the
   bot's unprivileged uid with no groups, no capabilities and ``no_new_privs`` (and sets the
   death signal again) before the bot starts. A bot whose folders that uid cannot read is
   refused, never run as root.

The same process id runs all of these in turn, so the pid the referee holds is the bot's (or
bwrap's or ``unshare``'s, which keep the bot in its PID namespace).

This module does not import trio: ``arena run`` starts its first bots before it imports trio
(a fifth of a second here), so that their own start-up runs alongside the runner's. The
asynchronous handle of a started bot is :class:`referee.process.child.ChildProcess`.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import threading
from functools import cache
from typing import Final

import msgspec

from referee.botspec import BotSpec, Limits
from referee.process import cgroup as cgroups
from referee.process.boterrors import BotStartError
from referee.process.botview import contained
from referee.process.cgroup import BotCgroup
from referee.process.faults import MachineFault, SandboxSetupError
from referee.process.sandbox import (
    SANDBOX_PATH,
    Mode,
    containment,
    sandbox_argv,
    warn_once,
)
from referee.process.shims import real_program

__all__ = ["BotStartError", "Launched", "clean_environment", "launch", "resolve_command"]

_ENV_KEEP: Final = ("PATH", "HOME", "LANG")
GATE: Final = 'read -r _ || exit 125; unset PWD; exec "$@"'
"""The gate: wait for the referee's go-ahead line on stdin, then become the bot."""
UID_BASE: Final = 1_000_000_000
"""Bots' uids: UID_BASE + 1000 * (referee pid % 1000) + a slot; no user owns files there."""


def clean_environment(spec: BotSpec, mode: Mode = "none") -> dict[str, str]:
    """PATH, HOME and LANG from the arena's environment, then the spec's own variables. A
    contained bot gets a standard PATH and HOME=/tmp (the runner's name folders it does not
    see or may not enter). The bot may also find PWD (its working directory), set by the
    shell of the spawn gate or by bubblewrap."""
    env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
    if mode != "none":
        env["PATH"] = SANDBOX_PATH
        env["HOME"] = "/tmp"
    env.update(spec.env)
    return env


class _UidPool:
    """Unprivileged uids for bots, one per running bot process (two bots never share one, so
    neither can signal nor ptrace the other)."""

    def __init__(self) -> None:
        self._used: set[int] = set()
        self._lock = threading.Lock()

    def take(self) -> int:
        base = UID_BASE + 1000 * (os.getpid() % 1000)
        with self._lock:
            for uid in range(base, base + 1000):
                if uid not in self._used:
                    self._used.add(uid)
                    return uid
        # The arena's own limit, not the bot's fault: the game is played again later.
        raise MachineFault("more than 1000 bot processes at once: no uid left")

    def release(self, uid: int) -> None:
        with self._lock:
            self._used.discard(uid)


_UIDS = _UidPool()


class Launched(msgspec.Struct):
    """A bot's program just started: its process, our ends of its pipes (non-blocking), and
    what contains it. :class:`referee.process.child.ChildProcess` takes it over; one that no game
    needs after all is ended with :meth:`discard`."""

    popen: subprocess.Popen[bytes]
    stdin_fd: int
    stdout_fd: int
    stderr_fd: int | None
    """Our end of its stderr pipe, or None when its stderr goes nowhere."""
    info_fd: int | None = None
    """Our end of bubblewrap's ``--info-fd`` pipe (``bwrap``), or of the mount script's
    (``uid``): data once the contained process exists; the end of the file with no data means
    the containment could not be set up (the machine's fault, never the bot's)."""
    mode: Mode = "none"
    """The containment the bot got: ``bwrap``, ``uid`` or ``none``."""
    cgroup: BotCgroup | None = None
    """The bot's cgroup, or None where limits are per-process rlimits."""
    uid: int | None = None
    """The unprivileged uid the bot runs as, or None (it runs as the referee)."""
    never_started: bool = False
    """Bubblewrap (or the ``uid`` mount script) ended without starting the bot (no namespace
    to be had: a fork bomb elsewhere, no memory): the machine failed, not the bot. Known
    after :meth:`close_info`."""

    @property
    def pid(self) -> int:
        return self.popen.pid

    def release_uid(self) -> None:
        if self.uid is not None:
            _UIDS.release(self.uid)
            self.uid = None

    def discard(self) -> None:
        """Kill it with everything it started, reap it, close our pipe ends, free its cgroup
        and uid (synchronous: it has not been talked to, there is nothing to wait for)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill()
        self.popen.wait()
        self.close_info()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        self.release_uid()

    def close_info(self) -> None:
        """Note whether bubblewrap ever started the bot (:attr:`never_started`) and close the
        info pipe; call once the process has ended."""
        fd, self.info_fd = self.info_fd, None
        if fd is None:
            return
        try:
            self.never_started = os.read(fd, 1) == b""
        except OSError:
            pass  # nothing to read and the writer still open: bubblewrap did not give up
        finally:
            os.close(fd)


def resolve_program_like_execvp(spec: BotSpec) -> str:
    """``cmd[0]`` as an absolute path by ``execvp``'s rules: relative to ``cwd`` when it holds
    a slash, else on the runner's PATH only; a missing or non-executable program is a
    :class:`BotStartError`. (The config has already made ``cmd[0]`` absolute for a bot it
    loaded: :func:`arena.settings.config.resolve_program_cwd_first`.)"""
    if not spec.cmd:
        raise BotStartError(f"bot {spec.name!r} has an empty command")
    program = spec.cmd[0]
    if os.sep in program:
        path = os.path.join(spec.cwd or os.getcwd(), program)
    else:
        found = shutil.which(program)
        if found is None:
            raise BotStartError(f"cannot start bot {spec.name!r}: program {program!r} not "
                                "found on PATH")
        path = found
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise BotStartError(f"cannot start bot {spec.name!r}: program {path!r} not found")
    if not os.access(path, os.X_OK):
        raise BotStartError(f"cannot start bot {spec.name!r}: program {path!r} is not "
                            "executable (chmod +x it or start it with an interpreter)")
    return path


def resolve_command(spec: BotSpec, mode: Mode = "none", uid: int = 0,
                    info_fd: int | None = None, *, writable: bool = False) -> list[str]:
    """The argv that runs the bot: its program resolved (a version manager's shim replaced by
    the program it runs, for a contained bot: :mod:`referee.process.shims`), inside bubblewrap for
    ``bwrap`` (which reports on ``info_fd`` that the sandbox was set up, when one is given;
    its own folder read-write when ``writable``)."""
    argv = [resolve_program_like_execvp(spec), *spec.cmd[1:]]
    if mode != "none":
        argv[0] = real_program(spec.name, argv[0], spec.cwd or os.getcwd())
    if mode == "bwrap":
        argv = sandbox_argv(spec, argv, uid, info_fd, writable=writable)
    return argv


@cache
def _setpriv() -> str | None:
    """setpriv's real path (a folder of PATH may be a link into a private folder)."""
    found = shutil.which("setpriv")
    return os.path.realpath(found) if found else None


def _launcher() -> list[str]:
    """What runs before the bot, before the gate: setpriv sets the death signal (the
    containment's own ``setpriv`` sets it again after the uid change, which clears it)."""
    setpriv = _setpriv()
    if setpriv is None:
        warn_once("WARNING: setpriv (util-linux) not found: bots outside bubblewrap do not "
                  "die with the arena if it is killed")
        return ["/bin/sh", "-c", GATE, "arena-gate"]
    return [setpriv, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", GATE, "arena-gate"]


def _rlimits(limits: Limits, group: BotCgroup | None) -> list[tuple[int, tuple[int, int]]]:
    """The rlimits to set: CPU and file size always; memory and processes only where no
    cgroup counts them over the whole tree."""
    pairs: list[tuple[int, tuple[int, int]]] = []
    if limits.cpu_seconds is not None:
        # SIGXCPU at the soft limit names the cause; SIGKILL a second later if it is caught.
        pairs.append((resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1)))
    if limits.file_mb is not None:
        pairs.append((resource.RLIMIT_FSIZE, (limits.file_mb << 20,) * 2))
    if group is None:
        if limits.memory_mb is not None:
            pairs.append((resource.RLIMIT_AS, (limits.memory_mb << 20,) * 2))
        if limits.processes is not None:
            pairs.append((resource.RLIMIT_NPROC, (limits.processes,) * 2))
    return pairs


def _contain(pid: int, limits: Limits, group: BotCgroup | None) -> None:
    """Cgroup and rlimits of the gated child, before it runs a single instruction of the bot."""
    if group is not None:
        group.join(pid)
    for which, (soft, hard) in _rlimits(limits, group):
        _cur_soft, cur_hard = resource.prlimit(pid, which)
        if cur_hard != resource.RLIM_INFINITY:  # lowering only: no CAP_SYS_RESOURCE needed
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        resource.prlimit(pid, which, (soft, hard))


def launch(spec: BotSpec, *, capture_stderr: bool = False, writable: bool = False) -> Launched:
    """Start the bot's program with pipes for its stdin and stdout, and for its stderr when
    ``capture_stderr`` (else its stderr goes nowhere); raises :class:`BotStartError` naming
    the bot and the cause (:class:`SandboxSetupError` when the machine is at fault).

    ``writable``: the program's own folder (``spec.cwd``) is mounted read-write instead of
    read-only, for a league submission's build; which uids may write there is still up to the
    folder's modes."""
    mode = containment(spec)
    uid = _UIDS.take() if mode in ("bwrap", "uid") else None
    group: BotCgroup | None = None
    pipes: list[int] = []
    popen: subprocess.Popen[bytes] | None = None
    info_out: int | None = None
    info_in: int | None = None
    try:
        if mode in ("bwrap", "uid"):
            info_out, info_in = os.pipe()
            pipes += (info_out, info_in)
        argv = resolve_command(spec, mode, uid or 0, info_in, writable=writable)
        cwd = spec.cwd
        env = clean_environment(spec, mode)
        if mode == "uid" and uid is not None:
            from referee.process.jail import jail_argv  # the uid containment's only

            argv, view = contained(spec, argv)  # a folder its uid cannot read: refused
            jail, plan = jail_argv(view, uid, spec.limits.tmp_mb << 20, info_in,
                                   writable=writable)
            argv = [*jail, *argv]
            env.update(plan)
            cwd = None  # the set-up goes to the bot's folder inside its own root
        warn_once(cgroups.describe())
        try:
            group = BotCgroup.create(spec.limits)
        except OSError as exc:  # the arena's own trouble: no game is scored
            raise SandboxSetupError(f"bot {spec.name!r}: cannot create its cgroup: "
                                    f"{exc}") from exc
        child_in, our_in = os.pipe()
        pipes += (child_in, our_in)
        our_out, child_out = os.pipe()
        pipes += (our_out, child_out)
        our_err = child_err = None
        if capture_stderr:
            our_err, child_err = os.pipe()
            pipes += (our_err, child_err)
        popen = subprocess.Popen(
            [*_launcher(), *argv],
            stdin=child_in,
            stdout=child_out,
            stderr=child_err if child_err is not None else subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
            close_fds=True,
            pass_fds=(info_in,) if info_in is not None else (),
        )
        _contain(popen.pid, spec.limits, group)
        os.write(our_in, b"\n")  # open the gate
    except (OSError, subprocess.SubprocessError, BotStartError, SandboxSetupError) as exc:
        if popen is not None:
            with contextlib.suppress(OSError):
                popen.kill()
            popen.wait()
        for fd in pipes:
            with contextlib.suppress(OSError):
                os.close(fd)
        if group is not None:
            group.kill()
            group.remove()
        if uid is not None:
            _UIDS.release(uid)
        if isinstance(exc, BotStartError | SandboxSetupError):
            raise
        raise BotStartError(f"cannot start bot {spec.name!r} ({spec.cmd[0]!r}): "
                            f"{exc}") from exc
    os.close(child_in)
    os.close(child_out)
    if child_err is not None:
        os.close(child_err)
    if info_in is not None:
        os.close(info_in)
    os.set_blocking(our_in, False)
    os.set_blocking(our_out, False)
    if info_out is not None:
        os.set_blocking(info_out, False)
    return Launched(popen, our_in, our_out, our_err, info_out, mode, group, uid)

