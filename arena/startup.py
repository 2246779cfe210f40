"""A command's process from its start to its exit: what it need not do on either side.

Starting ``arena run`` creates a few hundred thousand objects (the modules, classes and
functions of trio, msgspec, the rules, the referee), nearly all of which live as long as the
process. The collector, triggered by allocations, walks them again and again while they are
made: a tenth of the runner's CPU before its first ``go``, for no garbage. So the program
(:func:`arena.cli.console`) starts with the collector off (:func:`pause`), and the command
turns it back on when its long work begins (:func:`settle`: ``arena run`` just before its
games, any other command before it runs), first moving everything alive then into the
permanent generation (:func:`gc.freeze`), so that no later collection walks it again either.
Reference counting frees everything else as usual in between; only cycles made during the
start wait for the collector. Tests that call :func:`arena.cli.main` in their own process
never pause it.

msgspec is imported without ``typing_extensions`` (:func:`load_msgspec`), and the process
ends without tearing its interpreter down when nothing is left to tear down (:func:`leave`).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from typing import NoReturn

_paused = False
_inherited: frozenset[int] = frozenset()
"""The file descriptors the process was started with (see :func:`leave`)."""


def pause() -> None:
    """Turn the cyclic collector off for the start of this process's command, and note the
    file descriptors it was given."""
    global _paused, _inherited
    _inherited = _open_fds()
    if gc.isenabled():
        gc.disable()
        _paused = True


def settle() -> None:
    """The start is over: freeze what is alive and turn the collector back on (a no-op
    unless :func:`pause` turned it off)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def load_msgspec() -> None:
    """Import msgspec without ``typing_extensions``, which it tries first and falls back from:
    on Python 3.11 and later ``typing`` has what it takes from there (``get_type_hints`` with
    extras, ``Required``, ``NotRequired``), and the module with what it imports in turn is
    4-5 ms of a start whose floor is 0.16 s (issue 40). Only for msgspec's own import: a
    library imported later (the web pages') gets ``typing_extensions`` as usual. A no-op once
    either is imported."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # "not installed"
    try:
        import msgspec  # noqa: F401
    finally:
        if "typing_extensions" in sys.modules and sys.modules["typing_extensions"] is None:
            del sys.modules["typing_extensions"]


def leave(status: int) -> NoReturn:
    """End the process with ``status``; when nothing is left to tear down, without the
    interpreter's teardown.

    After its last line a run's interpreter spends 10-30 ms (wall and CPU, at load 10-16
    here) finalising its modules and freeing, one by one, objects that die with the process
    anyway. That is skipped (:func:`os._exit`, after the ``atexit`` handlers, which remove
    the bots' cgroups, and a flush of stdout and stderr) only when the normal exit would have
    nothing more to do that anyone could see: no thread but daemon ones (the normal exit
    would wait for the others), no file descriptor open that the process did not start with
    (a file object still open may hold unwritten data, which only its closing would write;
    the journal is written unbuffered and fsync'd per game, and everything else the arena
    writes is closed when written), and no child process, running or unreaped. Otherwise,
    or without :func:`pause` at the start (a test's own process), the usual
    :func:`sys.exit`. Data written and not fsync'd is in
    the kernel's page cache either way: an exit, fast or not, never fsyncs."""
    if not _inherited or not _nothing_left():
        sys.exit(status)
    import atexit

    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(status)  # let the normal exit say what it says about it
    os._exit(status)


def _nothing_left() -> bool:
    """Whether the process has no thread but daemon ones, no file descriptor it was not
    started with, and no child (see :func:`leave`)."""
    main = threading.main_thread()
    if any(thread is not main and not thread.daemon for thread in threading.enumerate()):
        return False
    if _open_fds() - _inherited:
        return False
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True  # no child at all
    return False  # one still running, or a zombie nobody reaped


def _open_fds() -> frozenset[int]:
    """The file descriptors open now (empty where ``/proc`` cannot say)."""
    try:
        listed = os.listdir("/proc/self/fd")
    except OSError:
        return frozenset()
    fds = set()
    for name in listed:
        try:
            os.fstat(int(name))  # the listing's own descriptor is closed by now
        except OSError:
            continue
        fds.add(int(name))
    return frozenset(fds)
