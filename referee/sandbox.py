"""The bubblewrap sandbox: the argv that runs a bot inside bwrap."""

from __future__ import annotations

import os
import shutil

from referee.botspec import BotSpec
from referee.errors import BotStartError


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
