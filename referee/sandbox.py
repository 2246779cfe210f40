"""The bubblewrap sandbox: which containment a bot gets, and the bwrap argv that gives it.

``sandbox = "auto"`` (the default) means bubblewrap wherever it is installed; without it, a
bot started by root still runs under an unprivileged uid of its own (``uid``), and a loud
warning says once per run what is missing. Under bwrap a bot runs:

* in its own user namespace as an unprivileged uid with no capabilities and no way to make a
  new user namespace (``--disable-userns``), ``no_new_privs`` set;
* in its own PID, network, IPC, UTS and cgroup namespaces: it sees no other process, has only
  a loopback interface, and everything it starts dies with it;
* on a read-only view of the system folders (/usr, /etc, ...; files of /etc that only root may
  read are hidden), with private size-capped tmpfs for /tmp and /dev/shm;
* with its own folder bound read-only as ONE folder (whatever it holds), plus read-only the
  install folders of its program (an interpreter's prefix, a virtualenv) and the folder of a
  script it is given. Nothing else: not the run directory, the config, other bots, the home
  directory; its environment is the clean one of :func:`referee.spawn.clean_environment`.

bwrap is started by the referee (root on CI): the bot's uid inside maps to the referee's uid
outside, so the namespaces, the dropped capabilities and the read-only mounts are what keep it
in (see the README's "What the sandbox guarantees" section).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Final, Literal

from referee.botspec import BotSpec
from referee.errors import BotStartError
from referee.faults import SandboxSetupError

Mode = Literal["bwrap", "uid", "none"]

SYSTEM_DIRS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                      "/opt")
"""Bound read-only into every sandbox (those that exist; symlinks are recreated as symlinks)."""
SANDBOX_PATH: Final = "/usr/local/bin:/usr/bin:/bin"
"""PATH inside the sandbox (the runner's own PATH names folders the bot does not see)."""

ARENA_SOURCE: Final = str(Path(__file__).resolve().parent.parent)
"""The folder holding the arena's packages (the project folder in an editable install)."""

_hidden: set[str] = set()
_warned: set[str] = set()


def hide_from_bots(path: str | os.PathLike[str]) -> None:
    """Keep ``path`` (a run directory, a config file) out of every sandbox, even when it lies
    inside a folder a bot sees: an empty read-only tmpfs (or /dev/null) covers it."""
    _hidden.add(os.path.abspath(path))


def warn_once(text: str) -> None:
    """Print ``text`` to stderr once per process (once per run)."""
    if text not in _warned:
        _warned.add(text)
        print(f"arena: {text}", file=sys.stderr, flush=True)


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
    probe = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--uid", "1000000000",
             "--gid", "1000000000", "--die-with-parent", "--ro-bind", "/", "/", "--proc",
             "/proc", "--dev", "/dev", "--size", "1048576", "--tmpfs", "/tmp", "--remount-ro",
             "/", "--", "/bin/true"]
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
                      "each under an unprivileged uid of its own (no file system or network "
                      "isolation). Install it: apt-get install bubblewrap")
            return "uid"
        warn_once("WARNING: bubblewrap (bwrap) is not installed: bots run without a sandbox, "
                  "as your own user. Install it: apt-get install bubblewrap")
        return "none"
    if spec.sandbox == "uid" and not is_root():
        return "none"  # only root can give a bot another uid; the runner's own is all there is
    return spec.sandbox


def bot_folder(spec: BotSpec, argv: list[str]) -> str:
    """The one folder a sandboxed bot sees as its own: ``cwd`` when given, else the folder of
    the script it is given (the first existing file after the program), else the program's."""
    if spec.cwd:
        return os.path.abspath(spec.cwd)
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.isfile(arg):
            return os.path.dirname(arg)
    return os.path.dirname(argv[0])


def absolute_scripts(argv: list[str]) -> list[str]:
    """``argv`` with each argument that names an existing file relative to the current
    folder made absolute. A bot without a ``cwd`` (``check-bot``, ``play``) runs in its
    script's folder inside the sandbox, where ``sample_bots/x.py`` would no longer be found."""
    return [argv[0], *(os.path.abspath(arg) if not arg.startswith("-")
                       and not os.path.isabs(arg) and os.path.isfile(arg) else arg
                       for arg in argv[1:])]


