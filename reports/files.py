"""Atomic file writes for the report: a reader (a browser reloading, a second build) sees the
old file or the new one, never half of one, even when two builds run at once."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_with(path: Path, writer: Callable[[Path], object]) -> Path:
    """Let ``writer`` fill a fresh temporary file beside ``path``, then move it into place."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        writer(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_text(path: Path, text: str) -> Path:
    return write_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
