"""A cgroup per bot process tree: limits that add up over a bot's children and its tmpfs, the
list of its processes without scanning /proc, and a kill that reaches every one of them.

Where the cgroup file system is writable (root on Linux), each bot gets one cgroup, in every
hierarchy that holds a controller we use: cgroup v1 (one mount per controller: ``memory``,
``pids``, ``cpu``, ``freezer``, as on these machines) and v2 (one unified mount) are both
supported, also mixed. The cgroups live under ``arena-<pid>`` next to the referee's own, and are
created when a bot process starts and removed when it ends, whatever the number of games it
plays in between (bots may stay running between games).

Memory counts every page the bot's processes use, tmpfs pages they write included (the kernel
charges shared memory to the cgroup that touched it); beyond the limit the kernel's OOM killer
ends a process of the bot, and :meth:`BotCgroup.oom_kills` tells the referee it happened.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import signal
import time
from functools import cache
from pathlib import Path
from typing import Final

import msgspec

from referee.botspec import Limits

CONTROLLERS: Final = ("memory", "pids", "cpu", "freezer")
"""What a bot's cgroup uses: memory and pids are required, cpu and freezer optional."""
REQUIRED: Final = frozenset({"memory", "pids"})
CPU_PERIOD_US: Final = 100_000
_REMOVE_WAIT_S: Final = 2.0


class Hierarchy(msgspec.Struct, frozen=True):
    """One mounted cgroup hierarchy and the referee's own cgroup in it."""

    version: int
    """1 or 2."""
    controllers: frozenset[str]
    """The controllers of :data:`CONTROLLERS` it holds."""
    base: Path
    """The referee's own cgroup directory in this hierarchy."""


def _mounts() -> list[tuple[str, str, str, str]]:
    """(mount point, root inside the hierarchy, file system type, super options) per cgroup
    mount, from /proc/self/mountinfo."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            found.append((fields[4], fields[3], tail[0], tail[2]))
    return found


def _own_paths() -> dict[str, str]:
    """Controller (or ``""`` for v2) -> the referee's cgroup path, from /proc/self/cgroup."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


def _inside(mount_point: str, mount_root: str, path: str) -> Path | None:
    if mount_root != "/" and path != mount_root and not path.startswith(mount_root + "/"):
        return None
    relative = path[len(mount_root):] if mount_root != "/" else path
    return Path(mount_point) / relative.lstrip("/")


@cache
def hierarchies() -> tuple[Hierarchy, ...]:
    """The writable hierarchies holding our controllers (v1 first, one per controller), or ()
    when the required ones (memory, pids) cannot all be used by this process."""
    own = _own_paths()
    found: list[Hierarchy] = []
    taken: set[str] = set()
    for mount_point, mount_root, fstype, options in _mounts():
        if fstype == "cgroup":
            names = frozenset(options.split(",")) & set(CONTROLLERS)
            path = next((own[n] for n in names if n in own), None)
            version = 1
        else:
            path = own.get("")
            version = 2
            base = _inside(mount_point, mount_root, path) if path is not None else None
            try:
                names = frozenset((base / "cgroup.controllers").read_text().split()) \
                    & set(CONTROLLERS) if base is not None else frozenset()
            except OSError:
                names = frozenset()
        names -= taken
        if not names or path is None:
            continue
        base = _inside(mount_point, mount_root, path)
        if base is None or not os.access(base, os.W_OK):
            continue
        found.append(Hierarchy(version, names, base))
        taken |= names
    if not taken >= REQUIRED:
        return ()
    return tuple(found)


def describe() -> str:
    """One line saying which limits apply, for the run's log."""
    found = hierarchies()
    if not found:
        return ("limits: rlimits per process (no writable cgroup file system): memory, CPU and "
                "process counts are per process, not summed over a bot's children")
    versions = sorted({h.version for h in found})
    parts = []
    for v in versions:
        names = sorted(n for h in found if h.version == v for n in h.controllers)
        parts.append(f"v{v} ({', '.join(names)})")
    return (f"limits: a cgroup per bot, {' + '.join(parts)}: memory (children and tmpfs "
            "included) and processes add up per bot; CPU time is per process (RLIMIT_CPU)")


_serial = itertools.count()


