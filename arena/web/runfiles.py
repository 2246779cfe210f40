"""The run directory's files over HTTP (``/run/...``), each sent as one whole version.

The runner rebuilds the report while ``arena serve`` serves it. Every report file is replaced
atomically (written beside, then renamed: :mod:`arena.atomicfile`), but a server that takes a
file's size from its name and then opens the name can announce one version's length and send
the other's bytes; the browser then drops the file (``ERR_CONTENT_LENGTH_MISMATCH`` on a chart,
seen with Starlette's ``StaticFiles`` while a periodic report was written). Here the file is
opened first and the length, the type and the bytes all come from the open file: the version
current when the request came, whole. A file that grows meanwhile (the journal, a live game)
is sent up to the length announced.

Which file a request may read is decided on its resolved path (:mod:`arena.web.served`); the
file opened must then be the one at that path.
"""

from __future__ import annotations

import mimetypes
import os
import stat
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import BinaryIO, Final

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from arena.web.served import Served, served_path

CHUNK: Final = 64 * 1024
"""Bytes read at a time from a large file; smaller files are sent in one piece."""
OPEN_FLAGS: Final = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW | os.O_CLOEXEC
"""A FIFO planted among the served files must not hang the server on ``open``, nor a
terminal become its own, nor a link at the checked name be followed."""
DELETED: Final = " (deleted)"
"""What ``/proc/self/fd/N`` adds to the path of an open file since unlinked (the report
replaced it after it was opened)."""


def resolve(run_dir: Path, relative: str) -> Path | None:
    """The path ``relative`` names inside ``run_dir``, or None when it leads outside (``..``,
    an absolute path, a symbolic link that points out of the directory)."""
    path = served_path(run_dir, relative, Served(("",)))
    return None if path is None or path == Path(os.path.realpath(run_dir)) else path


def open_version(path: Path) -> tuple[BinaryIO, int] | None:
    """The regular file at ``path`` (a resolved path: :func:`served_path`), open, and its
    length now; None when there is none, or when the file opened is not at ``path`` (a folder
    on the way swapped for a link after the path was checked)."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except (OSError, ValueError):
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or not _opened_at(fd, info, path):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb"), info.st_size


def _opened_at(fd: int, info: os.stat_result, path: Path) -> bool:
    """Is the open file ``fd`` the one at ``path``? Read from where the kernel says it is
    (``/proc/self/fd``), or where there is no ``/proc``, compared with what ``path`` is now."""
    try:
        where = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        try:
            now = os.stat(path, follow_symlinks=False)
        except OSError:
            return False
        return (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino)
    if info.st_nlink == 0 and where.endswith(DELETED):
        where = where[:-len(DELETED)]
    return where == str(path)


def _chunks(file: BinaryIO, length: int) -> Iterator[bytes]:
    """Exactly ``length`` bytes of ``file`` (fewer only if it was cut short meanwhile)."""
    with file:
        left = length
        while left > 0:
            data = file.read(min(CHUNK, left))
            if not data:
                return
            left -= len(data)
            yield data


def file_response(path: Path) -> Response:
    """``path`` as it is now, or a plain 404."""
    opened = open_version(path)
    if opened is None:
        return not_found()
    file, length = opened
    media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    headers = {"Content-Length": str(length), "Cache-Control": "no-cache"}
    if length <= CHUNK:
        with file:
            body = file.read(length)
        headers["Content-Length"] = str(len(body))
        return Response(body, media_type=media, headers=headers)
    return StreamingResponse(_chunks(file, length), media_type=media, headers=headers)


def not_found() -> Response:
    return Response("not found", status_code=404, media_type="text/plain")


def served_file(root: Path, served: Served) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of a route ``.../{path:path}`` sending what ``served`` lets it send from
    under ``root`` (``/run/...``, ``/league/...``), and a plain 404 for anything else."""

    async def endpoint(request: Request) -> Response:
        path = served_path(root, request.path_params["path"], served)
        return not_found() if path is None else file_response(path)

    return endpoint


def run_files(run_dir: Path, hidden: frozenset[str] = frozenset()
              ) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``/run/{path:path}`` for ``run_dir``, never serving its entries named in
    ``hidden`` (a league night's bots' logs: each author's own)."""
    return served_file(run_dir, Served(("",), tuple(sorted(hidden))))
