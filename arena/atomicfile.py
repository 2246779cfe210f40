"""The one way the arena replaces a file: written whole beside it, then moved into place.

A reader (a browser reloading the report, a second build, a night reading a version's file
while a submission rewrites it) sees the old file or the new one, never half of one, even
when two writers run at once: each writes its own temporary file (``.NAME.XXXX.tmp``, made
with ``O_EXCL``, so a link planted under a fixed name is never followed), and a writer that
fails removes it. A full disk leaves the old file as it was.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

FILE_MODE: Final = 0o644
"""What a replaced file may be read by: everyone (run and league files are shown by
``arena serve`` and read by other commands); a secret passes its own (0o600)."""


def write_with(path: Path, writer: Callable[[Path], object], *, mode: int = FILE_MODE) -> Path:
    """Let ``writer`` fill a fresh temporary file beside ``path`` (it may also check it and
    raise), then move it into place with ``mode``; returns ``path``."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        writer(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_atomic(path: Path, data: bytes | str, *, mode: int = FILE_MODE) -> Path:
    """Replace ``path`` with ``data`` (text is written as UTF-8); returns ``path``."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return write_with(path, lambda tmp: tmp.write_bytes(raw), mode=mode)
