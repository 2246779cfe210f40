"""The bubblewrap sandbox: which containment a bot gets, and the bwrap argv that gives it.

``sandbox = "auto"`` (the default) means bubblewrap wherever it is installed; without it, a
bot started by root still runs under an unprivileged uid of its own in a mount namespace of
its own (``uid``: :mod:`referee.process.mountview`), and a loud warning says once per run what is
missing. Under bwrap a bot runs:

* as an unprivileged uid of the host, one per bot process, that owns no file, with no
  capabilities in any namespace, no groups, an empty bounding set and ``no_new_privs``: as
  root, bubblewrap makes no user namespace and ``setpriv`` drops to that uid once the mounts
  are made; as another user, the user namespace maps the bot to that user;
* in its own PID, network, IPC, UTS and cgroup namespaces: it sees no other process, has only
  a loopback interface, and everything it starts dies with it;
* on a read-only view of the system folders (/usr, /etc, ...; files of /etc that only root may
  read are hidden), with private size-capped tmpfs for /tmp and /dev/shm, ``/proc/sys`` and
  the other kernel settings read-only, no ``/sys``;
* with the folders of :func:`referee.process.botview.bot_view` bound read-only: its own folder, the
  install folders of its program and the folders of its scripts (reachable through a tmpfs
  over a private ancestor such as /root). Nothing else: not the run directory, the config,
  other bots, the home directory; its environment is the clean one of
  :func:`referee.process.spawn.clean_environment`.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from functools import cache
from typing import Final, Literal

from referee.botspec import BotSpec
from referee.process.botview import (
    SYSTEM_DIRS,
    BotView,
    contained,
    is_system,
    under,
)
from referee.process.errors import BotStartError
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


@cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run sandboxes here (user namespaces disabled, a seccomp or
    AppArmor policy...), or None: one trial run with the sandbox's own options, once."""
    bwrap = bwrap_path()
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    spec = BotSpec(name="probe", cmd=["/bin/true"])
    probe = sandbox_argv(spec, ["/bin/true"], 1_000_000_000)
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not run: {exc}"
    if done.returncode != 0:
        return f"bwrap cannot create the sandbox here: {done.stderr.strip()[:300]}"
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
            warn_once(f"WARNING: {problem}; bots run without a sandbox")
        if is_root():
            warn_once("WARNING: bubblewrap (bwrap) is not installed: bots run without a sandbox, "
                      "each under an unprivileged uid of its own in a mount namespace of its "
                      "own (they see the machine's public files and network). Install it: "
                      "apt-get install bubblewrap")
            return "uid"
        warn_once("WARNING: bubblewrap (bwrap) is not installed: bots run without a sandbox, "
                  "as your own user. Install it: apt-get install bubblewrap")
        return "none"
    if spec.sandbox == "uid" and not is_root():
        return "none"  # only root can give a bot another uid; the runner's own is all there is
    return spec.sandbox


PROC_READ_ONLY: Final = ("/proc/sys", "/proc/sysrq-trigger", "/proc/fs", "/proc/bus",
                         "/proc/irq")
"""Kernel settings under /proc, bound read-only over the sandbox's own /proc (those that
exist): defence in depth, since the bot's uid may not write them anyway."""
PROC_MASKED: Final = ("/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug",
                      "/proc/latency_stats", "/proc/kmsg", "/proc/acpi", "/proc/scsi")
