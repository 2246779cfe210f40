"""The ``uid`` containment: bubblewrap's sandbox without bubblewrap, for a referee run as root
on a machine that lacks it (and on cluster workers alike).

util-linux ``unshare`` (on every Linux) gives the bot new mount, PID, network, IPC, UTS and
cgroup namespaces; in them :mod:`referee.process.jail_init`, run as root by the arena's own
Python, builds the file system of :func:`referee.process.rootfs.mount_steps` (the very steps
bubblewrap is given) and brings up a loopback of its own; coreutils ``timeout``, with no limit,
then stays as the namespace's first process (it forwards the referee's signals to the bot, and
exits with 128 + the signal that killed it, as bubblewrap does), and ``setpriv`` drops to the
bot's unprivileged uid with no groups, no capabilities, an empty bounding set and
``no_new_privs`` before the bot's first instruction. The bot so sees what it would under
bubblewrap: its own folder and runtime, private and capped temporary folders, no host process,
no port of the host, and nothing it leaves behind outlives it.

If the namespaces cannot be made here (a container without the privilege, a kernel without
them), :func:`uid_problem` says why once, and no bot is started with less.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Final

from referee.process.boterrors import BotStartError
from referee.process.botview import BotView, is_system
from referee.process.rootfs import mount_steps

INIT_SCRIPT: Final = str(Path(__file__).with_name("jail_init.py"))
PLAN_VARIABLE: Final = "ARENA_JAIL_PLAN"
"""The environment variable that hands the set-up its plan (removed before the bot starts)."""
NAMESPACES: Final = ("--mount", "--propagation", "private", "--pid", "--fork",
                     "--kill-child=SIGKILL", "--net", "--ipc", "--uts", "--cgroup")
"""``unshare``'s options: every namespace bubblewrap gives a bot; the set-up runs as the new
PID namespace's first process, killed (with all it started) when ``unshare`` dies."""
SYSTEM_PATH: Final = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
PROBE_UID: Final = 999_999_999
"""The uid of the trial run: below the bots' range, owned by nobody."""


@cache
def _tool(name: str) -> str | None:
    """A util-linux or coreutils program by its real path, if it lies in a system folder (it
    runs after the host's root is gone, from the sandbox's read-only /usr)."""
    found = shutil.which(name, path=SYSTEM_PATH)
    real = os.path.realpath(found) if found else None
    return real if real and is_system(real) else None


def jail_argv(view: BotView, uid: int, tmp_bytes: int, info_fd: int | None, *,
              writable: bool = False) -> tuple[list[str], dict[str, str]]:
    """The argv prefix that runs what follows it (the bot's argv) contained as ``uid`` in
    namespaces of its own with ``view``'s file system, and the environment variable that
    carries the plan (the mount steps and the pipe: kept out of the command line, which every
    process may read). ``info_fd`` gets one byte once every mount is made."""
    tools = {name: _tool(name) for name in ("unshare", "setpriv", "timeout")}
    missing = [name for name, path in tools.items() if path is None]
    if missing:
        raise BotStartError(f"the 'uid' containment needs {', '.join(missing)} (util-linux, "
                            "coreutils) in /usr/bin or /bin; or install bubblewrap")
    plan = {"mounts": mount_steps(view, tmp_bytes, writable=writable), "info_fd": info_fd}
    drop = [str(tools["setpriv"]), "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--pdeathsig", "KILL",
            "--"]
    argv = [str(tools["unshare"]), *NAMESPACES, "--", sys.executable, "-I", "-S", INIT_SCRIPT,
            PLAN_VARIABLE, "--", str(tools["timeout"]), "--foreground", "0", *drop]
    return argv, {PLAN_VARIABLE: json.dumps(plan)}


_works_here = False
"""Set once a trial succeeded: the namespaces can be made on this machine."""


def uid_problem() -> str | None:
    """Why the ``uid`` containment cannot run here, or None: a trial with ``/bin/true`` in an
    empty view (as :func:`referee.process.sandbox.bwrap_problem`). A success is remembered for
    the process; a failure is not, since it may pass (no process slot left after a fork bomb:
    the next game's start tries again)."""
    global _works_here
    if _works_here:
        return None
    view = BotView(folder="/", cwd="/", binds=[])
    try:
        argv, env = jail_argv(view, PROBE_UID, 1 << 20, None)
    except BotStartError as exc:
        return str(exc)
    try:
        done = subprocess.run([*argv, "/bin/true"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env={"PATH": SYSTEM_PATH, **env})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the bot's namespaces cannot be made here: {exc}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"the bot's namespaces cannot be made here: {said[:300]}"
    _works_here = True
    return None
