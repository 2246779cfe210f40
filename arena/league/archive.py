"""An author's upload unpacked: a ``.tar.gz``/``.tgz``, ``.tar`` or ``.zip`` of a bot's folder,
or one source file, into an empty folder, refusing what could reach outside it or exhaust the
machine.

An upload comes from a stranger, so every archive is hostile until read. The kind comes from
the file's name and its first bytes must agree (a ``.zip`` that is not a zip is refused in one
line). The bot's folder is the archive's single top-level folder when it has one. Before
anything is written:

* the upload's own size, the number of members (from the zip's central directory, or from at
  most ``files + 1`` tar headers), the longest path and the declared unpacked size are held to
  :class:`UploadLimits` (``[league]`` of ``league.toml``: ``upload_mb``, ``unpacked_mb``,
  ``upload_files``, ``upload_path_chars``);
* every member's name is checked: no absolute path, drive letter, backslash, ``..``, control
  character or non-UTF-8 byte, no two members of one name, nothing inside a file or a link;
* refused outright: device files, FIFOs and sockets; setuid and setgid files; hard links to
  anything but a regular file earlier in the archive; sparse tar members; symbolic links in a
  zip (zip has no portable links); tar symbolic links that are absolute or lead outside the
  folder; encrypted zip members and compression other than stored and deflate (bzip2 and LZMA
  expand without bound in one read); tar headers over :data:`MAX_HEADER_BYTES`, over
  :data:`MAX_EXTENDED_BYTES` of long headers in all, or holding a number of more than
  :data:`MAX_DIGITS` digits (built to fill memory or, with the pax parser of Python before
  3.11.10, to take quadratic time);
* dropped: ownership (files are the unpacking user's), group and other write bits, the
  sticky bit and set-id bits of folders, and the ``__MACOSX/`` folder of macOS's "Compress".

Tar members are extracted by :mod:`tarfile` with its ``data`` filter (which checks, with the
folder as it is on disk, that no path or link leads outside), after this module's own checks;
zip members by :mod:`zipfile`, each streamed in chunks into a file this module creates. The
real bytes are counted as they are written, never trusted from a header, so that a zip bomb
(small upload, huge content) stops at the limit; no single read is larger than a chunk or a
tar header (:data:`MAX_HEADER_BYTES`), so memory stays small whatever the archive claims, and
the time to read the headers is bounded too.

A refusal is an :class:`ArchiveRefused` whose message is one line naming the upload, the
member and the rule; the destination is then emptied: nothing of a refused upload stays, and
nothing is ever written outside the destination.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import re
import shutil
import stat
import struct
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final, Literal, Protocol

from arena.errors import UserError
from arena.leaguedir.leaguetoml import Policy

Kind = Literal["tar.gz", "tar", "zip", "file"]

KINDS: Final[tuple[tuple[str, Kind], ...]] = (
    (".tar.gz", "tar.gz"), (".tgz", "tar.gz"), (".tar", "tar"), (".zip", "zip"))
"""Name endings (lower case) of the archives accepted, and their kind."""
OTHER_ARCHIVES: Final = (".tar.bz2", ".tbz", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tzst",
                         ".tar.lz", ".7z", ".rar", ".gz", ".bz2", ".xz", ".zst", ".jar", ".whl")
"""Archives that are not accepted: refused by name rather than taken as one source file."""
MAX_HEADER_BYTES: Final = 4 << 10
"""The largest tar header read at once (a GNU long name or a pax header): a member's path is
at most a few hundred characters, and a larger header would be one built to eat memory or
time (Python's pax parser is quadratic on some inputs before 3.11.10)."""
MAX_EXTENDED_BYTES: Final = 32 << 10
"""All tar headers longer than one block, together: the same bound on the parser's time."""
MAX_DIGITS: Final = 64
"""The longest run of digits a tar header may hold (numbers in headers are at most 20
digits); longer runs are what makes the pax parser of Python before 3.11.10 slow."""
MAX_NAME_BYTES: Final = 255
"""One path component, in bytes (the file systems' limit)."""
MACOS_FOLDER: Final = "__MACOSX"
"""The resource-fork folder macOS's "Compress" adds to a zip: not the bot, dropped."""
_CHUNK: Final = 1 << 16
_DIGIT_RUN: Final = re.compile(rb"[0-9]{%d}" % (MAX_DIGITS + 1))
_TAR_MEMBER_OVERHEAD: Final = 4 << 10
"""Tar bytes that are not file content, allowed per member (header, pax header, padding)."""
_MACHINE_ERRNOS: Final = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.ENOMEM,
                                    errno.EROFS})
