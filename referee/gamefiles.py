"""Where a game's files go: the names of the bots' stderr logs and of protocol transcripts.

The referee writes them; a run directory says where they are
(:meth:`arena.rundir.layout.RunDir.stderr_log`, :meth:`~arena.rundir.layout.RunDir.transcript`),
and every reader asks it. Names come from a bot's name or a game's id, which a config or a
league chooses: anything but letters, digits, ``.``, ``_`` and ``-`` becomes ``_``, so a name
never leaves its folder.
"""

from __future__ import annotations

import re
from pathlib import Path


def file_safe(text: str, default: str) -> str:
    """``text`` as a file name (``default`` when nothing of it is left)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text) or default


def stderr_path(log_dir: Path | None, name: str, game_id: str = "") -> Path | None:
    """Where a bot's stderr goes: ``log_dir/<name>.stderr.log`` for a process that plays game
    after game, ``log_dir/<name>/<game id>.stderr.log`` for one game's process, so that games
    of the same bot running at once never share a file."""
    if log_dir is None:
        return None
    safe = file_safe(name, "bot")
    if game_id:
        return log_dir / safe / f"{file_safe(game_id, 'game')}.stderr.log"
    return log_dir / f"{safe}.stderr.log"


def transcript_path(transcript_dir: Path, game_id: str) -> Path:
    """Where a game's protocol transcript goes: ``<dir>/<game id>.log``."""
    return transcript_dir / f"{file_safe(game_id, 'game')}.log"
