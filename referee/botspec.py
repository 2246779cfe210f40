"""How to start a bot: the typed description shared by ``arena play``, configs and the runner.

The same Struct is decoded straight from a tournament config (``[[bots]]`` tables), so a typo'd
key is an error naming the key.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

Protocol = Literal["native", "uci", "hub"]
Restart = Literal["auto", "always", "never"]
Sandbox = Literal["auto", "bwrap", "uid", "none"]


MAX_MEMORY_MB: Final = 1 << 20
"""1 TiB: ``memory_mb``, ``file_mb`` and ``tmp_mb`` times 2**20 must fit the kernel's 64-bit
byte counts (``memory.max``, ``rlim_t``, tmpfs ``size=``) with room to spare."""
MAX_CPU_SECONDS: Final = 30 * 24 * 3600
"""30 days of CPU time: more than a game at the longest time control can use."""
MAX_PROCESSES: Final = 1 << 22
"""The kernel's own ceiling on pids (``PID_MAX_LIMIT`` on 64-bit Linux)."""
MAX_CPUS: Final = 8192
"""The kernel's largest ``NR_CPUS``."""

_MiB = Annotated[int, msgspec.Meta(gt=0, le=MAX_MEMORY_MB)]


class Limits(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """What one bot may use. Where the cgroup file system is writable (root on Linux) memory
    and processes are counted over the bot's whole process tree (children and its tmpfs
    included) in a cgroup of its own; elsewhere they fall back to per-process rlimits.
    Each value has a maximum (``MAX_*`` above) that the kernel's types hold: a larger one is a
    config error naming the key, not a limit that wraps round or fails at the first game."""

    memory_mb: _MiB | None = 1024
    """Memory in MiB: the cgroup's memory limit (with swap), else RLIMIT_AS per process."""
    cpu_seconds: Annotated[int, msgspec.Meta(gt=0, le=MAX_CPU_SECONDS)] | None = None
    """CPU time limit (RLIMIT_CPU) of each process for its whole life."""
    processes: Annotated[int, msgspec.Meta(gt=0, le=MAX_PROCESSES)] | None = 256
    """Processes and threads at once: the cgroup's pids.max, else RLIMIT_NPROC of the bot's
    own uid (fork bombs)."""
    file_mb: _MiB | None = 256
    """RLIMIT_FSIZE: the largest file the bot may write."""
    tmp_mb: _MiB = 64
    """Size of each of the sandbox's private tmpfs, /tmp and /dev/shm (counted in memory)."""
    cpus: Annotated[float, msgspec.Meta(gt=0, le=MAX_CPUS)] | None = None
    """CPU cores the bot's tree may use at once (a cgroup cpu quota; ignored without one)."""


class BotSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One bot: a name and how to start and speak to it."""

    name: str
    cmd: list[str]
    """argv list; never a shell string. cmd[0] is resolved against ``cwd`` then PATH."""
    cwd: str | None = None
    env: dict[str, str] = {}
    """Added to a clean environment (PATH, HOME, LANG only); the arena's own is never passed."""
    protocol: Protocol = "native"
    options: dict[str, str | int | float | bool] = {}
    """Sent as ``setoption name N value V`` after the handshake."""
    tc: str | None = None
    """Per-bot time-control override (cutechess syntax, e.g. ``10+0.1``)."""
    legal: bool = True
    """Send a ``legal ...`` line before each ``go`` (native protocol only)."""
    limits: Limits = msgspec.field(default_factory=Limits)
    sandbox: Sandbox = "auto"
    """``auto``: bubblewrap where installed, else (as root) an unprivileged uid of its own;
    ``bwrap`` requires bubblewrap; ``uid`` only the uid; ``none`` runs the bot as the arena."""
    variant: str | None = None
    """UCI dialect: the ``UCI_Variant`` value, when it differs from the game's name."""
    debug: bool = False
    """Write every line exchanged with the bot, both ways with millisecond times, to a
    transcript per game (as cutechess ``-debug``); ``arena run --debug`` sets it on all."""
    restart: Restart = "auto"
    """When a tournament starts a fresh process for this bot (as cutechess's ``restart=``).
    ``auto``: the process plays game after game (``uginewgame`` + ``isready`` in between)
    and is replaced only after it crashed, stalled, broke the protocol or lost on time, or
    when ``limits.cpu_seconds`` is set (that budget covers a process's whole life, so each
    game gets a fresh one). ``always``: a fresh process for
    every game. ``never``: kept after a fault too, as long as it is alive and answers
    ``isready`` once its late ``bestmove`` is read; only a dead process is replaced."""
    ship: bool = False
    """``arena run --cluster``: send the bot's folder (its ``cwd``) to the workers, which run it
    from their cache, instead of expecting the same files there."""
