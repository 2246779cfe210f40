"""The bubblewrap sandbox: which containment a bot gets, and the bwrap argv that gives it.

``sandbox = "auto"`` (the default) means bubblewrap wherever it is installed; without it, a
bot started by root gets the same sandbox made by the arena itself (``uid``:
:mod:`referee.process.jail`), and a loud warning says once per run what is missing; where
neither can run, no bot starts. Under both a bot runs:

* as an unprivileged uid of the host, one per bot process, that owns no file, with no
  capabilities in any namespace, no groups, an empty bounding set and ``no_new_privs``: as
  root, bubblewrap makes no user namespace and ``setpriv`` drops to that uid once the mounts
  are made; as another user, the user namespace maps the bot to that user;
* in its own PID, network, IPC, UTS and cgroup namespaces: it sees no other process, has only
  a loopback interface, and everything it starts dies with it;
* on a read-only view of the system folders (/usr, /etc, ...; files of /etc that only root may
  read are hidden), with private size-capped tmpfs for /tmp, /var/tmp and /dev/shm,
  ``/proc/sys`` and the other kernel settings read-only, no ``/sys``
  (:mod:`referee.process.rootfs`);
* with the folders of :func:`referee.process.botview.bot_view` bound read-only: its own folder, the
  install folders of its program and the folders of its scripts (reachable through a tmpfs
  over a private ancestor such as /root). Nothing else: not the run directory, the config,
  other bots, the home directory; its environment is the clean one of
  :func:`referee.process.spawn.clean_environment`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from typing import Final, Literal

from referee.botspec import BotSpec
from referee.process.boterrors import BotStartError
from referee.process.botview import contained
from referee.process.faults import SandboxSetupError

Mode = Literal["bwrap", "uid", "none"]

SANDBOX_PATH: Final = "/usr/local/bin:/usr/bin:/bin"
"""PATH inside the sandbox (the runner's own PATH names folders the bot does not see)."""

_quiet = False
"""Keep the texts without printing them (a cluster worker sends them on instead)."""
_warned: dict[str, None] = {}
"""Texts printed, in order (a dict keeps it)."""


def warn_once(text: str) -> None:
    """Print ``text`` to stderr once per process (once per run)."""
    if text not in _warned:
        _warned[text] = None
        if not _quiet:
            print(f"arena: {text}", file=sys.stderr, flush=True)


def keep_warnings_quiet() -> None:
    """From now on :func:`warn_once` keeps its texts for :func:`warnings_given` and prints
    nothing (a cluster worker: the submitting machine shows them, once for all workers)."""
    global _quiet
    _quiet = True


def warnings_given() -> list[str]:
    """Every text :func:`warn_once` printed in this process, in order: a cluster worker sends
    them to the submitting machine, whose user would not see the worker's stderr."""
    return list(_warned)


def is_root() -> bool:
    return os.geteuid() == 0


@cache
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


_trial: subprocess.Popen[str] | None = None
"""The trial run :func:`start_bwrap_trial` started and :func:`bwrap_problem` has not read."""


def _start_trial() -> subprocess.Popen[str]:
    spec = BotSpec(name="probe", cmd=["/bin/true"])
    return subprocess.Popen(sandbox_argv(spec, ["/bin/true"], 1_000_000_000), text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def start_bwrap_trial() -> None:
    """Start :func:`bwrap_problem`'s trial run now, without waiting for it: bubblewrap takes
    tens of milliseconds to make its namespaces, which a runner spends on its own start-up
    meanwhile rather than before its first bot (the first call of :func:`bwrap_problem` reads
    the result). Nothing when bwrap is not installed or the trial ran already."""
    global _trial
    if _trial is not None or bwrap_problem.cache_info().currsize or bwrap_path() is None:
        return
    try:
        _trial = _start_trial()
    except OSError:
        _trial = None  # bwrap_problem tries again, and says why


def bwrap_trial_pending() -> bool:
    """Whether :func:`start_bwrap_trial` started a trial whose result nobody has read."""
    return _trial is not None


@cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run sandboxes here (user namespaces disabled, a seccomp or
    AppArmor policy...), or None: one trial run with the sandbox's own options, once (started
    early by :func:`start_bwrap_trial`, or here)."""
    global _trial
    bwrap = bwrap_path()
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    trial, _trial = _trial, None
    try:
        trial = trial or _start_trial()
    except OSError as exc:
        return f"bwrap does not run: {exc}"
    try:
        _out, err = trial.communicate(timeout=30)
    except subprocess.TimeoutExpired as exc:
        trial.kill()
        trial.communicate()
        return f"bwrap does not run: {exc}"
    if trial.returncode != 0:
        return f"bwrap cannot create the sandbox here: {err.strip()[:300]}"
    return None


def containment(spec: BotSpec) -> Mode:
    """The containment ``spec`` gets here: ``auto`` resolved, ``bwrap`` checked. A bwrap that
    is installed but cannot run is the machine's fault (:class:`SandboxSetupError`: no game is
    scored), never the bot's."""
    if spec.sandbox == "bwrap" and bwrap_path() is None:
        raise BotStartError(f"bot {spec.name!r} asks for sandbox = 'bwrap' but bubblewrap is not "
                            "installed (apt-get install bubblewrap)")
    if spec.sandbox == "bwrap" and (problem := bwrap_problem()) is not None:
        raise SandboxSetupError(f"bot {spec.name!r}: {problem}")
    if spec.sandbox == "auto":
        if bwrap_path() is not None:
            problem = bwrap_problem()
            if problem is None:
                return "bwrap"
            warn_once(f"WARNING: {problem}; bots run without bubblewrap")
        if is_root():
            _check_uid(spec)
            warn_once("WARNING: bubblewrap (bwrap) is not installed: each bot runs under an "
                      "unprivileged uid of its own in namespaces of its own made without it "
                      "(the same view, network and limits). Install it: "
                      "apt-get install bubblewrap")
            return "uid"
        warn_once("WARNING: bubblewrap (bwrap) is not installed: bots run without a sandbox, "
                  "as your own user. Install it: apt-get install bubblewrap")
        return "none"
    if spec.sandbox == "uid":
        if not is_root():
            return "none"  # only root can give a bot another uid; the runner's own is all
        _check_uid(spec)
    return spec.sandbox


