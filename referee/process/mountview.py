"""The ``uid`` containment's view of the file system, without bubblewrap: a mount namespace
of the bot's own, made by util-linux ``unshare`` (on every Linux), in which the same covers as
under bubblewrap make a program under a private folder (a Python under /root) reachable for
the bot's unprivileged uid, and the run directory and the config are covered.

The rest of the machine stays as it is (the bot sees the system's files and network, as any
unprivileged user would); what keeps the bot in is its uid, which owns nothing and may not
signal the arena or its opponent.

The mounts are made by a short ``/bin/sh`` script run as root inside the new namespace,
before ``setpriv`` drops to the bot's uid. A folder to bind inside a cover is opened first (a
file descriptor of the shell) and bound from ``/proc/self/fd/N`` once the cover hides its
path.
"""

from __future__ import annotations

import os
import shlex
import shutil
from functools import cache
from typing import Final

from referee.process.botview import BotView
from referee.process.errors import BotStartError

SHELL_FDS: Final = range(3, 10)
"""The descriptors the shell may open a folder to bind on (closed again before the bot
starts): /bin/sh (dash) names descriptors 3 to 9 only."""


@cache
def unshare_path() -> str | None:
    found = shutil.which("unshare")
    return os.path.realpath(found) if found else None


def mount_namespace_argv(view: BotView, info_fd: int | None = None, *,
                         writable: bool = False) -> list[str]:
    """The argv prefix that runs what follows it in a mount namespace of its own holding
    ``view``'s covers and hidden paths; empty when there is nothing to mount (a bot whose
    folders any uid can reach, and no run directory inside them). Once every mount is made,
    one byte goes to ``info_fd``: a script that failed wrote nothing, and the referee then
    knows that the machine failed, not the bot. ``writable`` leaves the bot's own folder
    writable (a league submission's build)."""
    inside = [path for path in view.binds if view.covered(path)]
    if not view.covers and not view.hidden:
        return []
    unshare = unshare_path()
    if unshare is None:
        raise BotStartError("the 'uid' containment needs unshare (util-linux) to reach "
                            f"{', '.join(inside) or 'its folders'}")
    free = [fd for fd in SHELL_FDS if fd != info_fd]  # the inherited pipe is not a free one:
    # opening a folder on it would close the pipe, and the script could not report success
    if len(inside) > len(free):
        raise BotStartError(f"the 'uid' containment can bind at most {len(free)} folders under "
                            f"a private folder, this bot needs {len(inside)}: "
                            f"{', '.join(inside)}; install bubblewrap or make them readable "
                            "by other users")
    lines = ["set -e", "umask 022"]
    fds = dict(zip(inside, free[:len(inside)], strict=True))
    lines += [f"exec {fd}<{shlex.quote(path)}" for path, fd in fds.items()]
    for cover in view.covers:
        lines.append(f"mount -t tmpfs -o mode=755,size=1m arena-cover {shlex.quote(cover)}")
    for path, fd in fds.items():
        quoted = shlex.quote(path)
        lines += [f"mkdir -p -m 755 {quoted}",
                  f"mount --no-canonicalize --bind /proc/self/fd/{fd} {quoted}"]
        if not (writable and path == view.folder):
            lines.append(f"mount --no-canonicalize -o remount,bind,ro {quoted}")
    for path in view.hidden:
        quoted = shlex.quote(path)
        if os.path.isdir(path):
            lines.append(f"mount -t tmpfs -o ro,mode=755,size=4k arena-hidden {quoted}")
        else:
            lines.append(f"mount --bind /dev/null {quoted}")
    lines += [f"mount -o remount,ro {shlex.quote(cover)}" for cover in view.covers]
    if fds:
        lines.append("exec " + " ".join(f"{fd}<&-" for fd in fds.values()))
    lines.append(f"cd {shlex.quote(view.cwd)}")
    if info_fd is not None:  # dash names descriptors up to 9 only: reopened through /proc
        lines.append(f"printf . >/proc/self/fd/{info_fd}")
    lines.append('exec "$@"')
    return [unshare, "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            "\n".join(lines), "arena-mounts"]

