"""The run directory's files over HTTP (``/run/...``), each sent as one whole version.

The runner rebuilds the report while ``arena serve`` serves it. Every report file is replaced
atomically (written beside, then renamed: :mod:`reports.files`), but a server that takes a
file's size from its name and then opens the name can announce one version's length and send
the other's bytes; the browser then drops the file (``ERR_CONTENT_LENGTH_MISMATCH`` on a chart,
seen with Starlette's ``StaticFiles`` while a periodic report was written). Here the file is
opened first and the length, the type and the bytes all come from the open file: the version
current when the request came, whole. A file that grows meanwhile (the journal, a live game)
is sent up to the length announced.
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

CHUNK: Final = 64 * 1024
"""Bytes read at a time from a large file; smaller files are sent in one piece."""


def resolve(run_dir: Path, relative: str) -> Path | None:
    """The path ``relative`` names inside ``run_dir``, or None when it leads outside (``..``,
    an absolute path, a symbolic link that points out of the directory)."""
    root = run_dir.resolve()
    candidate = (root / relative).resolve()
    if candidate == root or root not in candidate.parents:
        return None
    return candidate


def open_version(path: Path) -> tuple[BinaryIO, int] | None:
    """The regular file at ``path``, open, and its length now; None when there is none."""
    try:
        file = path.open("rb")
    except OSError:
        return None
    info = os.fstat(file.fileno())
    if not stat.S_ISREG(info.st_mode):
        file.close()
        return None
    return file, info.st_size


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
        return Response("not found", status_code=404, media_type="text/plain")
    file, length = opened
    media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    headers = {"Content-Length": str(length), "Cache-Control": "no-cache"}
    if length <= CHUNK:
        with file:
            body = file.read(length)
        headers["Content-Length"] = str(len(body))
        return Response(body, media_type=media, headers=headers)
    return StreamingResponse(_chunks(file, length), media_type=media, headers=headers)


def run_files(run_dir: Path, hidden: frozenset[str] = frozenset()
              ) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``/run/{path:path}`` for ``run_dir``, never serving its entries named in
    ``hidden`` (a league night's bots' logs: each author's own)."""

    async def endpoint(request: Request) -> Response:
        relative = request.path_params["path"]
        path = resolve(run_dir, relative)
        parts = Path(relative).parts
        if path is None or (parts and parts[0] in hidden):
            return Response("not found", status_code=404, media_type="text/plain")
        return file_response(path)

    return endpoint
