"""The bot-folder store: each bot's folder kept once, named by the hash of its content, and
the one definition of that hash.

Two stores use it. A league's (``store/<digest>/``) holds every submitted folder: copied,
built, then frozen (:func:`copy_in`, :func:`commit`). A cluster worker's cache
(``~/.cache/arena/bots/<digest>/``) holds the folders of bots shipped to it (``ship =
true``): the submitting machine sends :func:`folder_archive`'s archive with its digest, and
the worker lands it with :func:`unpack` only when the unpacked folder hashes to that digest.
The same folder has the same digest in both, held to the same rules.

A submission is copied, never linked: later edits of the author's folder change nothing that
plays. The copy is read once, file by file, and hashed as it is written, so what is hashed is
what is stored. The digest (:data:`DIGEST_CHARS` hex characters of a SHA-256) covers, in the
order of their relative paths: every folder, every file's executable bit and content, every
symbolic link's target text. Same content, same digest: the folder is stored (and built) once.

Uploads are hostile, so the copy refuses, naming the path:

* special files (FIFOs, sockets, devices): a FIFO would hang the copy;
* symbolic links whose target is absolute or resolves outside the folder (the stored copy
  holds the link itself, which must mean the same thing there); links inside are kept;
* more than :data:`MAX_FILES` entries or :data:`MAX_BYTES` bytes in all;
* set-user-ID and set-group-ID files (a bot needs neither).

A build writes into the copy as a stranger would: when it ran, :func:`commit` holds what it
left to the same rules (the same listing, nothing skipped, not even a ``.git`` it made), and
to the league's upload limits on the whole (``unpacked_mb``, ``upload_files``), before the
copy is frozen; a refusal drops the copy. Without that, a build could leave a link to
``authors.json`` in the frozen store, a FIFO, or gigabytes of output.

Version-control folders (``.git``, ``.hg``, ``.svn``) and Python's ``__pycache__``, at any
depth, are left out of the copy, the archive and the digest: they are history and caches, not
the bot, and a cache changes whenever the bot runs.

A copy lands in ``store/.incoming-*/`` (a private folder), is built there if the bot has a
build (:mod:`arena.league.build`), then frozen (owned by root, readable by all, writable by
none) and renamed to ``store/<digest>/``: a crash leaves at most an ``.incoming-*`` folder,
never a half-written entry (or an ``.upload-*`` folder: an upload being unpacked before its
copy). A build therefore runs at a path that is not the final one: a build must not bake its
own absolute path into what it makes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.errors import UserError

DIGEST_CHARS: Final = 32
"""Hex characters of the SHA-256 kept as a stored folder's name (128 bits)."""
MAX_FILES: Final = 10_000
"""Most entries (files, folders, links) one submitted folder may hold."""
MAX_BYTES: Final = 512 << 20
"""Most bytes one submitted folder may hold, all files together."""
VCS_DIRS: Final = frozenset({".git", ".hg", ".svn", "__pycache__"})
"""Folders left out of a copy wherever they are (history and caches)."""
INCOMING_PREFIX: Final = ".incoming-"
UPLOAD_PREFIX: Final = ".upload-"
"""An author's upload being unpacked (:mod:`arena.league.archive`), before it is copied in."""
_CHUNK: Final = 1 << 20


@dataclass(frozen=True)
class FolderLimits:
    """The most a folder may hold, beyond the store's own :data:`MAX_FILES` and
    :data:`MAX_BYTES` (a league's upload limits, which a build's output is held to)."""

    files: int
    """Entries: files, folders and links."""
    bytes: int
    """All files' sizes together."""


class StoreError(UserError):
    """A submitted folder the store refuses; the message names the path and the rule."""