"""Errors of the machine, not of the archive: raised as they are, never a refusal."""


class ArchiveRefused(UserError):
    """An upload refused; ``str()`` is one line naming the upload, the member and the rule."""


@dataclass(frozen=True)
class UploadLimits:
    """How much one upload may be and hold (``[league]`` ``upload_*`` keys of ``league.toml``)."""

    archive_bytes: int
    """The upload itself, as received."""
    unpacked_bytes: int
    """All members' real (decompressed) sizes together."""
    files: int
    """Members: files, folders and links."""
    path_chars: int
    """The longest member path, in characters."""


def upload_limits(policy: Policy) -> UploadLimits:
    """The league's upload limits, from ``league.toml``'s ``[league]``."""
    return UploadLimits(archive_bytes=policy.upload_mb << 20,
                        unpacked_bytes=policy.unpacked_mb << 20,
                        files=policy.upload_files, path_chars=policy.upload_path_chars)


def kind_of(filename: str) -> Kind:
    """The kind of an upload from its name (``file`` for anything not an archive); refuses an
    archive of a kind not accepted."""
    lower = filename.lower()
    for ending, kind in KINDS:
        if lower.endswith(ending):
            return kind
    for ending in OTHER_ARCHIVES:
        if lower.endswith(ending):
            raise ArchiveRefused(f"{_show(_basename(filename))}: a {ending} archive is not "
                                 "accepted; upload a .tar.gz, .tgz, .tar or .zip")
    return "file"


def unpack(upload: Path, filename: str, dest: Path, limits: UploadLimits) -> Path:
    """Unpack the author's upload (a file on disk; ``filename`` is the client's name, which
    decides the kind) into the empty folder ``dest``; return the bot folder (the archive's
    single top-level folder if it has exactly one, else ``dest``). A single non-archive file is
    placed as ``dest/<safe basename>``. Raises :class:`ArchiveRefused`; on refusal ``dest``
    holds nothing."""
    shown = _show(_basename(filename)) or "the upload"
    kind = kind_of(filename)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise ValueError(f"{dest}: not empty; unpack needs an empty folder")
    try:
        size = upload.stat().st_size
    except OSError as exc:
        raise ArchiveRefused(f"{shown}: cannot be read: {exc.strerror or exc}") from None
    if size > limits.archive_bytes:
        raise ArchiveRefused(f"{shown}: {size:,} bytes, more than the league's upload limit "
                             f"of {_size(limits.archive_bytes)}")
    try:
        if kind == "zip":
            _unpack_zip(upload, shown, dest, limits)
        elif kind == "file":
            _place_file(upload, filename, shown, dest, limits)
        else:
            _unpack_tar(upload, kind == "tar.gz", shown, dest, limits)
        if kind == "file":
            return dest
        top = list(dest.iterdir())
        if not top:
            raise ArchiveRefused(f"{shown}: an empty archive: no file in it")
        folder = top[0] if len(top) == 1 and top[0].is_dir() and not top[0].is_symlink() \
            else dest
        _check_links(folder, dest, shown)
    except BaseException:
        _empty(dest)
        raise
    return folder


# ----- names --------------------------------------------------------------------------------


class _Refusal(Exception):
    """A member's fault, raised inside the readers; becomes an :class:`ArchiveRefused`."""


def _basename(filename: str) -> str:
    """The last part of a client's file name, whichever separator its system uses."""
    return re.split(r"[/\\]", filename)[-1]