class BotCgroup:
    """The cgroup of one bot process tree: created with its limits, joined by the bot's
    first process before it runs (the spawn gate), killed and removed when the bot ends."""

    def __init__(self, name: str, dirs: dict[Hierarchy, Path]) -> None:
        self.name = name
        self.dirs = dirs
        self._threads_file: str | None = None
        self._count_fd: int | None = None
        """``pids.current`` kept open (:meth:`thread_count`), closed by :meth:`remove`."""

    @classmethod
    def create(cls, limits: Limits) -> BotCgroup | None:
        """A new cgroup with ``limits``, or None where cgroups cannot be used."""
        found = hierarchies()
        if not found:
            return None
        name = f"bot-{next(_serial)}"
        dirs: dict[Hierarchy, Path] = {}
        try:
            for hierarchy in found:
                if hierarchy.controllers == {"cpu"} and limits.cpus is None:
                    continue  # a cpu group of its own would weigh all bots as one task
                parent = hierarchy.base / f"arena-{os.getpid()}"
                if not parent.is_dir():
                    _remove_stale(hierarchy.base)
                    parent.mkdir(exist_ok=True)
                    atexit.register(_remove_tree, parent)
                    if hierarchy.version == 2:
                        _enable_controllers(hierarchy.base, hierarchy.controllers)
                        _enable_controllers(parent, hierarchy.controllers)
                path = parent / name
                path.mkdir()
                dirs[hierarchy] = path
                _write_limits(hierarchy, path, limits)
        except OSError:
            BotCgroup(name, dirs).remove()
            raise
        return cls(name, dirs)

    def join(self, pid: int) -> None:
        """Move ``pid`` into this cgroup (every hierarchy)."""
        for path in self.dirs.values():
            (path / "cgroup.procs").write_text(str(pid))

    def pids(self) -> list[int]:
        """The processes in the cgroup now (from the pids hierarchy: no /proc scan)."""
        for hierarchy, path in self.dirs.items():
            if "pids" in hierarchy.controllers:
                try:
                    return [int(p) for p in (path / "cgroup.procs").read_text().split()]
                except OSError:
                    return []
        return []

    def threads(self, limit: int) -> list[int] | None:
        """The threads of every process in the cgroup now (v1 ``tasks``, v2
        ``cgroup.threads``: one read, no /proc scan); None when there are more than ``limit``
        or the list cannot be read (:mod:`referee.process.schedstat`, twice a clocked move:
        a bare ``os.read``, and at most the bytes ``limit`` ids take)."""
        if self._threads_file is None:
            self._threads_file = next(
                (str(path / ("tasks" if hierarchy.version == 1 else "cgroup.threads"))
                 for hierarchy, path in self.dirs.items() if "pids" in hierarchy.controllers),
                "")
        if not self._threads_file:
            return None
        try:
            fd = os.open(self._threads_file, os.O_RDONLY | os.O_CLOEXEC)
            try:
                text = os.read(fd, 12 * limit + 12)  # thread ids have at most 7 digits
            finally:
                os.close(fd)
        except OSError:
            return None
        tids = text.split()
        return [int(tid) for tid in tids] if len(tids) <= limit else None

    def thread_count(self) -> int | None:
        """How many threads the cgroup holds now (``pids.current``: the pids controller counts
        threads), read with one ``pread`` of a file kept open; None when it cannot be read."""
        try:
            if self._count_fd is None:
                path = next(path for hierarchy, path in self.dirs.items()
                            if "pids" in hierarchy.controllers)
                self._count_fd = os.open(path / "pids.current", os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(self._count_fd, 32, 0))
        except (OSError, ValueError, StopIteration):
            return None

    def throttled_ns(self) -> int | None:
        """Nanoseconds the cgroup's CPU quota (``limits.cpus``) has held its threads back in
        all, from ``cpu.stat``; None without a quota."""
        for hierarchy, path in self.dirs.items():
            if "cpu" not in hierarchy.controllers:
                continue
            key, scale = ("throttled_time", 1) if hierarchy.version == 1 else (
                "throttled_usec", 1000)
            with contextlib.suppress(OSError, ValueError):
                for line in (path / "cpu.stat").read_text().splitlines():
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value) * scale
        return None

    def setting(self, controller: str, v1: str, v2: str) -> str | None:
        """A setting of the cgroup (``memory``, ``memory.limit_in_bytes``, ``memory.max``)."""
        for hierarchy, path in self.dirs.items():
            if controller in hierarchy.controllers:
                with contextlib.suppress(OSError):
                    return (path / (v1 if hierarchy.version == 1 else v2)).read_text().strip()
        return None

    def oom_kills(self) -> int:
        """How many of the bot's processes the kernel killed for the memory limit."""
        for hierarchy, path in self.dirs.items():
            if "memory" not in hierarchy.controllers:
                continue
            name = "memory.oom_control" if hierarchy.version == 1 else "memory.events"
            with contextlib.suppress(OSError, ValueError):
                for line in (path / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        return 0

    def kill(self) -> None:
        """SIGKILL every process in the cgroup, forks racing the kill included: cgroup.kill on
        v2, else freeze (when the freezer is there), kill, thaw, until none is left."""
        for hierarchy, path in self.dirs.items():
            kill_file = path / "cgroup.kill"
            if hierarchy.version == 2 and kill_file.exists():
                with contextlib.suppress(OSError):
                    kill_file.write_text("1")
                    return
        freezer = next((p for h, p in self.dirs.items()
                        if "freezer" in h.controllers and h.version == 1), None)
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            if freezer is not None:
                with contextlib.suppress(OSError):
                    (freezer / "freezer.state").write_text("FROZEN")
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if freezer is not None:
                with contextlib.suppress(OSError):
                    (freezer / "freezer.state").write_text("THAWED")
            time.sleep(0.001)

    def remove(self, *, wait: bool = True) -> bool:
        """Remove the cgroup (after :meth:`kill`); False when a directory stayed busy (at
        once without ``wait``, else after a couple of seconds)."""
        if self._count_fd is not None:
            os.close(self._count_fd)
            self._count_fd = None
        removed = True
        deadline = time.monotonic() + (_REMOVE_WAIT_S if wait else 0.0)
        for path in self.dirs.values():
            while True:
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        removed = False
                        break
                    time.sleep(0.005)
        return removed


def _remove_tree(parent: Path) -> None:
    """Remove a run's cgroups: the bots' (emptied: a bot still running at exit is killed)
    and the run's own."""
    for child in parent.glob("bot-*"):
        with contextlib.suppress(OSError, ValueError):
            for pid in (child / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(pid), signal.SIGKILL)
        with contextlib.suppress(OSError):
            child.rmdir()
    with contextlib.suppress(OSError):
        parent.rmdir()


def _remove_stale(base: Path) -> None:
    """Remove what runs that were killed (SIGKILL leaves no atexit) left: empty cgroups
    under ``arena-<pid>`` of a pid that no longer runs."""
    for parent in base.glob("arena-*"):
        pid = parent.name.removeprefix("arena-")
        if not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
            continue
        for child in parent.glob("bot-*"):
            with contextlib.suppress(OSError):
                child.rmdir()  # fails, as it should, while a process is still in it
        with contextlib.suppress(OSError):
            parent.rmdir()


def _enable_controllers(path: Path, controllers: frozenset[str]) -> None:
    """v2: memory and pids for the bots' groups. Not cpu: its weights would make all bots of
    a run together weigh as much as one process of the rest of the machine."""
    wanted = " ".join(f"+{c}" for c in sorted(controllers & {"memory", "pids"}))
    if wanted:
        (path / "cgroup.subtree_control").write_text(wanted)


def _write_limits(hierarchy: Hierarchy, path: Path, limits: Limits) -> None:
    names = hierarchy.controllers
    v1 = hierarchy.version == 1
    if "memory" in names and limits.memory_mb is not None:
        size = str(limits.memory_mb << 20)
        if v1:
            (path / "memory.limit_in_bytes").write_text(size)
            swap = path / "memory.memsw.limit_in_bytes"  # memory + swap: no escape to swap
            if swap.exists():
                swap.write_text(size)
        else:
            (path / "memory.max").write_text(size)
            with contextlib.suppress(OSError):
                (path / "memory.swap.max").write_text("0")
    if "pids" in names and limits.processes is not None:
        (path / "pids.max").write_text(str(limits.processes))
    if "cpu" in names and limits.cpus is not None:
        quota = str(max(1000, int(limits.cpus * CPU_PERIOD_US)))
        if v1:
            (path / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
            (path / "cpu.cfs_quota_us").write_text(quota)
        else:  # pragma: no cover - cpu is not enabled for the bots' groups on v2
            with contextlib.suppress(OSError):
                (path / "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")