@dataclass
class Incoming:
    """A copied folder not yet in the store: its digest and where the copy is (``tree``)."""

    digest: str
    tree: Path
    """The copy, writable by root only until :func:`open_for_build` or :func:`commit`."""
    files: int
    size: int
    shown: Path
    """The folder's name in messages (the author's folder, or the upload's name)."""

    @property
    def staging(self) -> Path:
        """The private folder holding :attr:`tree`, removed by :func:`commit` and
        :func:`discard`."""
        return self.tree.parent


def copy_in(store: Path, folder: Path, shown: Path | None = None) -> Incoming:
    """Copy ``folder`` into a new private folder under ``store`` and hash it on the way;
    raises :class:`StoreError` naming what was refused, under the name ``shown`` (default
    ``folder``: an unpacked upload is shown by the upload's name)."""
    shown = folder if shown is None else shown
    source = folder.resolve()
    if not source.is_dir():
        raise StoreError(f"{shown}: not a folder")
    entries = _list(source, shown)
    store.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=INCOMING_PREFIX, dir=store))  # 0700
    tree = staging / "tree"
    try:
        tree.mkdir()
        digest, size = _copy(source, shown, tree, entries)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Incoming(digest, tree, len(entries), size, shown)


def _list(source: Path, shown: Path, *, max_files: int | None = None, skip_vcs: bool = True,
          too_many: str = "leave build products and data out of the submission"
          ) -> list[tuple[str, os.stat_result]]:
    """Every entry under ``source`` (relative posix path, lstat), sorted by path, VCS folders
    left out when ``skip_vcs``; the refusals of the module's rules, at most ``max_files``
    entries (default :data:`MAX_FILES`), ``too_many`` saying what to do about more."""
    most = MAX_FILES if max_files is None else max_files
    found: list[tuple[str, os.stat_result]] = []
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            with os.scandir(source / rel if rel else source) as listing:
                children = list(listing)
        except OSError as exc:
            raise StoreError(f"{shown / rel}: cannot read the folder: {exc.strerror}") from None
        for entry in children:
            child = f"{rel}/{entry.name}" if rel else entry.name
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                if skip_vcs and entry.name in VCS_DIRS:
                    continue
                pending.append(child)
            elif stat.S_ISLNK(info.st_mode):
                _check_link(source, child, shown)
            elif not stat.S_ISREG(info.st_mode):
                raise StoreError(f"{shown / child}: a special file (FIFO, socket or device); "
                                 "a bot's folder holds files, folders and links only")
            elif info.st_mode & (stat.S_ISUID | stat.S_ISGID):
                raise StoreError(f"{shown / child}: a set-user-ID or set-group-ID file; a bot "
                                 "needs neither")
            found.append((child, info))
            if len(found) > most:
                raise StoreError(f"{shown}: more than {most:,} files and folders; {too_many}")
    found.sort(key=lambda item: item[0].encode("utf-8", "surrogateescape"))
    return found


def _check_link(source: Path, rel: str, shown: Path) -> None:
    target = os.readlink(source / rel)
    if os.path.isabs(target):
        raise StoreError(f"{shown / rel}: a symbolic link to an absolute path ({target}); "
                         "links must stay inside the folder, with relative targets")
    resolved = os.path.realpath(source / rel)
    if not (resolved == str(source) or resolved.startswith(str(source) + os.sep)):
        raise StoreError(f"{shown / rel}: a symbolic link that leads outside the folder "
                         f"({target}); links must stay inside the folder")


def _copy(source: Path, shown: Path, tree: Path | None,
          entries: list[tuple[str, os.stat_result]]) -> tuple[str, int]:
    """Copy ``entries`` into ``tree`` (root-owned, 0700 folders, 0600/0700 files until frozen;
    None: hash them only) and return (digest, bytes)."""
    digest = hashlib.sha256(b"arena-store-1\0")
    total = 0
    for rel, info in entries:
        name = rel.encode("utf-8", "surrogateescape")
        target = None if tree is None else tree / rel
        if stat.S_ISDIR(info.st_mode):
            digest.update(b"d\0" + name + b"\0")
            if target is not None:
                target.mkdir(mode=0o700)
        elif stat.S_ISLNK(info.st_mode):
            link = os.readlink(source / rel)
            digest.update(b"l\0" + name + b"\0" + link.encode("utf-8", "surrogateescape")
                          + b"\0")
            if target is not None:
                os.symlink(link, target)
        else:
            executable = bool(info.st_mode & 0o111)
            digest.update(b"x\0" if executable else b"f\0")
            digest.update(name + b"\0")
            total += _copy_file(source / rel, shown / rel, target, executable, digest,
                                MAX_BYTES - total, shown)
    return digest.hexdigest()[:DIGEST_CHARS], total