def sandbox_argv(spec: BotSpec, argv: list[str], uid: int, info_fd: int | None = None
                 ) -> list[str]:
    """``argv`` (its program already an absolute path) run under bubblewrap as ``uid``;
    with ``info_fd``, bubblewrap writes there once the sandboxed process exists (nothing
    written means it never got that far: see :meth:`referee.child.ChildProcess`)."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise BotStartError(f"bot {spec.name!r}: bubblewrap is not installed "
                            "(apt-get install bubblewrap)")
    if not spec.cwd:
        argv = absolute_scripts(argv)
    folder = bot_folder(spec, argv)
    cwd = os.path.abspath(spec.cwd) if spec.cwd else folder
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
               "--size", tmp, "--tmpfs", "/tmp", "--size", tmp, "--tmpfs", "/dev/shm"]
    seen = [folder]
    for root in _program_roots(argv, cwd):
        if not any(_under(root, other) for other in seen):
            mounts += ["--ro-bind", root, root]
            seen.append(root)
    mounts += ["--ro-bind", folder, folder]
    for path in sorted(_hidden):
        if any(_under(path, root) for root in seen):
            if os.path.isdir(path):
                mounts += ["--tmpfs", path, "--remount-ro", path]
            elif os.path.exists(path):
                mounts += ["--ro-bind", "/dev/null", path]
    mounts += ["--remount-ro", "/", "--chdir", cwd]  # the root tmpfs too: nothing writable
    # but the private /tmp and /dev/shm
    info = ["--info-fd", str(info_fd)] if info_fd is not None else []
    return [bwrap, "--unshare-all", "--unshare-user", "--disable-userns",
            "--uid", str(uid), "--gid", str(uid), "--die-with-parent", *info,
            *mounts, "--", *argv]


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _is_system(path: str) -> bool:
    return any(_under(path, d) for d in SYSTEM_DIRS)


def _program_roots(argv: list[str], cwd: str) -> list[str]:
    """Folders a bot's program needs besides its own folder: for the program and each step of
    its symlinks, the install prefix (the folder above ``bin/``: an interpreter's lib/, a
    virtualenv's pyvenv.cfg) or its folder; for a script argument, the folder above its top
    Python package, or its folder; for the arena's own Python (``{python}`` in a config), the
    arena's packages, so that bots may use its bot helper. System folders are bound anyway and
    left out."""
    roots: list[str] = []

    def add(path: str) -> None:
        if path and path != "/" and not _is_system(path) and path not in roots:
            roots.append(path)

    program = argv[0]
    for _ in range(16):  # symlink chain, bounded
        folder = os.path.dirname(program)
        add(os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder)
        if not os.path.islink(program):
            break
        program = os.path.join(folder, os.readlink(program))
    real = os.path.realpath(argv[0])
    folder = os.path.dirname(real)
    add(os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder)
    if os.path.realpath(argv[0]) == os.path.realpath(sys.executable):
        add(ARENA_SOURCE)  # the arena's own Python: its bot helper (protocol.bot) importable
    for arg in argv[1:]:
        path = arg if os.path.isabs(arg) else os.path.join(cwd, arg)
        if os.path.isfile(path):
            folder = os.path.dirname(os.path.realpath(path))
            while os.path.isfile(os.path.join(folder, "__init__.py")):
                folder = os.path.dirname(folder)
            add(folder)
    return roots


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


def folder_visible_to(uid: int, path: str) -> bool:
    """Whether ``uid`` (with no groups) can reach ``path``: every folder above it searchable
    by others, and ``path`` itself readable (and, for a folder, searchable) by others."""
    del uid  # a uid of the reserved range owns nothing: only the "others" bits apply
    parts = Path(os.path.abspath(path)).parts
    for i in range(1, len(parts)):
        try:
            mode = os.stat(os.path.join(*parts[:i])).st_mode
        except OSError:
            return False
        if not mode & stat.S_IXOTH:
            return False
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need
