"""Which file a request may read: the one check every route that sends a file makes.

A URL's path arrives decoded (``%2e%2e`` is ``..``, ``%2f`` is ``/``) and a client may send
``x/..`` as it is, so a path's first parts say nothing about where it leads. Checking them
and then opening the path let ``/league/report/%2e%2e/league.toml`` read the league's config,
its authors' token hashes and every stored bot. Here the path is resolved first (``..``
collapsed, every symbolic link followed) and only the resolved path is compared with what
the route may send: a :class:`Served` set of places under the route's root, taken as named
(a served folder that is itself a link serves nothing), minus its hidden places (compared by
name on the resolved path, and by what each hidden place resolves to, so a link to a hidden
folder leads nowhere either). :func:`arena.web.runfiles.open_version` then makes sure the
file it opens is the one at the resolved path (a link swapped in after the check gets a 404).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Served:
    """What a route may send from under its root, as paths relative to that root."""

    places: tuple[str, ...]
    """Files and folders that may be sent (a folder: everything in it); ``""`` is the root
    itself. Written by the code, never taken from a request."""
    hidden: tuple[str, ...] = ()
    """Places inside ``places`` that are never sent, as patterns (``nights/*/logs``: every
    night's logs): a file there, or a file one of them leads to, is refused."""


def served_path(root: Path, relative: str, served: Served) -> Path | None:
    """The resolved path ``relative`` names under ``root`` when ``served`` lets it be sent;
    None when it leads anywhere else (``..``, an absolute path, a link out of the served
    places or into a hidden one, a NUL byte)."""
    try:
        base = Path(os.path.realpath(root))
        path = Path(os.path.realpath(base / relative))
    except (OSError, ValueError):
        return None
    if path != base and base not in path.parents:
        return None
    if not any(_within(path, base / place) for place in served.places):
        return None
    inner = path.relative_to(base).parts
    for pattern in served.hidden:
        if _named(inner, PurePosixPath(pattern).parts):
            return None
        for match in glob.glob(f"{glob.escape(str(base))}/{pattern}", include_hidden=True):
            if _within(path, Path(os.path.realpath(match))):
                return None
    return path


def served_exactly(root: Path, path: Path) -> Path | None:
    """``path`` (under ``root``, made by the code: an author's own log) resolved, when it is
    found where it is named, no link on the way; else None."""
    relative = path.relative_to(root).as_posix()
    return served_path(root, relative, Served((relative,)))


def _within(path: Path, place: Path) -> bool:
    return path == place or place in path.parents


def _named(parts: Iterable[str], pattern: tuple[str, ...]) -> bool:
    """Do ``parts`` begin with ``pattern``'s (each part matched as a shell pattern)?"""
    head = tuple(parts)[:len(pattern)]
    return len(head) == len(pattern) and all(map(fnmatchcase, head, pattern))
