"""Process trees from /proc: who descends from whom, and ending a tree that tried to escape.

Shared by the referee (ending a bot with every descendant, listing its threads for
:mod:`referee.process.schedstat`), the tests and the benchmarks (proving that no bot outlived
its game): one reading of ``/proc/PID/stat`` for all of them.
"""

from __future__ import annotations

import contextlib
import os
import signal
from functools import cache
from pathlib import Path


def proc_stat(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, process group, start time) from /proc/PID/stat; None if gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] in (b"Z", b"X"):
        return None
    return int(fields[1]), int(fields[2]), int(fields[19])


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for its reaper."""
    return proc_stat(pid) is not None


def descendants(pid: int) -> dict[int, int]:
    """Every live descendant of ``pid`` (children, theirs, ...) -> its start time, from /proc."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = proc_stat(int(entry))
        if stat is not None:
            children.setdefault(stat[0], []).append(int(entry))
            started[int(entry)] = stat[2]
    found: dict[int, int] = {}
    todo = list(children.get(pid, ()))
    while todo:
        child = todo.pop()
        if child not in found:
            found[child] = started[child]
            todo.extend(children.get(child, ()))
    return found


def kill_escaped(tree: dict[int, int]) -> None:
    """SIGKILL each listed descendant still alive (the group kill missed those that left the
    group), with its own group and its descendants. The start time guards against a pid
    reused since the listing."""
    for pid, started in tree.items():
        stat = proc_stat(pid)
        if stat is None or stat[2] != started:
            continue
        more = descendants(pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            if stat[1] == pid:  # it leads its own group (setsid/setpgid): the group too
                os.killpg(pid, signal.SIGKILL)
        for other in more:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(other, signal.SIGKILL)


def tagged(tag: str) -> dict[int, str]:
    """Live (not zombie) processes whose argv contains ``tag`` -> their command line: how the
    tests and benchmarks prove that no bot outlived its game (each gives its bots a tag)."""
    found: dict[int, str] = {}
    needle = tag.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline and alive(int(entry.name)):
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return found


def read_small(path: str, size: int = 4096) -> bytes:
    """The first ``size`` bytes of a small file in one read: a third of ``open().read()``'s
    cost, which matters twice a move (no Python file object, no buffer)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def process_threads(pid: int, limit: int) -> list[int] | None:
    """The threads of ``pid`` and of its descendants as ``/proc/<pid>/task/<tid>/children``
    shows them (on a kernel without that file, ``pid``'s own threads); None when there are
    more than ``limit`` or ``pid`` is gone."""
    found: list[int] = []
    todo = [pid]
    while todo:
        process = todo.pop()
        try:
            tids = os.listdir(f"/proc/{process}/task")
        except OSError:
            if process == pid:
                return None
            continue  # a child that just ended
        found.extend(int(tid) for tid in tids)
        if len(found) > limit:  # every process has a thread: this bounds the walk too
            return None
        if not _children_files():
            continue
        for tid in tids:
            try:
                todo.extend(int(child) for child in
                            read_small(f"/proc/{process}/task/{tid}/children").split())
            except OSError:
                continue  # a thread that just ended
    return found


@cache
def _children_files() -> bool:
    """Does this kernel list a thread's children (``CONFIG_PROC_CHILDREN``)?"""
    return os.path.exists("/proc/thread-self/children")