def _show(name: str, limit: int = 100) -> str:
    """``name`` on one line: control and unprintable characters escaped, long names cut."""
    out = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256
                  else f"\\u{ord(c):04x}" for c in name)
    return out if len(out) <= limit else out[: limit - 3] + "..."


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n:,} bytes"


def _check_name(name: str, limits: UploadLimits) -> str:
    """A member's path, normalised (``a/./b/`` -> ``a/b``; ``""`` for the archive's root), or
    a :class:`_Refusal` saying which rule it breaks."""
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise _Refusal("a control character in the name")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refusal("a name that is not UTF-8") from None
    if "\\" in name:
        raise _Refusal("a backslash in the path (a Windows path? use '/' between folders)")
    if name.startswith("/"):
        raise _Refusal("an absolute path")
    if re.match(r"[A-Za-z]:", name):
        raise _Refusal("a drive letter (a Windows absolute path)")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise _Refusal("'..' in the path (it would lead outside the bot's folder)")
    rel = "/".join(parts)
    if len(rel) > limits.path_chars:
        raise _Refusal(f"a path of {len(rel)} characters, more than the league's "
                       f"{limits.path_chars}")
    if any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in parts):
        raise _Refusal(f"a name longer than {MAX_NAME_BYTES} bytes")
    return rel


@dataclass
class _Members:
    """What the archive held so far: the checks that depend on earlier members (count, total
    size, duplicate names, paths through files or links)."""

    limits: UploadLimits
    count: int = 0
    total: int = 0
    kinds: dict[str, str] = field(default_factory=dict)
    """Path -> ``f`` (file), ``d`` (folder), ``l`` (link)."""
    folders: set[str] = field(default_factory=set)
    """Every folder a path runs through, listed or not."""
    sizes: dict[str, int] = field(default_factory=dict)

    def counted(self) -> None:
        self.count += 1
        if self.count > self.limits.files:
            raise _Refusal(f"more than the league's {self.limits.files:,} files and folders")

    def add(self, rel: str, kind: str, size: int = 0) -> None:
        if rel in self.kinds:
            raise _Refusal("a second member of the same name")
        if kind != "d" and rel in self.folders:
            raise _Refusal("a file where the archive has a folder of the same name")
        parts = rel.split("/")
        for end in range(1, len(parts)):
            above = "/".join(parts[:end])
            if self.kinds.get(above, "d") != "d":
                raise _Refusal(f"a path through '{_show(above)}', which is not a folder")
            self.folders.add(above)
        if kind == "d":
            self.folders.add(rel)
        self.kinds[rel] = kind
        self.sizes[rel] = size
        self.grow(size)

    def grow(self, size: int) -> None:
        self.total += size
        if self.total > self.limits.unpacked_bytes:
            raise _Refusal(f"unpacks to more than the league's limit of "
                           f"{_size(self.limits.unpacked_bytes)}")


def _refused(shown: str, member: str | None, reason: str) -> ArchiveRefused:
    where = f"{shown}: member '{_show(member)}'" if member is not None else shown
    return ArchiveRefused(f"{where}: {reason}")


def _machine_fault(exc: OSError) -> bool:
    """Whether an OSError met while unpacking is the machine's (a full disk, an I/O error):
    raised as it is, never a refusal, since the author is not at fault."""
    return exc.errno in _MACHINE_ERRNOS


def _looks_like(head: bytes) -> str:
    """What the first bytes of a file say it is, for an error message."""
    if head[:2] == b"\x1f\x8b":
        return "a gzip file"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "a zip archive"
    if head[257:262] == b"ustar":
        return "a tar archive"
    if head[:4] == b"\x7fELF":
        return "a program (ELF)"
    if head[:3] == b"BZh":
        return "a bzip2 file"
    if head[:6] == b"\xfd7zXZ\x00":
        return "an xz file"
    if not head:
        return "empty"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return "something else"
    return "text"


