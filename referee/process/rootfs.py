"""The file system a contained bot runs in, as mount steps written in bubblewrap's option
language (``--ro-bind SRC DEST``, ``--tmpfs DEST``, ``--proc /proc``...).

One list, two makers: bubblewrap takes the steps as they are (:mod:`referee.process.sandbox`);
without bubblewrap, the ``uid`` containment's set-up makes the same steps itself in namespaces
of the bot's own (:mod:`referee.process.jail`, :mod:`referee.process.jail_init`). So a bot
sees the same thing under both, and a change to what it sees is made once.

What the steps make, on an empty read-only root: the system folders read-only (files of /etc
only root may read hidden); a fresh /proc with the kernel's settings read-only and its
host-describing files covered; a minimal /dev; private tmpfs for /tmp, /var/tmp and /dev/shm,
each capped; then the bot's view (:func:`referee.process.botview.bot_view`): private ancestors
covered by a small tmpfs, the folders leading to each bound folder made 0755, each folder
bound read-only (its own read-write for a build), the hidden paths covered.
"""

from __future__ import annotations

import os
import stat
from functools import cache
from typing import Final

from referee.process.botview import SYSTEM_DIRS, BotView, is_system, under

PROC_READ_ONLY: Final = ("/proc/sys", "/proc/sysrq-trigger", "/proc/fs", "/proc/bus",
                         "/proc/irq")
"""Kernel settings under /proc, bound read-only over the sandbox's own /proc (those that
exist): defence in depth, since the bot's uid may not write them anyway."""
PROC_MASKED: Final = ("/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug",
                      "/proc/latency_stats", "/proc/kmsg", "/proc/acpi", "/proc/scsi")
"""Files and folders of /proc that tell about the host's kernel: covered (the sandbox has no
/sys at all)."""
PRIVATE_TMP: Final = ("/tmp", "/var/tmp", "/dev/shm")
"""The bot's own writable folders: each a tmpfs of ``tmp_mb``, gone with the bot (counted in
its memory where a cgroup counts it)."""
COVER_BYTES: Final = 1 << 20
"""The size of a tmpfs laid over a private folder: it holds only the folders made in it."""


def mount_steps(view: BotView, tmp_bytes: int, *, writable: bool = False) -> list[str]:
    """Every mount step of the bot's file system, ending with ``--chdir`` to its working
    folder. ``writable``: its own folder read-write (a league submission's build)."""
    steps: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            steps += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            steps += ["--ro-bind", path, path]
    for path in unreadable_in_etc():
        steps += (["--tmpfs", path] if os.path.isdir(path) else
                  ["--ro-bind", "/dev/null", path])
    steps += ["--proc", "/proc", "--dev", "/dev"]
    for path in PRIVATE_TMP:
        steps += ["--perms", "1777", "--size", str(tmp_bytes), "--tmpfs", path]
    steps += proc_covers()
    steps += view_steps(view, writable)
    steps += ["--remount-ro", "/", "--chdir", view.cwd]  # the root tmpfs too: nothing
    # writable but the private temporary folders
    return steps


def view_steps(view: BotView, writable: bool = False) -> list[str]:
    """The bot's folders, outermost first: covers, hidden folders and bound folders, the
    folders leading to each made anew 0755 (bubblewrap would make them 0700, out of the bot's
    reach), each folder bound read-only (its own folder read-write when ``writable``); a
    hidden path inside a bound folder covered after it, a hidden folder holding a bound one
    (a league's version) covered before it; each cover and hidden folder made read-only once
    filled."""
    hidden_dirs = [path for path in view.hidden if os.path.isdir(path)]
    order = {"cover": 0, "bind": 1, "hide": 2}
    ops = sorted([(path, "cover") for path in view.covers]
                 + [(path, "bind") for path in view.binds]
                 + [(path, "hide") for path in view.hidden],
                 key=lambda op: (op[0].count("/"), order[op[1]], op[0]))
    steps: list[str] = []
    made: set[str] = set()
    for path, kind in ops:
        if kind != "hide":
            for folder in leading_folders(path):
                if folder in made or folder in hidden_dirs:
                    continue
                if any(under(folder, hidden) for hidden in hidden_dirs) or not (
                        is_system(folder) or any(under(folder, b) for b in view.binds)):
                    steps += ["--perms", "0755", "--dir", folder]
                    made.add(folder)
        if kind == "cover":
            steps += ["--perms", "0755", "--size", str(COVER_BYTES), "--tmpfs", path]
        elif kind == "hide":
            steps += (["--perms", "0755", "--size", str(COVER_BYTES), "--tmpfs", path]
                      if path in hidden_dirs else ["--ro-bind", "/dev/null", path])
        elif writable and path == view.folder:
            steps += ["--bind", path, path]
        else:
            steps += ["--ro-bind", path, path]
    for path in [*hidden_dirs, *view.covers]:
        steps += ["--remount-ro", path]
    return steps


def leading_folders(path: str) -> list[str]:
    """The folders above ``path``, outermost first, / left out."""
    folders: list[str] = []
    parent = os.path.dirname(path)
    while parent != "/" and parent:
        folders.append(parent)
        parent = os.path.dirname(parent)
    return folders[::-1]


@cache
def proc_covers() -> tuple[str, ...]:
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
def unreadable_in_etc() -> tuple[str, ...]:
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