"""Files and folders of /proc that tell about the host's kernel: covered (the sandbox has no
/sys at all)."""
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
    bwrap = bwrap_path()
    if bwrap is None:
        raise BotStartError(f"bot {spec.name!r}: bubblewrap is not installed "
                            "(apt-get install bubblewrap)")
    argv, view = contained(spec, argv)
    tmp = str(spec.limits.tmp_mb << 20)
    mounts: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            mounts += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            mounts += ["--ro-bind", path, path]
    for path in _unreadable_in_etc():
        mounts += (["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path])
    mounts += ["--proc", "/proc", "--dev", "/dev",
               "--perms", "1777", "--size", tmp, "--tmpfs", "/tmp",
               "--perms", "1777", "--size", tmp, "--tmpfs", "/dev/shm"]
    mounts += _proc_covers()
    mounts += _view_mounts(view, writable)
    mounts += ["--remount-ro", "/", "--chdir", view.cwd]  # the root tmpfs too: nothing
    # writable but the private /tmp and /dev/shm
    info = ["--info-fd", str(info_fd)] if info_fd is not None else []
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                  "--unshare-cgroup"]
    if is_root():
        setpriv = shutil.which("setpriv", path=SANDBOX_PATH)
        if setpriv is None:
            raise SandboxSetupError("the bubblewrap sandbox needs setpriv (util-linux) in "
                                    f"{SANDBOX_PATH} to drop to the bot's uid")
        drop = [setpriv, "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--pdeathsig", "KILL", "--"]
        return [bwrap, *namespaces, *DROP_TO_BOT, "--die-with-parent", *info, *mounts, "--",
                *drop, *argv]
    return [bwrap, *namespaces, "--unshare-user", "--disable-userns", "--uid", str(uid),
            "--gid", str(uid), "--die-with-parent", *info, *mounts, "--", *argv]


def _view_mounts(view: BotView, writable: bool = False) -> list[str]:
    """The bot's folders in bwrap's terms: covers before what they hold, the folders leading
    to each made anew 0755 (bubblewrap would make them 0700, out of the bot's reach), each
    folder bound read-only (its own folder read-write when ``writable``), the hidden paths
    covered, and each cover made read-only once filled."""
    ops = sorted([(path, "cover") for path in view.covers] + [(path, "bind") for path in
                                                               view.binds],
                 key=lambda op: (op[0].count("/"), op[1] != "cover", op[0]))
    mounts: list[str] = []
    made: set[str] = set()
    for path, kind in ops:
        for folder in _leading_folders(path):
            if folder not in made and not is_system(folder) and not any(
                    under(folder, bound) for bound in view.binds):
                mounts += ["--perms", "0755", "--dir", folder]
                made.add(folder)
        if kind == "cover":
            mounts += ["--perms", "0755", "--size", str(1 << 20), "--tmpfs", path]
        elif writable and path == view.folder:
            mounts += ["--bind", path, path]
        else:
            mounts += ["--ro-bind", path, path]
    for path in view.hidden:
        if os.path.isdir(path):
            mounts += ["--tmpfs", path, "--remount-ro", path]
        else:
            mounts += ["--ro-bind", "/dev/null", path]
    for path in view.covers:
        mounts += ["--remount-ro", path]
    return mounts


def _leading_folders(path: str) -> list[str]:
    """The folders above ``path``, outermost first, / left out."""
    folders: list[str] = []
    parent = os.path.dirname(path)
    while parent != "/" and parent:
        folders.append(parent)
        parent = os.path.dirname(parent)
    return folders[::-1]


@cache
def _proc_covers() -> tuple[str, ...]:
    covers: list[str] = []
    for path in PROC_READ_ONLY:
        if os.path.exists(path):
            covers += ["--ro-bind", path, path]
    for path in PROC_MASKED:
        if os.path.isdir(path):
            covers += ["--tmpfs", path, "--remount-ro", path]
        elif os.path.exists(path):
            covers += ["--ro-bind", "/dev/null", path]
    return tuple(covers)


@cache
def _unreadable_in_etc() -> tuple[str, ...]:
    """Entries of /etc that only their owner or group may read (shadow, private keys): hidden
    in the sandbox, where the bot's uid maps to the referee's outside. Symbolic links are
    passed over without a stat (the directory listing says what they are): /etc holds
    thousands of them (alternatives, certificates), and this runs before the first bot."""
    hidden: list[str] = []
    folders = ["/etc"]
    while folders:
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_symlink():
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            need = stat.S_IROTH | (stat.S_IXOTH if is_dir else 0)
            if mode & need != need:
                hidden.append(entry.path)
            elif is_dir:
                folders.append(entry.path)
    return tuple(sorted(hidden))