def _empty(dest: Path) -> None:
    """Remove everything under ``dest`` (never following a link), keeping ``dest``."""
    for entry in list(dest.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


@dataclass
class _Written:
    """The real bytes written so far, held to the unpacked limit chunk by chunk: whatever a
    header claims, no more than ``limit`` bytes reach the disk."""

    limit: int
    used: int = 0

    def copy(self, read: Callable[[int], bytes], out: IO[bytes]) -> None:
        while chunk := read(_CHUNK):
            self.used += len(chunk)
            if self.used > self.limit:
                raise _Refusal(f"unpacks to more than the league's limit of {_size(self.limit)}")
            out.write(chunk)


def _check_links(folder: Path, dest: Path, shown: str) -> None:
    """Every symbolic link under the bot's folder must resolve inside it: tarfile's filter
    held links inside ``dest``, but the bot's folder may be one folder below."""
    root = os.path.realpath(folder)
    for path, dirs, files in os.walk(folder):
        for name in dirs + files:
            link = os.path.join(path, name)
            if os.path.islink(link):
                target = os.path.realpath(link)
                if not (target == root or target.startswith(root + os.sep)):
                    raise _refused(shown, os.path.relpath(link, dest),
                                   f"a link that leads outside the bot's folder "
                                   f"({_show(os.readlink(link))})")


# ----- one source file ----------------------------------------------------------------------


def _place_file(upload: Path, filename: str, shown: str, dest: Path,
                limits: UploadLimits) -> None:
    base = _basename(filename)
    try:
        rel = _check_name(base, limits)
    except _Refusal as exc:
        raise ArchiveRefused(f"{shown}: {exc}") from None
    if not rel:
        raise ArchiveRefused(f"{shown}: no file name")
    try:
        with open(upload, "rb") as src, open(dest / rel, "xb") as out:
            _Written(limits.unpacked_bytes).copy(src.read, out)
    except _Refusal as exc:
        raise ArchiveRefused(f"{shown}: {exc}") from None
    os.chmod(dest / rel, 0o644)


# ----- tar ----------------------------------------------------------------------------------


class _Seekable(Protocol):
    """A readable, seekable byte stream: the upload itself, or its gzip decompression."""

    def read(self, n: int = -1, /) -> bytes: ...
    def seek(self, pos: int, whence: int = os.SEEK_SET, /) -> int: ...
    def tell(self) -> int: ...


class _BoundedReader:
    """The (decompressed) tar stream as :mod:`tarfile` reads it, held to the limits: no
    position past what the members may add up to and, while headers are scanned (every read
    is then a header: data is skipped by seeking), no header longer than
    :data:`MAX_HEADER_BYTES`, :data:`MAX_EXTENDED_BYTES` of long headers in all, no run of
    digits over :data:`MAX_DIGITS`."""

    def __init__(self, raw: _Seekable, limits: UploadLimits, headers_only: bool) -> None:
        self.raw = raw
        self.budget = limits.unpacked_bytes + (limits.files + 4) * _TAR_MEMBER_OVERHEAD
        self.over = f"unpacks to more than the league's limit of {_size(limits.unpacked_bytes)}"
        self.headers_only = headers_only
        self.extended = 0

    def read(self, n: int = -1, /) -> bytes:
        if n is None or n < 0:
            raise _Refusal("the archive asked for an unbounded read")
        if self.raw.tell() + n > self.budget:
            raise _Refusal(self.over)
        if not self.headers_only:
            return self.raw.read(n)
        if n > tarfile.BLOCKSIZE:
            self.extended += n
            if n > MAX_HEADER_BYTES:
                raise _Refusal(f"a header of {n:,} bytes, more than {MAX_HEADER_BYTES >> 10} "
                               "KB (a long name or pax header built to fill memory?)")
            if self.extended > MAX_EXTENDED_BYTES:
                raise _Refusal(f"long headers of more than {MAX_EXTENDED_BYTES >> 10} KB in "
                               "all (long names or pax headers built to take time?)")
        data = self.raw.read(n)
        if _DIGIT_RUN.search(data):
            raise _Refusal(f"a header with a number of more than {MAX_DIGITS} digits")
        return data

    def seek(self, pos: int, whence: int = os.SEEK_SET, /) -> int:
        if whence != os.SEEK_SET:
            raise _Refusal("the archive asked for an unexpected seek")
        if pos > self.budget:
            raise _Refusal(self.over)
        return self.raw.seek(pos)

    def tell(self) -> int:
        return self.raw.tell()

    def write(self, data: bytes, /) -> int:
        raise io.UnsupportedOperation("an upload is only read")

    def close(self) -> None:
        """The upload is closed by whoever opened it."""


class _TarChecks:
    """The filter every tar member goes through, in the scan and again at extraction: this
    module's checks, then :func:`tarfile.data_filter`."""

    def __init__(self, limits: UploadLimits) -> None:
        self.members = _Members(limits)
        self.limits = limits
        self.current: str | None = None

    def __call__(self, member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        self.current = member.name
        self.members.counted()
        rel = _check_name(member.name, self.limits)
        if not rel:
            if member.isdir():
                return None  # "./": the archive's root, which is the destination
            raise _Refusal("a file with no name")
        if member.ischr() or member.isblk():
            raise _Refusal("a device file")
        if member.isfifo():
            raise _Refusal("a FIFO (named pipe)")
        if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
            raise _Refusal(f"a special file (tar type {member.type!r})")
        if member.issparse():
            raise _Refusal("a sparse file")
        if member.isreg() and member.mode & (stat.S_ISUID | stat.S_ISGID):
            raise _Refusal("a set-user-ID or set-group-ID file (a bot needs neither)")
        if member.islnk():
            try:
                target = _check_name(member.linkname, self.limits)
            except _Refusal as exc:
                raise _Refusal(f"a hard link to '{_show(member.linkname)}': {exc}") from None
            if self.members.kinds.get(target) != "f":
                raise _Refusal(f"a hard link to '{_show(member.linkname)}', which is not a "
                               "file earlier in the archive")
            self.members.add(rel, "f", self.members.sizes[target])
        elif member.issym():
            if member.linkname.startswith("/"):
                raise _Refusal(f"a symbolic link to an absolute path "
                               f"({_show(member.linkname)})")
            self.members.add(rel, "l")
        else:
            self.members.add(rel, "d" if member.isdir() else "f",
                             member.size if member.isreg() else 0)
        try:
            return tarfile.data_filter(member.replace(name=rel, deep=False), path)
        except tarfile.FilterError as exc:
            raise _Refusal(_filter_reason(exc)) from None


def _filter_reason(exc: tarfile.FilterError) -> str:
    link = _show(exc.tarinfo.linkname)
    if isinstance(exc, tarfile.AbsoluteLinkError):
        return f"a link to an absolute path ({link})"
    if isinstance(exc, tarfile.LinkOutsideDestinationError):
        return f"a link that leads outside the bot's folder ({link})"
    if isinstance(exc, tarfile.OutsideDestinationError):
        return "a path that leads outside the bot's folder (through a link?)"
    if isinstance(exc, tarfile.AbsolutePathError):
        return "an absolute path"
    if isinstance(exc, tarfile.SpecialFileError):
        return "a special file (device, FIFO or socket)"
    return str(exc)


def _unpack_tar(upload: Path, gzipped: bool, shown: str, dest: Path,
                limits: UploadLimits) -> None:
    """Scan every header first (count, names, sizes: nothing written), then extract with the
    same checks and tarfile's ``data`` filter."""
    if not hasattr(tarfile, "data_filter"):  # Python 3.11.0 to 3.11.3
        raise ArchiveRefused(f"{shown}: this machine's Python ({sys.version.split()[0]}) has "
                             "no safe tar extraction (3.11.4 or newer has); upload a .zip")
    with open(upload, "rb") as f:
        head = f.read(512)
    if gzipped and head[:2] != b"\x1f\x8b":
        raise ArchiveRefused(f"{shown}: not a gzip-compressed tar archive (it looks like "
                             f"{_looks_like(head)})")
    if not gzipped and head[257:262] != b"ustar":
        raise ArchiveRefused(f"{shown}: not a tar archive (it looks like {_looks_like(head)})")
    for extract in (False, True):
        checks = _TarChecks(limits)
        with open(upload, "rb") as raw:
            stream: _Seekable = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
            try:
                if gzipped and not extract:
                    inner = stream.read(512)
                    if inner[257:262] != b"ustar":
                        raise ArchiveRefused(f"{shown}: a gzip file, but not of a tar archive "
                                             f"(inside, it looks like {_looks_like(inner)})")
                    stream.seek(0)
                reader = _BoundedReader(stream, limits, headers_only=not extract)
                with tarfile.open(fileobj=reader, mode="r:",
                                  errorlevel=2) as tar:
                    if extract:
                        tar.extractall(dest, filter=checks)
                    else:
                        # tarfile keeps each member it reads: at most files + 1, since
                        # the checks refuse the next one
                        for member in tar:
                            checks(member, str(dest))
            except _Refusal as exc:
                raise _refused(shown, checks.current, str(exc)) from None
            except OSError as exc:
                if isinstance(exc, gzip.BadGzipFile | EOFError):
                    raise _refused(shown, None, f"a damaged gzip stream ({exc})") from None
                if _machine_fault(exc):
                    raise
                raise _refused(shown, checks.current, f"cannot be unpacked: "
                               f"{exc.strerror or exc}") from None
            except (tarfile.TarError, EOFError, zlib.error) as exc:
                raise _refused(shown, checks.current, f"a damaged archive ({exc})") from None
        if checks.members.count == 0:
            raise ArchiveRefused(f"{shown}: an empty archive: no member in it")


# ----- zip ----------------------------------------------------------------------------------

_EOCD: Final = struct.Struct("<4s4H2LH")
"""End of central directory: signature, disk, disk of the directory, entries on this disk,
entries, directory size, directory offset, comment length."""
_EOCD64_LOCATOR: Final = struct.Struct("<4sLQL")
_EOCD64: Final = struct.Struct("<4sQ2H2L4Q")
_CENTRAL_ENTRY: Final = 46
"""Fixed bytes of one central directory entry (its name, extra field and comment follow)."""
_ENTRY_EXTRA_ALLOWED: Final = 1024
"""Extra field and comment bytes allowed per entry when bounding the directory's size."""


def _zip_directory(f: IO[bytes], shown: str) -> tuple[int, int]:
    """(entries, directory bytes) as the end record says, found as :mod:`zipfile` finds it;
    read before :class:`zipfile.ZipFile` so that a directory of a million entries is refused
    before it is parsed into memory."""
    f.seek(0, os.SEEK_END)
    size = f.tell()
    start = max(size - _EOCD.size - 0xFFFF, 0)
    f.seek(start)
    tail = f.read()
    if len(tail) >= _EOCD.size and tail[-_EOCD.size:][:4] == b"PK\x05\x06" \
            and tail[-2:] == b"\0\0":
        at = len(tail) - _EOCD.size
    else:
        at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _EOCD.size:
        raise ArchiveRefused(f"{shown}: a damaged zip archive: no central directory at its end "
                             "(cut short?)")
    _, _, _, _, entries, dir_bytes, dir_offset, _ = _EOCD.unpack_from(tail, at)
    if entries == 0xFFFF or 0xFFFFFFFF in (dir_bytes, dir_offset):
        loc = at - _EOCD64_LOCATOR.size
        if loc >= 0 and tail[loc:loc + 4] == b"PK\x06\x07":
            _, _, offset, _ = _EOCD64_LOCATOR.unpack_from(tail, loc)
            f.seek(offset)
            record = f.read(_EOCD64.size)
            if len(record) == _EOCD64.size and record[:4] == b"PK\x06\x06":
                fields = _EOCD64.unpack(record)
                entries, dir_bytes = fields[7], fields[8]
    return entries, dir_bytes


@dataclass(frozen=True)
class _ZipMember:
    info: zipfile.ZipInfo
    rel: str
    folder: bool
    executable: bool


def _unpack_zip(upload: Path, shown: str, dest: Path, limits: UploadLimits) -> None:
    with open(upload, "rb") as f:
        head = f.read(4)
        if head not in (b"PK\x03\x04", b"PK\x05\x06"):
            f.seek(0)
            raise ArchiveRefused(f"{shown}: not a zip archive (it looks like "
                                 f"{_looks_like(f.read(512))})")
        entries, dir_bytes = _zip_directory(f, shown)
        if entries > limits.files:
            raise ArchiveRefused(f"{shown}: {entries:,} members, more than the league's "
                                 f"{limits.files:,} files and folders")
        most = limits.files * (_CENTRAL_ENTRY + 4 * limits.path_chars + _ENTRY_EXTRA_ALLOWED)
        if dir_bytes > most:
            raise ArchiveRefused(f"{shown}: a central directory of {dir_bytes:,} bytes, more "
                                 f"than {limits.files:,} members need")
        f.seek(0)
        try:
            archive = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, struct.error,
                NotImplementedError) as exc:
            raise ArchiveRefused(f"{shown}: a damaged zip archive ({exc})") from None
        with archive:
            members = _zip_plan(archive, shown, limits)
            written = _Written(limits.unpacked_bytes)
            for member in members:
                _zip_extract(archive, member, shown, dest, written)


def _zip_plan(archive: zipfile.ZipFile, shown: str, limits: UploadLimits) -> list[_ZipMember]:
    """Every member checked, nothing written yet."""
    infos = archive.infolist()
    if len(infos) > limits.files:
        raise ArchiveRefused(f"{shown}: {len(infos):,} members, more than the league's "
                             f"{limits.files:,} files and folders")
    seen = _Members(limits)
    plan: list[_ZipMember] = []
    for info in infos:
        try:
            seen.counted()
            rel = _check_name(info.filename, limits)
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            kind = stat.S_IFMT(mode)
            folder = info.is_dir() or kind == stat.S_IFDIR
            if kind == stat.S_IFLNK:
                raise _Refusal("a symbolic link (a zip cannot carry one safely; use a .tar.gz, "
                               "or leave it out)")
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise _Refusal("a device file, FIFO or socket")
            if not folder and mode & (stat.S_ISUID | stat.S_ISGID):
                raise _Refusal("a set-user-ID or set-group-ID file (a bot needs neither)")
            if info.flag_bits & 0x1:
                raise _Refusal("encrypted")
            if not folder and info.compress_type not in (zipfile.ZIP_STORED,
                                                         zipfile.ZIP_DEFLATED):
                raise _Refusal(f"compressed with method {info.compress_type} (only stored "
                               "and deflate, the usual zip, are accepted)")
            if not rel:
                if folder:
                    continue
                raise _Refusal("a file with no name")
            if rel.split("/")[0] == MACOS_FOLDER:
                continue
            seen.add(rel, "d" if folder else "f", 0 if folder else info.file_size)
        except _Refusal as exc:
            raise _refused(shown, info.filename, str(exc)) from None
        plan.append(_ZipMember(info, rel, folder, bool(mode & stat.S_IXUSR)))
    return plan


def _zip_extract(archive: zipfile.ZipFile, member: _ZipMember, shown: str, dest: Path,
                 written: _Written) -> None:
    """One member: a folder made, or a file streamed in chunks, its real bytes counted."""
    target = dest / member.rel
    try:
        if member.folder:
            target.mkdir(parents=True, exist_ok=True)
            return
        try:
            src = archive.open(member.info)
        except OSError as exc:  # a seek to where no member is (BadZipFile is not an OSError)
            if _machine_fault(exc):
                raise
            raise _refused(shown, member.info.filename, "damaged (its data is not where the "
                           f"directory says: {exc.strerror or exc})") from None
        with src:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o755 if member.executable else 0o644)
            with os.fdopen(fd, "wb") as out:
                written.copy(src.read, out)
    except _Refusal as exc:
        raise _refused(shown, member.info.filename, str(exc)) from None
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError,
            RuntimeError) as exc:
        raise _refused(shown, member.info.filename, f"damaged ({exc})") from None
    except OSError as exc:
        if _machine_fault(exc):
            raise
        raise _refused(shown, member.info.filename, f"cannot be unpacked: {exc.strerror or exc}"
                       ) from None