def _copy_file(path: Path, shown: Path, target: Path | None, executable: bool,
               digest: hashlib._Hash, room: int, folder: Path) -> int:
    """Copy one regular file (opened without following links, checked again once open: it
    may have been swapped since it was listed), its length and bytes into ``digest``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise StoreError(f"{shown}: cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as src:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreError(f"{shown}: no longer a regular file")
        size = os.fstat(fd).st_size
        if size > room:
            raise StoreError(f"{folder}: more than {MAX_BYTES >> 20} MB in all (at {shown}); "
                             "leave build products and data out of the submission")
        digest.update(size.to_bytes(8, "big"))
        copied = 0
        with contextlib.ExitStack() as closing:
            dst = None if target is None else closing.enter_context(os.fdopen(os.open(
                target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                0o700 if executable else 0o600), "wb"))
            while copied < size:
                chunk = src.read(min(_CHUNK, size - copied))
                if not chunk:
                    break
                digest.update(chunk)
                if dst is not None:
                    dst.write(chunk)
                copied += len(chunk)
        if copied != size:
            raise StoreError(f"{shown}: changed while it was copied; submit again")
    return size


def open_for_build(incoming: Incoming) -> None:
    """Let the build's unprivileged uid write into the copy: every folder and file writable by
    all. Nothing but the build reaches it: the staging folder above it is root's, 0700, and
    the build's sandbox sees only its own folder."""
    for path, is_dir in _walk(incoming.tree):
        if is_dir:
            os.chmod(path, 0o777)
        elif not path.is_symlink():
            mode = os.lstat(path).st_mode
            os.chmod(path, 0o777 if mode & 0o100 else 0o666)


def freeze(tree: Path) -> None:
    """Make the copy what a bot may only read: owned by root, folders 0755, files 0644 (0755
    when executable by their owner), no set-id bits; links kept as they are. Undoes what the
    build's uid made its own."""
    for path, is_dir in _walk(tree):
        os.lchown(path, 0, 0)
        if is_dir:
            os.chmod(path, 0o755)
        elif not path.is_symlink():
            mode = os.lstat(path).st_mode
            os.chmod(path, 0o755 if mode & 0o100 else 0o644)


def _walk(tree: Path) -> list[tuple[Path, bool]]:
    """``tree`` and everything under it, without following links: (path, is a folder)."""
    found: list[tuple[Path, bool]] = [(tree, True)]
    pending = [tree]
    while pending:
        with os.scandir(pending.pop()) as listing:
            for entry in listing:
                is_dir = entry.is_dir(follow_symlinks=False)
                found.append((Path(entry.path), is_dir))
                if is_dir:
                    pending.append(Path(entry.path))
    return found


def check_built(incoming: Incoming, limits: FolderLimits) -> None:
    """Hold what a build left in the copy to the rules of a submitted folder (links that stay
    inside with relative targets, no special or set-id file; ``.git`` folders included) and
    to the league's upload limits on the whole; raises :class:`StoreError` naming the path
    or the size (``build output ...``)."""
    try:
        entries = _list(incoming.tree, incoming.shown, max_files=limits.files, skip_vcs=False,
                        too_many=f"the league allows upload_files = {limits.files}")
    except StoreError as exc:
        raise StoreError(f"build output: {exc}") from None
    size = sum(info.st_size for _, info in entries if stat.S_ISREG(info.st_mode))
    if size > limits.bytes:
        raise StoreError(f"build output {size / (1 << 20):,.0f} MB ({size:,} bytes) is more "
                         f"than unpacked_mb = {limits.bytes >> 20}")


