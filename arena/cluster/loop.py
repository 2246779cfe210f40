"""A cluster worker keeps its bots running between games, as a local run does.

Each Dask executor thread that plays a tournament's games gets a :class:`GameLoop`: a trio
loop on a thread of its own holding one :class:`~arena.bots.pool.BotPool`, so that the bots'
processes (and their ``restart`` policy) outlive a task, as they outlive a game in a local
run. The task thread hands each game to its loop and waits, so the thread still plays one game
at a time. A loop ends its bots when its tournament says so (:func:`close_loops`, called by
the submitting machine at the end of the run), when a game of another tournament arrives on
its thread, or after :data:`IDLE_CLOSE_S` without a game (a submitting machine that died).

Files: the pool writes its stderr logs (one per process, a marker line per game) and the
transcripts under the loop's own folder; after each game :meth:`GameLoop.new_bytes` gives what
was appended to each file during that game, which the submitting machine appends to the same
path in its run directory, so the files there grow as they would in a local run.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final, TypeVar

import trio

from arena.bots.pool import MARKER_PREFIX, BotPool
from arena.rundir.layout import RunDir
from referee.gamefiles import transcript_path

IDLE_CLOSE_S: Final = 60.0
"""A loop that played no game for this long ends its bots and its thread."""
FILE_CAP_BYTES: Final = 8 << 20
"""The most of one file's new bytes sent back per game; head and tail are kept."""

T = TypeVar("T")


class GameLoop:
    """One trio loop thread and its bot pool, for one tournament on one executor thread."""

    def __init__(self, run: str) -> None:
        self.run = run
        self.root = Path(tempfile.mkdtemp(prefix="arena-worker-"))
        self.last_used = time.monotonic()
        self._playing = 0
        """Games in the loop now."""
        self._lock = threading.Lock()
        self._sizes: dict[Path, int] = {}
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop: trio.Event | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main,),
                                        name=f"arena-games-{run}", daemon=True)
        self._thread.start()
        self._ready.wait()

    @property
    def busy(self) -> bool:
        """Is a game being played in the loop?"""
        return self._playing > 0

    @property
    def logs(self) -> Path:
        return RunDir(self.root).logs

    @property
    def transcripts(self) -> Path:
        return RunDir(self.root).transcripts

    async def _main(self) -> None:
        self.pool = BotPool(self.logs)
        self._token = trio.lowlevel.current_trio_token()
        self._stop = trio.Event()
        self._ready.set()
        try:
            while not self._stop.is_set():
                with trio.move_on_after(IDLE_CLOSE_S / 4):
                    await self._stop.wait()
                if not self.busy and time.monotonic() - self.last_used > IDLE_CLOSE_S:
                    idle, self.pool = self.pool, BotPool(self.logs)
                    await idle.aclose()  # no game for a while: end the kept bots
        finally:
            await self.pool.aclose()  # shielded: every idle bot is ended

    def play(self, game: Callable[[BotPool], Awaitable[T]]) -> T:
        """Run ``game(pool)`` in the loop and wait for it (from the task's thread)."""
        with self._lock:
            self._playing += 1
            self.last_used = time.monotonic()
        try:
            return trio.from_thread.run(game, self.pool, trio_token=self._token)
        finally:
            with self._lock:
                self.last_used = time.monotonic()
                self._playing -= 1

    def new_bytes(self, game_id: str) -> dict[str, bytes]:
        """What each file under the loop's folder gained since the last call, by its path
        relative to the folder (``logs/...``, ``transcripts/...``), once game ``game_id`` is
        over; a log's gain made only of the pool's game markers is left out (a local run
        deletes such logs). Of the transcripts only that game's is taken: in a shared loop
        the others belong to games still running."""
        with self._lock:
            return self._new_bytes(transcript_path(self.transcripts, game_id))

    def _new_bytes(self, transcript: Path) -> dict[str, bytes]:
        gains: dict[str, bytes] = {}
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            if path.is_relative_to(self.transcripts) and path != transcript:
                continue
            try:
                size = path.stat().st_size
                start = self._sizes.get(path, 0)
                if size <= start:
                    continue
                with open(path, "rb") as handle:
                    data = _capped(handle, start, size)
            except OSError:
                continue  # removed meanwhile (the pool drops logs its bot never wrote to)
            self._sizes[path] = size
            if path.is_relative_to(self.transcripts):
                path.unlink(missing_ok=True)  # one file per game: nothing more will come
                self._sizes.pop(path, None)
            elif all(line.startswith(MARKER_PREFIX.encode())
                     for line in data.splitlines() if line):
                continue
            gains[str(path.relative_to(self.root))] = data
        return gains

    def close(self) -> None:
        """End the loop's bots and its thread, and remove its folder."""
        if self._token is not None and self._stop is not None:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        self._thread.join(timeout=15)
        shutil.rmtree(self.root, ignore_errors=True)


def _capped(handle: object, start: int, size: int) -> bytes:
    assert hasattr(handle, "seek") and hasattr(handle, "read")
    handle.seek(start)
    if size - start <= FILE_CAP_BYTES:
        return bytes(handle.read(size - start))
    half = FILE_CAP_BYTES // 2
    head = handle.read(half)
    handle.seek(size - half)
    note = f"\n[arena: {size - start - 2 * half} bytes cut on the worker]\n".encode()
    return bytes(head) + note + bytes(handle.read(half))


_loops: dict[tuple[str, int], GameLoop] = {}
_loops_lock = threading.Lock()


def loop_for(run: str) -> GameLoop:
    """This thread's loop for tournament ``run``; loops of other tournaments on this thread
    and loops idle for too long are closed first."""
    me = threading.get_ident()
    now = time.monotonic()
    with _loops_lock:
        stale = [key for key, loop in _loops.items()
                 if not loop.busy and key != (run, me)
                 and (key[1] == me or now - loop.last_used > IDLE_CLOSE_S)]
        closing = [_loops.pop(key) for key in stale]
        loop = _loops.get((run, me))
        if loop is None:
            loop = _loops[(run, me)] = GameLoop(run)
    for old in closing:
        old.close()
    return loop


def close_loops(run: str) -> int:
    """End every loop (and kept bot) of tournament ``run`` in this process; how many."""
    with _loops_lock:
        closing = [_loops.pop(key) for key in list(_loops) if key[0] == run]
    for loop in closing:
        loop.close()
    return len(closing)
