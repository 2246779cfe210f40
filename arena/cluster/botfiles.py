"""What a bot is made of on disk: the files its command names and their content hashes, or,
when it is shipped to cluster workers, its folder as the bot-folder store knows it (its
digest and archive: :mod:`arena.bots.store`).

A cluster worker must run the very bot the submitting machine was configured with. The
submitting machine describes each bot as a :class:`BotFiles` (its program and script files
with their SHA-256, or the store digest of its shipped folder); a worker recomputes the same
hashes on its own disk before its first game and refuses a bot whose files differ, and lands a
shipped folder in its own store only when it hashes to the digest (``arena.cluster.worker``).

The Python running the arena (``{python}`` in a config) is not hashed: a worker runs its own
interpreter, and the project version is checked separately through :func:`code_hash`.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path
from typing import Final

import msgspec

from arena.bots.store import StoreError, folder_archive
from arena.errors import UserError
from referee.botspec import BotSpec

CHUNK: Final = 1 << 20
SHIP_MAX_BYTES: Final = 256 << 20
"""The largest archive ``ship = true`` sends (the scheduler holds it in memory)."""
CODE_PACKAGES: Final = ("arena", "referee", "protocol", "ratings")
"""The packages whose source must be the same on every worker (the referee's rules and clocks)."""


class FileHash(msgspec.Struct, frozen=True):
    """One file a bot's command names, with its content hash on the submitting machine."""

    path: str
    sha256: str
    program: bool = False
    """True for the executable itself (argv[0]): it must also be executable on the worker."""


class BotFiles(msgspec.Struct, frozen=True):
    """How a worker checks (or receives) one bot."""

    name: str
    files: tuple[FileHash, ...] = ()
    """Checked in place on the worker (bots that are not shipped)."""
    arena_python: bool = False
    """argv[0] is the arena's own interpreter: a worker substitutes its own."""
    shipped: str | None = None
    """The bot's folder (its cwd) when ``ship = true``: replaced on the worker by the folder
    of its store holding the unpacked archive."""
    digest: str | None = None
    """The shipped folder's digest in the bot-folder store
    (:func:`arena.bots.store.folder_digest`)."""


def file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def command_files(spec: BotSpec) -> list[tuple[str, bool]]:
    """The existing files a bot's argv names (absolute paths), argv[0] flagged as the program;
    the arena's interpreter excluded."""
    cwd = Path(spec.cwd or os.getcwd())
    found: list[tuple[str, bool]] = []
    for index, arg in enumerate(spec.cmd):
        if index == 0 and arg == sys.executable:
            continue
        if not arg or arg.startswith("-"):
            continue
        candidate = Path(arg) if os.path.isabs(arg) else cwd / arg
        if candidate.is_file():
            found.append((os.path.abspath(candidate), index == 0))
    return found


def describe(spec: BotSpec, *, ship: bool = False) -> tuple[BotFiles, bytes | None]:
    """The bot as a worker must find it, and its folder's archive when it is shipped."""
    arena_python = bool(spec.cmd) and spec.cmd[0] == sys.executable
    if ship:
        folder = Path(spec.cwd or os.getcwd())
        try:
            digest, data = folder_archive(folder)
        except StoreError as exc:
            raise UserError(f"bot {spec.name!r}: ship = true sends its folder as the bot "
                            f"store keeps one, and it refuses it: {exc}") from None
        if len(data) > SHIP_MAX_BYTES:
            raise UserError(
                f"bot {spec.name!r}: its folder {folder} packs to {len(data) >> 20} MiB, more "
                f"than ship = true sends ({SHIP_MAX_BYTES >> 20} MiB): install the bot on the "
                "workers instead, or move what it does not need out of its folder")
        return BotFiles(spec.name, arena_python=arena_python, shipped=str(folder),
                        digest=digest), data
    files = tuple(FileHash(path, file_sha256(path), program)
                  for path, program in command_files(spec))
    return BotFiles(spec.name, files=files, arena_python=arena_python), None


@cache
def code_hash() -> str:
    """SHA-256 over the source of the arena's own packages, as installed in this process."""
    import importlib.util

    digest = hashlib.sha256()
    for package in CODE_PACKAGES:
        found = importlib.util.find_spec(package)
        if found is None or not found.submodule_search_locations:
            continue
        root = Path(next(iter(found.submodule_search_locations)))
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{package}/{path.relative_to(root)}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
