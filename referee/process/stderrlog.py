"""A bot's standard error, read by the referee through a pipe and written to a capped log file.

The bot never writes to the log itself: were its stderr the file, a full disk would fail the
bot's own writes (a Python bot dies of the OSError) and the game would be scored against an
innocent bot for the machine's fault, and a chatty bot could fill the disk. Here the referee
drains the pipe all game long (so the bot never blocks on it), writes at most
:data:`MAX_STDERR_LOG_BYTES` per process to the log, counts the rest, and treats a log that
cannot be opened or written (disk full, too many open files) as its own problem: the bot
plays on, the log says what was lost when it can.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import BinaryIO, Final

import trio

from protocol.bounds import MAX_STDERR_LOG_BYTES

DRAIN_GRACE_S: Final = 0.5
"""How long :meth:`StderrLog.aclose` waits for the pipe's end once the bot is gone (a process
that escaped the group may hold the pipe open for ever)."""
_CHUNK: Final = 65536


class StderrLog:
    """Drains one pipe into ``path`` (created at the first byte; appended to) in a trio system
    task, so that it needs no nursery and outlives nothing: :meth:`aclose` ends it."""

    def __init__(self, read_fd: int, path: Path | None) -> None:
        self.path = path
        self._stream = trio.lowlevel.FdStream(read_fd)
        self._file: BinaryIO | None = None
        self.written = 0
        """Bytes of stderr written to the log."""
        self.dropped = 0
        """Bytes of stderr read and not written (over the cap, or the log failed)."""
        self.failure: str | None = None
        """Why the log could not be written, once it could not."""
        self._held: bytes = b""
        """A section mark waiting for the bot's next bytes (:meth:`mark`)."""
        self._done = trio.Event()
        self._scope = trio.CancelScope()
        trio.lowlevel.spawn_system_task(self._drain, name=f"stderr log {path}")

    async def _drain(self) -> None:
        try:
            with self._scope:
                while True:
                    try:
                        chunk = await self._stream.receive_some(_CHUNK)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        break
                    if not chunk:
                        break
                    self._keep(chunk)
        finally:
            self._finish()
            self._done.set()

    def _keep(self, data: bytes) -> None:
        room = MAX_STDERR_LOG_BYTES - self.written
        if self.path is None or self.failure is not None or room <= 0:
            self.dropped += len(data)
            return
        kept = data[:room]
        self.dropped += len(data) - len(kept)
        if self._write(kept):
            self.written += len(kept)
        else:
            self.dropped += len(kept)

    def mark(self, text: str) -> None:
        """An ``[arena]`` line that opens a section of the log (a game's start, when the
        process plays game after game), held until the bot writes again; a newer mark
        replaces it (that section stayed empty). So only what the bot said is introduced,
        and a bot that never writes to stderr costs no file and no write per game."""
        self._held = f"[arena] {text}\n".encode()

    def note(self, text: str) -> None:
        """An ``[arena]`` line in the log (a dropped stdout line...), outside the cap."""
        if self.path is not None and self.failure is None:
            self._write(f"[arena] {text}\n".encode())

    def _write(self, data: bytes) -> bool:
        try:
            if self._file is None:
                assert self.path is not None
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - see _finish
            if self._held:
                held, self._held = self._held, b""
                self._file.write(held)
            self._file.write(data)
            return True
        except OSError as exc:
            self.failure = exc.strerror or str(exc)
            self._close_file()
            return False

    def _finish(self) -> None:
        if self.dropped and self.failure is None:
            self.note(f"{self.dropped} more bytes of stderr not logged (the log keeps "
                      f"{MAX_STDERR_LOG_BYTES} bytes per process)")
        self._close_file()
        with contextlib.suppress(OSError):
            self._stream.close()

    def _close_file(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    async def aclose(self, grace: float = DRAIN_GRACE_S) -> None:
        """Wait up to ``grace`` seconds for the rest of the pipe, then stop; never raises."""
        with trio.CancelScope(shield=True):
            with trio.move_on_after(grace):
                await self._done.wait()
            self._scope.cancel()
            await self._done.wait()