def _check_uid(spec: BotSpec) -> None:
    """Refuse to start a bot with less than the ``uid`` containment promises: namespaces that
    cannot be made here are the machine's fault (no game is scored), with the fix."""
    from referee.process.jail import uid_problem  # the uid containment's only (json with it)

    problem = uid_problem()
    if problem is not None:
        fix = "" if bwrap_path() else "; install bubblewrap (apt-get install bubblewrap)"
        raise SandboxSetupError(f"bot {spec.name!r}: {problem}{fix}")


DROP_TO_BOT: Final = ("--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add",
                      "CAP_SETPCAP")
"""What bubblewrap started by root keeps for the one step after its mounts: ``setpriv``
switching to the bot's uid, which clears them all."""


def sandbox_argv(spec: BotSpec, argv: list[str], uid: int, info_fd: int | None = None,
                 *, writable: bool = False) -> list[str]:
    """``argv`` (its program already an absolute path) run under bubblewrap as ``uid``;
    with ``info_fd``, bubblewrap writes there once the sandboxed process exists (nothing
    written means it never got that far: see :meth:`referee.process.child.ChildProcess`).

    Started by root, bubblewrap makes no user namespace: a user namespace made by root maps
    the bot's uid to root outside, and a bot that is root outside writes every root-owned
    file on a writable mount (``/proc/sys/kernel/core_pattern``: a program of its own run as
    root on the host). Instead bubblewrap, root and privileged, makes the mounts and the other
    namespaces, and ``setpriv`` then becomes ``uid`` (an unprivileged uid of the host that
    owns nothing) with no capabilities, no groups and an empty bounding set. Started by any
    other user, bubblewrap makes a user namespace whose map points at that user's own,
    unprivileged, uid.

    ``writable`` binds the bot's own folder read-write (a league submission's build, which
    compiles into its folder); everything else stays as it is."""
    from referee.process.rootfs import mount_steps  # bubblewrap's only

    bwrap = bwrap_path()
    if bwrap is None:
        raise BotStartError(f"bot {spec.name!r}: bubblewrap is not installed "
                            "(apt-get install bubblewrap)")
    argv, view = contained(spec, argv)
    mounts = mount_steps(view, spec.limits.tmp_mb << 20, writable=writable)
    info = ["--info-fd", str(info_fd)] if info_fd is not None else []
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                  "--unshare-cgroup"]
    if is_root():
        setpriv = shutil.which("setpriv", path=SANDBOX_PATH)
        if setpriv is None:
            raise SandboxSetupError("the bubblewrap sandbox needs setpriv (util-linux) in "
                                    f"{SANDBOX_PATH} to drop to the bot's uid")
        drop = [setpriv, "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--pdeathsig",
                "KILL", "--"]
        return [bwrap, *namespaces, *DROP_TO_BOT, "--die-with-parent", *info, *mounts, "--",
                *drop, *argv]
    return [bwrap, *namespaces, "--unshare-user", "--disable-userns", "--uid", str(uid),
            "--gid", str(uid), "--die-with-parent", *info, *mounts, "--", *argv]