def commit(store: Path, incoming: Incoming, built: FolderLimits | None = None) -> Path:
    """Freeze the copy and move it to ``store/<digest>/``; when that entry exists already
    (the same content, submitted before or at the same time), the copy is dropped and the
    existing entry is the answer. Returns the entry. ``built``: a build ran in the copy,
    whose output is held to these limits first (:func:`check_built`); a refusal discards
    the copy and raises :class:`StoreError`."""
    if built is not None:
        try:
            check_built(incoming, built)
        except StoreError:
            discard(incoming)
            raise
    final = store / incoming.digest
    if not final.is_dir():
        freeze(incoming.tree)
        with contextlib.suppress(FileExistsError, OSError):
            os.rename(incoming.tree, final)  # a non-empty folder there: someone was first
    discard(incoming)
    if not final.is_dir():
        raise StoreError(f"{final}: cannot be created")
    return final


def discard(incoming: Incoming) -> None:
    """Remove what is left of an incoming copy (a failed build's, a duplicate)."""
    shutil.rmtree(incoming.staging, ignore_errors=True)


def is_stored(store: Path, digest: str) -> bool:
    return (store / digest).is_dir()


# ----- folders on the move: the archive a cluster's worker receives ---------------------------

def folder_digest(folder: Path, shown: Path | None = None) -> str:
    """The digest :func:`copy_in` would give ``folder`` (nothing is copied); raises
    :class:`StoreError` for a folder the store refuses."""
    shown = folder if shown is None else shown
    source = folder.resolve()
    if not source.is_dir():
        raise StoreError(f"{shown}: not a folder")
    return _copy(source, shown, None, _list(source, shown))[0]


def folder_archive(folder: Path, shown: Path | None = None) -> tuple[str, bytes]:
    """``folder``'s digest and a reproducible tar.gz of what it hashes (sorted entries, no
    owners, no times: the same content always gives the same bytes); raises
    :class:`StoreError` for a folder the store refuses."""
    shown = folder if shown is None else shown
    source = folder.resolve()
    if not source.is_dir():
        raise StoreError(f"{shown}: not a folder")
    entries = _list(source, shown)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for rel, _ in entries:
            path = source / rel
            info = tar.gettarinfo(str(path), arcname=rel)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.isfile():
                with open(path, "rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    # gzip writes the time into its header: zero it so equal content means equal bytes.
    data = bytearray(buffer.getvalue())
    data[4:8] = b"\0\0\0\0"
    return folder_digest(source, shown), bytes(data)


def unpack(store: Path, digest: str, data: bytes) -> Path:
    """The folder ``store/<digest>/``, unpacked from the archive ``data`` on first use (as
    :func:`folder_archive` made it). It lands only whole, and only when what it unpacks to
    hashes to ``digest``; else ``OSError`` (damaged in transit, or not the folder it says)."""
    target = store / digest
    if target.is_dir():
        return target
    store.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=store, prefix=INCOMING_PREFIX))
    tree = scratch / "tree"
    try:
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                tar.extractall(tree, filter="data")
        except tarfile.TarError as exc:  # a link or a path out of the folder, a bad archive
            raise OSError(f"the archive of {digest} cannot be unpacked: {exc}") from None
        try:
            found = folder_digest(tree, Path(digest))
        except StoreError as exc:
            raise OSError(f"the archive of {digest} unpacks to a folder the store refuses: "
                          f"{exc}") from None
        if found != digest:
            raise OSError(f"archive damaged in transit (its folder hashes to {found}, "
                          f"expected {digest})")
        tree.chmod(0o755)
        try:
            tree.rename(target)  # atomic: a half-unpacked folder is never used
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target
