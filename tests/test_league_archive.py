"""Uploads unpacked (:mod:`arena.league.archive`): every hostile archive of the issue refused
with a one-line reason naming the member, nothing written outside the destination, the
destination left empty, memory bounded; the good ones unpacked and submitted.

The hostile archives are built here, with :mod:`tarfile` and :mod:`zipfile` where they can
write them and with raw bytes where they refuse to (a zip bomb of a gigabyte, a central
directory claiming a million members). Run as root, as CI does: root may create device files
and chown, so a missing check would show.
"""

from __future__ import annotations

import errno
import functools
import gzip
import io
import os
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots import store
from arena.cli import main
from arena.errors import UserError
from arena.league.archive import ArchiveRefused, UploadLimits, kind_of, unpack, upload_limits
from arena.league.submit import Submission, SubmitEvent, submit
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import Policy, load_settings
from arena.leaguedir.versions import read_versions

LIMITS = upload_limits(Policy())
"""The defaults of league.toml: 20 MB upload, 200 MB unpacked, 2000 members, 200 characters."""
GB = 1 << 30
MB = 1 << 20


# ----- helpers ------------------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every path under ``root``: (mode, size, link target), links not followed."""
    out: dict[str, tuple[int, int, str]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else ""
            out[os.path.relpath(path, root)] = (info.st_mode, info.st_size, link)
    return out


@dataclass
class Area:
    """An upload's surroundings: the destination two levels under ``root``, so that ``../``
    and ``../../`` both land in what is watched."""

    root: Path

    @property
    def dest(self) -> Path:
        return self.root / "area" / "dest"

    def upload(self, name: str, data: bytes) -> Path:
        path = self.root / "uploads" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def refused(self, name: str, data: bytes, member: str, words: str,
                limits: UploadLimits = LIMITS) -> str:
        """Unpack ``data`` uploaded as ``name``: refused, naming ``member`` and saying
        ``words``, in one line; nothing changed around, the destination empty."""
        upload = self.upload(name, data)
        self.dest.mkdir(parents=True, exist_ok=True)
        before = self.surroundings()
        with pytest.raises(ArchiveRefused) as refused:
            unpack(upload, name, self.dest, limits)
        message = str(refused.value)
        assert "\n" not in message and "\r" not in message
        assert message.startswith(f"{name}: ")
        assert member in message, message
        assert words in message, message
        assert list(self.dest.iterdir()) == []
        assert self.surroundings() == before
        return message

    def surroundings(self) -> tuple[dict[str, tuple[int, int, str]], list[str]]:
        """Everything under ``root`` (three levels above the destination's contents), and
        the names beside ``root`` (other tests' folders, left unread)."""
        return snapshot(self.root), sorted(os.listdir(self.root.parent))


@pytest.fixture
def area(tmp_path: Path) -> Area:
    return Area(tmp_path)


def tar_bytes(members: list[tuple[tarfile.TarInfo, bytes]], gz: bool = False) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as tar:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buf.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, mode: int = 0o644, link: str = "",
           data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = link
    return info, data


def zip_bytes(members: list[tuple[str, bytes, int | None]]) -> bytes:
    """A zip written by zipfile: (name, data, unix mode or None)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name, and writes it
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data, mode in members:
                info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                if mode is not None:
                    info.create_system = 3
                    info.external_attr = mode << 16
                z.writestr(info, data)
    return buf.getvalue()


@dataclass
class RawMember:
    """A zip member as raw bytes: ``data`` already compressed with ``method``; ``size`` and
    ``crc`` are what the headers claim."""

    name: bytes
    data: bytes
    size: int
    crc: int
    method: int = zipfile.ZIP_DEFLATED


def raw_zip(members: list[RawMember], claim_entries: int | None = None) -> bytes:
    """A zip written byte by byte (local headers, central directory, end record); with
    ``claim_entries`` the end record (a zip64 one) claims that many members."""
    out = bytearray()
    central = bytearray()
    for m in members:
        offset = len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0x800, m.method, 0, 0x5C21, m.crc,
                           len(m.data), m.size, len(m.name), 0) + m.name + m.data
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", (3 << 8) | 20, 20, 0x800,
                               m.method, 0, 0x5C21, m.crc, len(m.data), m.size, len(m.name),
                               0, 0, 0, 0, (stat.S_IFREG | 0o644) << 16, offset) + m.name
    start = len(out)
    out += central
    entries = len(members) if claim_entries is None else claim_entries
    if claim_entries is not None:
        z64 = len(out)
        out += struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries,
                           len(central), start)
        out += struct.pack("<4sLQL", b"PK\x06\x07", 0, z64, 1)
        out += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                           0xFFFFFFFF, 0)
    else:
        out += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, entries, entries, len(central),
                           start, 0)
    return bytes(out)


@functools.cache
def deflated_zeros(size: int) -> tuple[bytes, int]:
    """``size`` zero bytes deflated cheaply (one megabyte compressed once, its independent
    blocks repeated) and their CRC-32."""
    block = b"\0" * MB
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    unit = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    tail = c.flush()
    count = size // MB
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    return unit * count + tail, crc


def zip_bomb(real: int, claimed: int | None = None, members: int = 1) -> bytes:
    """``members`` members of ``real`` zeros each; the headers claim ``claimed`` bytes."""
    data, crc = deflated_zeros(real)
    return raw_zip([RawMember(f"bomb/{i}.bin".encode(), data, real if claimed is None
                              else claimed, crc) for i in range(members)])


def gzip_tar_bomb(real: int) -> bytes:
    """A tar.gz of one member of ``real`` zeros: gzip members concatenated (one stream to a
    reader), the megabyte of zeros compressed once."""
    info = tarfile.TarInfo("bomb/zeros")
    info.size = real
    header = info.tobuf(format=tarfile.USTAR_FORMAT)
    unit = gzip.compress(b"\0" * MB, compresslevel=9)
    return gzip.compress(header) + unit * (real // MB) + gzip.compress(b"\0" * 1024)


# ----- the kinds ----------------------------------------------------------------------------


def bot_folder(root: Path) -> Path:
    folder = root / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("import lib.moves\n")
    (folder / "lib" / "moves.py").write_text("MOVES = []\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "bot.toml").write_text('cmd = ["{python}", "bot.py"]\n')
    return folder


def tree_of(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes()
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("name", ["mybot.tar.gz", "MyBot.TGZ", "mybot.tar", "mybot.zip"])
def test_an_archive_of_a_folder_unpacks_to_that_folder(area: Area, name: str) -> None:
    folder = bot_folder(area.root / "src")
    upload = area.root / name
    if name.lower().endswith(".zip"):
        with zipfile.ZipFile(upload, "w", zipfile.ZIP_DEFLATED) as z:
            for path in sorted(folder.rglob("*")):
                z.write(path, str(path.relative_to(folder.parent)))
    else:
        with tarfile.open(upload, "w:gz" if name.lower().endswith("gz") else "w") as tar:
            tar.add(folder, "mybot")
    got = unpack(upload, name, area.dest, LIMITS)
    assert got == area.dest / "mybot"
    assert tree_of(got) == tree_of(folder)
    assert os.access(got / "run.sh", os.X_OK) and not os.access(got / "bot.py", os.X_OK)


def test_an_archive_of_several_top_level_entries_is_the_bot_folder_itself(area: Area) -> None:
    upload = area.upload("b.zip", zip_bytes([("bot.py", b"1", None), ("lib/x.py", b"2", None),
                                             ("__MACOSX/._bot.py", b"junk", None)]))
    got = unpack(upload, "b.zip", area.dest, LIMITS)
    assert got == area.dest
    assert tree_of(got) == {"bot.py": b"1", "lib": None, "lib/x.py": b"2"}


@pytest.mark.parametrize("fmt", [tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT])
def test_a_tar_of_dot_in_each_format_unpacks(area: Area, fmt: int) -> None:
    """``tar -C mybot -czf mybot.tgz .``: members ``./``, ``./bot.py``...; a long name is a
    GNU long-name header, a pax header, or ustar's prefix field."""
    folder = bot_folder(area.root / "src")
    deep = folder / "d" / ("n" * 60) / ("m" * 60)
    deep.mkdir(parents=True)
    (deep / "x.py").write_text("x = 1\n")
    upload = area.root / "mybot.tgz"
    with tarfile.open(upload, "w:gz", format=fmt) as tar:
        tar.add(folder, ".")
    got = unpack(upload, "mybot.tgz", area.dest, LIMITS)
    assert got == area.dest and tree_of(got) == tree_of(folder)


def test_a_tar_keeps_links_that_stay_inside(area: Area) -> None:
    upload = area.upload("b.tar", tar_bytes([
        member("b/data/book.txt", data=b"e4"), member("b/book", tarfile.SYMTYPE,
                                                      link="data/book.txt"),
        member("b/copy", tarfile.LNKTYPE, link="b/data/book.txt")]))
    got = unpack(upload, "b.tar", area.dest, LIMITS)
    assert os.readlink(got / "book") == "data/book.txt"
    assert (got / "copy").read_bytes() == b"e4"


def test_a_single_source_file_is_placed_under_its_own_name(area: Area) -> None:
    upload = area.upload("upload-1234", b"print('hi')\n")
    got = unpack(upload, "C:\\Users\\ada\\mybot.py", area.dest, LIMITS)
    assert got == area.dest and tree_of(got) == {"mybot.py": b"print('hi')\n"}


def test_the_kind_comes_from_the_name() -> None:
    assert [kind_of(n) for n in ["a.tar.gz", "a.TGZ", "a.tar", "a.Zip", "a.py", "bot"]] == [
        "tar.gz", "tar.gz", "tar", "zip", "file", "file"]
    with pytest.raises(ArchiveRefused, match=r"a\.7z: a \.7z archive is not accepted"):
        kind_of("a.7z")


# ----- hostile archives: one test each ----------------------------------------------------


@pytest.mark.parametrize("kind", ["tar", "zip"])
@pytest.mark.parametrize("name", ["../evil.py", "bot/../../evil.py", "../../evil.py"])
def test_a_member_with_dotdot_is_refused(area: Area, kind: str, name: str) -> None:
    data = (tar_bytes([member("bot/ok.py"), member(name)]) if kind == "tar"
            else zip_bytes([("bot/ok.py", b"x", None), (name, b"x", None)]))
    area.refused(f"b.{kind}", data, name, "'..' in the path")


@pytest.mark.parametrize("kind", ["tar.gz", "zip"])
def test_a_member_with_an_absolute_path_is_refused(area: Area, kind: str) -> None:
    target = str(area.root / "area" / "abs-evil.py")
    data = (tar_bytes([member(target)], gz=True) if kind == "tar.gz"
            else raw_zip([RawMember(target.encode(), b"x", 1, zlib.crc32(b"x"), 0)]))
    area.refused(f"b.{kind}", data, target, "an absolute path")


@pytest.mark.parametrize("kind", ["tar", "zip"])
@pytest.mark.parametrize(("name", "words"), [
    ("C:/evil.py", "a drive letter"), ("bot\\..\\..\\evil.py", "a backslash"),
    ("bot/evil\n.py", "a control character"), ("bot/\x1b[2Jevil.py", "a control character")])
def test_windows_paths_and_control_characters_are_refused(area: Area, kind: str, name: str,
                                                          words: str) -> None:
    data = tar_bytes([member(name)]) if kind == "tar" else zip_bytes([(name, b"x", None)])
    shown = name.replace("\n", "\\x0a").replace("\x1b", "\\x1b")
    area.refused(f"b.{kind}", data, shown, words)


@pytest.mark.parametrize(("link", "words"), [
    ("../../../outside", "a link that leads outside the bot's folder (../../../outside)"),
    ("../../x", "a link that leads outside the bot's folder (../../x)"),
    ("/etc/passwd", "a symbolic link to an absolute path (/etc/passwd)"),
    ("sub/../../../..", "a link that leads outside")])
def test_a_tar_symlink_pointing_outside_is_refused(area: Area, link: str, words: str) -> None:
    data = tar_bytes([member("bot/sub", tarfile.DIRTYPE, 0o755),
                      member("bot/sub/evil", tarfile.SYMTYPE, link=link)], gz=True)
    area.refused("b.tar.gz", data, "bot/sub/evil", words)


def test_a_path_through_a_tar_symlink_is_refused(area: Area) -> None:
    """A link inside (``up`` -> ``..``) then a file written through it: refused by the name,
    whatever the link resolves to."""
    data = tar_bytes([member("bot/up", tarfile.SYMTYPE, link=".."),
                      member("bot/up/evil.py")])
    area.refused("b.tar", data, "bot/up/evil.py", "a path through 'bot/up'")


def test_a_zip_symlink_entry_is_refused(area: Area) -> None:
    data = zip_bytes([("bot/ok.py", b"x", None),
                      ("bot/evil", b"/etc/passwd", stat.S_IFLNK | 0o777)])
    area.refused("b.zip", data, "bot/evil", "a symbolic link")


@pytest.mark.parametrize(("link", "words"), [
    ("../../etc/passwd", "'..' in the path"), ("/etc/passwd", "an absolute path"),
    ("bot/later.py", "not a file earlier in the archive"),
    ("bot", "not a file earlier in the archive")])
def test_a_tar_hard_link_pointing_outside_is_refused(area: Area, link: str, words: str) -> None:
    data = tar_bytes([member("bot", tarfile.DIRTYPE, 0o755),
                      member("bot/evil", tarfile.LNKTYPE, link=link),
                      member("bot/later.py")])
    area.refused("b.tar", data, "bot/evil", words)
    assert os.stat("/etc/passwd").st_nlink == 1


@pytest.mark.parametrize(("kind", "words"), [
    (tarfile.CHRTYPE, "a device file"), (tarfile.BLKTYPE, "a device file"),
    (tarfile.FIFOTYPE, "a FIFO"), (b"Z", "a special file")])
def test_a_tar_device_or_fifo_is_refused(area: Area, kind: bytes, words: str) -> None:
    info, data = member("bot/null", kind, 0o666)
    info.devmajor, info.devminor = 1, 3
    area.refused("b.tar", tar_bytes([member("bot/ok.py"), (info, data)]), "bot/null", words)


def test_a_zip_device_entry_is_refused(area: Area) -> None:
    area.refused("b.zip", zip_bytes([("bot/null", b"", stat.S_IFCHR | 0o666)]), "bot/null",
                 "a device file")


@pytest.mark.parametrize("bits", [stat.S_ISUID, stat.S_ISGID])
@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_setuid_or_setgid_file_is_refused(area: Area, kind: str, bits: int) -> None:
    mode = bits | 0o755
    data = (tar_bytes([member("bot/su", mode=mode)]) if kind == "tar"
            else zip_bytes([("bot/su", b"x", stat.S_IFREG | mode)]))
    area.refused(f"b.{kind}", data, "bot/su", "a set-user-ID or set-group-ID file")


def test_setgid_folders_and_write_bits_are_dropped(area: Area) -> None:
    """What is dropped, not refused: a folder's setgid bit (a folder made in a shared
    group's folder has it), the sticky bit, group and other write."""
    upload = area.upload("b.tar", tar_bytes([member("bot", tarfile.DIRTYPE, 0o2775),
                                             member("bot/a.py", mode=0o1777)]))
    got = unpack(upload, "b.tar", area.dest, LIMITS)
    assert not got.stat().st_mode & (stat.S_ISGID | stat.S_IWOTH)
    assert stat.S_IMODE((got / "a.py").stat().st_mode) == 0o755


@pytest.mark.parametrize("kind", ["tar", "zip"])
@pytest.mark.parametrize(("first", "second"), [
    ("bot/bot.py", "bot/bot.py"), ("bot/bot.py", "./bot//bot.py"), ("bot/x", "bot/x/")])
def test_duplicate_names_are_refused(area: Area, kind: str, first: str, second: str) -> None:
    if kind == "tar":
        kind2 = tarfile.DIRTYPE if second.endswith("/") else tarfile.REGTYPE
        data = tar_bytes([member(first), member(second, kind2)])
    else:
        data = zip_bytes([(first, b"1", None), (second, b"" if second.endswith("/") else b"2",
                                                None)])
    area.refused(f"b.{kind}", data, second.rstrip("/") if kind == "tar" else second,
                 "a second member of the same name")


def test_a_file_where_a_folder_is_is_refused(area: Area) -> None:
    area.refused("b.zip", zip_bytes([("bot/lib/x.py", b"1", None), ("bot/lib", b"2", None)]),
                 "bot/lib", "a file where the archive has a folder")


def test_a_zip_bomb_is_refused_from_its_header(area: Area) -> None:
    """A 1 MB upload of one gigabyte of zeros: refused from the declared size, nothing
    decompressed."""
    data = zip_bomb(GB)
    assert len(data) < 2 * MB
    area.refused("b.zip", data, "bomb/0.bin", "unpacks to more than the league's limit of "
                 "200 MB")


def test_a_zip_bomb_that_lies_about_its_size_writes_no_more_than_it_claims(area: Area) -> None:
    """The headers claim 100 KB, the data is a gigabyte: zipfile stops at the claimed size
    and the CRC then fails; the file written is no larger than claimed, and removed."""
    area.refused("b.zip", zip_bomb(GB, claimed=100_000), "bomb/0.bin", "damaged")


def test_many_honest_members_that_add_up_are_refused_at_the_limit(area: Area) -> None:
    limits = UploadLimits(LIMITS.archive_bytes, 10 * MB, LIMITS.files, LIMITS.path_chars)
    area.refused("b.zip", zip_bomb(4 * MB, members=5), "bomb/2.bin",
                 "unpacks to more than the league's limit of 10 MB", limits)


def test_the_real_bytes_are_counted_not_the_header(area: Area, tmp_path: Path) -> None:
    """The copy itself counts: a single file larger than the unpacked limit (but within the
    upload limit) is refused by the count of what was written."""
    limits = UploadLimits(LIMITS.archive_bytes, 1000, LIMITS.files, LIMITS.path_chars)
    message = area.refused("big.py", b"#" * 5000, "", "more than the league's limit of "
                           "1,000 bytes", limits)
    assert message.startswith("big.py: ")


def test_a_tar_gz_bomb_is_refused(area: Area) -> None:
    data = gzip_tar_bomb(GB)
    assert len(data) < 2 * MB
    area.refused("b.tar.gz", data, "bomb/zeros", "unpacks to more than the league's limit")


def test_a_tar_header_built_to_fill_memory_is_refused(area: Area) -> None:
    """A GNU long name of 64 MB (zeros, compressed to little): refused before it is read."""
    info = tarfile.TarInfo("././@LongLink")
    info.type = tarfile.GNUTYPE_LONGNAME
    info.size = 64 * MB
    data = (gzip.compress(info.tobuf(format=tarfile.USTAR_FORMAT))
            + gzip.compress(b"a" * (64 * MB), compresslevel=1))
    area.refused("b.tar.gz", data, "", "a header of 67,108,864 bytes, more than 4 KB")


def pax_tar(records: list[bytes], members: int = 1) -> bytes:
    """A tar of ``members`` files, each after a pax header holding ``records`` as they are."""
    payload = b"".join(records)
    out = io.BytesIO()
    for i in range(members):
        pax = tarfile.TarInfo(f"././@PaxHeader/{i}")
        pax.type = tarfile.XHDTYPE
        pax.size = len(payload)
        out.write(pax.tobuf(format=tarfile.USTAR_FORMAT))
        out.write(payload + b"\0" * (-len(payload) % tarfile.BLOCKSIZE))
        out.write(tarfile.TarInfo(f"bot/{i}.py").tobuf(format=tarfile.USTAR_FORMAT))
    return out.getvalue() + b"\0" * 1024


@pytest.mark.parametrize(("records", "members", "words"), [
    ([b"1" * 1500 + b" " + b"a" * 1500 + b"\n"], 1, "a number of more than 64 digits"),
    ([b"1 hdrcharset=" * 300], 12, "long headers of more than 32 KB in all"),
    ([b"9" * 65 + b" x"], 1, "a number of more than 64 digits")])
def test_a_pax_header_built_to_take_time_is_refused_quickly(
        area: Area, records: list[bytes], members: int, words: str) -> None:
    """Python's pax parser (before 3.11.10) takes quadratic time on such headers: seconds for
    each; refused before it parses them."""
    started = time.monotonic()
    area.refused("b.tar", pax_tar(records, members), "", words)
    assert time.monotonic() - started < 5


def test_ordinary_pax_headers_are_read(area: Area) -> None:
    name = "bot/" + "é" * 100 + ".py"  # not ASCII and over 100 characters: a pax path
    upload = area.upload("b.tar", tar_bytes([member(name, data=b"e")]))
    assert (unpack(upload, "b.tar", area.dest, LIMITS) / name[4:]).read_bytes() == b"e"


def test_a_zip_claiming_a_million_members_is_refused_from_its_end_record(area: Area) -> None:
    data = raw_zip([RawMember(b"bot/a.py", b"x", 1, zlib.crc32(b"x"), 0)],
                   claim_entries=1_000_000)
    area.refused("b.zip", data, "", "1,000,000 members, more than the league's 2,000")


def test_a_zip_of_too_many_real_members_is_refused(area: Area) -> None:
    data = zip_bytes([(f"bot/{i}", b"", None) for i in range(LIMITS.files + 1)])
    area.refused("b.zip", data, "", "2,001 members, more than the league's 2,000")


def test_a_zip_whose_end_record_lies_about_its_count_is_refused(area: Area) -> None:
    """The end record says 2 members, the central directory holds 3,000: refused by the
    directory's size before it is parsed, or by the parsed count."""
    data = bytearray(zip_bytes([(f"b/{i}", b"", None) for i in range(3000)]))
    at = data.rfind(b"PK\x05\x06")
    data[at + 8: at + 12] = struct.pack("<2H", 2, 2)
    message = area.refused("b.zip", bytes(data), "", "members")
    assert "3,000 members" in message or "central directory" in message


@pytest.mark.slow
def test_a_tar_gz_of_a_million_tiny_files_is_refused_at_the_cap(area: Area) -> None:
    """A million empty files, one header each (a 9 MB upload): the scan stops at the
    2,001st header, before anything is written."""
    area.refused("b.tar.gz", million_headers(), "f/0002000",
                 "more than the league's 2,000 files and folders")


def million_headers(count: int = 1_000_000) -> bytes:
    info = tarfile.TarInfo("f/0000000")
    info.mode = 0o644
    base = bytearray(info.tobuf(format=tarfile.USTAR_FORMAT))
    base[148:156] = b" " * 8
    base_sum = sum(base) - sum(b"0000000")
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    out: list[bytes] = []
    batch: list[bytes] = []
    for i in range(count):
        name = b"%07d" % i
        block = base[:]
        block[2:9] = name
        block[148:156] = b"%06o\0 " % (base_sum + sum(name))
        batch.append(bytes(block))
        if len(batch) == 10_000:
            out.append(c.compress(b"".join(batch)))
            batch = []
    out.append(c.compress(b"".join(batch) + b"\0" * 1024))
    out.append(c.flush())
    return b"".join(out)


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_path_too_long_is_refused(area: Area, kind: str) -> None:
    name = "bot/" + "/".join(["d" * 49] * 4) + ".py"  # 4 + 199 + 3 = 206 characters
    data = tar_bytes([member(name)]) if kind == "tar" else zip_bytes([(name, b"x", None)])
    area.refused(f"b.{kind}", data, name[:40], "a path of 206 characters, more than the "
                 "league's 200")


@pytest.mark.parametrize(("name", "data", "words"), [
    ("b.zip", gzip.compress(b"hello", mtime=0), "not a zip archive (it looks like a gzip file)"),
    ("b.zip", b"print('a bot')\n", "not a zip archive (it looks like text)"),
    ("b.tar.gz", b"PK\x03\x04" + b"\0" * 100, "not a gzip-compressed tar archive (it looks "
     "like a zip archive)"),
    ("b.tar.gz", gzip.compress(b"just text\n" * 100, mtime=0),
     "a gzip file, but not of a tar archive"),
    ("b.tar", b"\x7fELF" + b"\0" * 600, "not a tar archive (it looks like a program (ELF))"),
    ("b.zip", b"PK\x03\x04" + b"\0" * 100, "a damaged zip archive"),
    ("b.tar.gz", b"\x1f\x8b\x08\0" + b"\xff" * 100, "damaged")],
    ids=["zip-gzip", "zip-text", "tgz-zip", "tgz-text", "tar-elf", "zip-damaged",
         "tgz-damaged"])
def test_a_file_that_is_not_what_its_name_says_is_refused(area: Area, name: str, data: bytes,
                                                          words: str) -> None:
    area.refused(name, data, "", words)


def patched(data: bytes, signature: bytes, offset: int, value: bytes) -> bytes:
    """``data`` with ``value`` written ``offset`` bytes after the first ``signature``."""
    at = data.index(signature) + offset
    return data[:at] + value + data[at + len(value):]


ONE_ZIP = zip_bytes([("bot/bot.py", b"x" * 100, None)])


@pytest.mark.parametrize(("data", "words"), [
    (patched(ONE_ZIP, b"PK\x01\x02", 6, b"\xff\x00"), "a damaged zip archive (zip file "
     "version 25.5)"),
    (patched(ONE_ZIP, b"PK\x01\x02", 42, b"\xff\xff\xff\x7f"), "damaged"),
    (patched(ONE_ZIP, b"PK\x01\x02", 8, b"\x01\x00"), "encrypted"),
    (patched(ONE_ZIP, b"PK\x01\x02", 10, b"\x0c\x00"), "compressed with method 12")],
    ids=["version", "offset", "encrypted", "bzip2"])
def test_a_zip_member_that_cannot_be_read_safely_is_refused(area: Area, data: bytes,
                                                            words: str) -> None:
    area.refused("b.zip", data, "", words)


def test_a_full_disk_is_the_machines_fault_not_a_refusal(
        area: Area, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC while writing: raised as it is (the author did nothing wrong), the destination
    emptied all the same."""
    upload = area.upload("b.zip", zip_bytes([("bot/a.py", b"a", None), ("bot/b.py", b"b",
                                                                         None)]))
    real_open = os.open

    def full_disk(path: str, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if str(path).endswith("b.py"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, flags, mode, **kwargs)

    monkeypatch.setattr(os, "open", full_disk)
    with pytest.raises(OSError, match="No space left") as raised:
        unpack(upload, "b.zip", area.dest, LIMITS)
    assert not isinstance(raised.value, ArchiveRefused)
    assert list(area.dest.iterdir()) == []


def test_an_upload_over_the_size_limit_is_refused_unread(area: Area) -> None:
    limits = UploadLimits(1000, LIMITS.unpacked_bytes, LIMITS.files, LIMITS.path_chars)
    area.refused("b.zip", b"PK\x03\x04" + b"\0" * 2000, "", "2,004 bytes, more than the "
                 "league's upload limit of 1,000 bytes", limits)


def test_a_truncated_tar_gz_leaves_nothing(area: Area) -> None:
    data = tar_bytes([member("bot/a.py", data=b"a" * 100_000),
                      member("bot/b.py", data=os.urandom(100_000))], gz=True)
    area.refused("b.tar.gz", data[: len(data) // 2], "", "damaged")


# ----- memory -------------------------------------------------------------------------------

MEMORY_CHILD = """
import sys
from pathlib import Path
from arena.bots import store
from arena.league.archive import ArchiveRefused, unpack, upload_limits
from arena.leaguedir.leaguetoml import Policy
for upload in sys.argv[1:]:
    dest = Path(upload + ".dest")
    try:
        unpack(Path(upload), Path(upload).name, dest, upload_limits(Policy()))
    except ArchiveRefused as exc:
        print("refused:", exc)
    else:
        print("ACCEPTED", upload)
    assert not any(dest.iterdir())
# VmHWM: this process's own peak (ru_maxrss would also hold the peak of the pytest worker
# that started it, which the kernel carries over exec)
hwm = next(line for line in Path("/proc/self/status").read_text().splitlines()
           if line.startswith("VmHWM:"))
print("maxrss_kb", int(hwm.split()[1]))
"""


@pytest.mark.slow
def test_unpacking_gigabyte_bombs_stays_under_200_mb(tmp_path: Path) -> None:
    """A child process refuses a 1 GB zip bomb (honest and lying headers), a 1 GB tar.gz
    bomb and a 64 MB tar header; its peak RSS is measured by the kernel."""
    uploads = {"honest.zip": zip_bomb(GB), "liar.zip": zip_bomb(GB, claimed=150 * MB),
               "bomb.tar.gz": gzip_tar_bomb(GB)}
    paths = []
    for name, data in uploads.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", MEMORY_CHILD, *paths], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("refused:") for line in lines) == 3, done.stdout
    peak_mb = int(lines[-1].split()[1]) / 1024
    assert peak_mb < 200, f"peak RSS {peak_mb:.0f} MB"




# ----- through arena league submit ----------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
FIRST_MOVE_BOT = '''"""Plays the first legal move: a whole bot in one file, standard library."""
import sys

legal = []
for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    if words[0] == "ugi":
        print("id name first-move\\nugiok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "legal":
        legal = words[1:]
    elif words[0] == "go":
        print("bestmove " + legal[0], flush=True)
    elif words[0] == "quit":
        break
'''


@pytest.fixture
def league(tmp_path: Path) -> LeagueDir:
    root = tmp_path / "league"
    root.mkdir()
    (root / "league.toml").write_text('game = "dobutsu"\ntc = "2+0.02"\n')
    return LeagueDir(root)


def random_bot_folder(folder: Path) -> Path:
    """The random sample bot as ``bot.py`` with the protocol package it imports."""
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "sample_bots" / "random_bot.py", folder / "bot.py")
    shutil.copytree(ROOT / "protocol", folder / "protocol",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text('author = "Ada"\n')
    return folder


def archive_of(folder: Path, upload: Path) -> Path:
    if upload.name.endswith(".zip"):
        with zipfile.ZipFile(upload, "w", zipfile.ZIP_DEFLATED) as z:
            for path in sorted(folder.rglob("*")):
                z.write(path, str(path.relative_to(folder.parent)))
    else:
        with tarfile.open(upload, "w:gz" if upload.name.endswith("gz") else "w") as tar:
            tar.add(folder, folder.name)
    return upload


def quiet(event: SubmitEvent) -> None:
    pass


@pytest.mark.slow
def test_archives_of_a_bot_folder_are_submitted_and_accepted(
        league: LeagueDir, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A zip through the command line, a tar.gz and a tar through :func:`submit`: each
    accepted, all three the very content of the folder (one digest, one store entry)."""
    folder = random_bot_folder(tmp_path / "author" / "rnd")
    settings = load_settings(league.config)
    by_folder = submit(league, settings, Submission("rnd", folder), quiet)
    zipped = archive_of(folder, tmp_path / "author" / "rnd.zip")
    assert main(["league", "submit", str(league.root), "rnd", str(zipped)]) == 0
    assert "rnd@2: unpacking rnd.zip" in capsys.readouterr().out
    versions = [by_folder, read_versions(league)[1]]
    for name in ["rnd.tar.gz", "rnd.tar"]:
        upload = archive_of(folder, tmp_path / "author" / name)
        versions.append(submit(league, settings, Submission("rnd", upload=upload), quiet))
    assert [(v.state, v.author, v.cmd) for v in versions] == [
        ("active", "Ada", ["{python}", "bot.py"])] * 4
    assert {v.source for v in versions} == {by_folder.source}
    assert sorted(p.name for p in league.store.iterdir()) == [by_folder.source]


@pytest.mark.slow
def test_a_single_source_file_is_submitted_and_accepted(
        league: LeagueDir, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "first_move.py"
    source.write_text(FIRST_MOVE_BOT)
    assert main(["league", "submit", str(league.root), "first", str(source)]) == 0
    [version] = read_versions(league)
    assert (version.state, version.cmd) == ("active", ["{python}", "first_move.py"])
    assert version.source is not None
    assert sorted(p.name for p in league.stored(version.source).iterdir()) == [
        "first_move.py"]
    check_log = (league.version_dir("first", 1) / "check.log").read_text()
    assert "PASS  15. quit" in check_log and "FAIL" not in check_log


def test_a_hostile_upload_is_rejected_at_step_upload(
        league: LeagueDir, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rejected with step ``upload`` and the one-line reason; nothing stored, no scratch
    folder left, nothing written beside the league; ``bots`` shows the reason, no log."""
    upload = tmp_path / "evil.zip"
    upload.write_bytes(zip_bytes([("bot/bot.py", b"x", None), ("../../owned.py", b"x", None)]))
    before = snapshot(tmp_path)
    assert main(["league", "submit", str(league.root), "evil", str(upload)]) == 1
    [version] = read_versions(league)
    assert (version.state, version.step) == ("rejected", "upload")
    assert version.reason == ("evil.zip: member '../../owned.py': '..' in the path (it would "
                              "lead outside the bot's folder)")
    assert list(league.store.iterdir()) == []
    after = snapshot(tmp_path)
    assert {k for k in after if not k.startswith("league")} == {
        k for k in before if not k.startswith("league")}
    capsys.readouterr()
    assert main(["league", "bots", str(league.root)]) == 0
    out = capsys.readouterr().out
    assert f"upload: {version.reason}" in out and "log:" not in out


def test_the_later_steps_name_the_upload(league: LeagueDir, tmp_path: Path) -> None:
    """The steps after the unpacking name the upload, not the scratch folder it was
    unpacked in."""
    upload = tmp_path / "mine.tar"
    upload.write_bytes(tar_bytes([member("bot/bot.toml", data=b"cmd = 3\n")]))
    version = submit(league, load_settings(league.config), Submission("b", upload=upload),
                     quiet)
    assert (version.state, version.step) == ("rejected", "bot.toml")
    assert version.reason.startswith("mine.tar/bot/bot.toml:1: cmd:")


def test_a_folder_and_an_upload_at_once_take_no_number(league: LeagueDir,
                                                      tmp_path: Path) -> None:
    settings = load_settings(league.config)
    with pytest.raises(UserError, match="not both"):
        submit(league, settings, Submission("b", tmp_path, upload=tmp_path / "x.zip"))
    with pytest.raises(UserError, match="x.zip: no such file"):
        submit(league, settings, Submission("b", upload=tmp_path / "x.zip"))
    assert read_versions(league) == []


def test_the_upload_limits_are_league_toml_keys_written_by_init(tmp_path: Path) -> None:
    assert main(["league", "init", str(tmp_path / "lg"), "--game", "dobutsu", "--tc",
                 "1+0.01"]) == 0
    text = (tmp_path / "lg" / "league.toml").read_text()
    for key in ["upload_mb = 20", "unpacked_mb = 200", "upload_files = 2000",
                "upload_path_chars = 200"]:
        assert key in text
    settings = load_settings(tmp_path / "lg" / "league.toml")
    assert upload_limits(settings.policy) == UploadLimits(20 * MB, 200 * MB, 2000, 200)
    for bad in ["upload_files = 0", "upload_files = 10001", "unpacked_mb = 513"]:
        key = bad.split()[0]
        (tmp_path / "lg" / "league.toml").write_text(
            "\n".join(bad if line.startswith(key + " ") else line
                      for line in text.splitlines()))
        with pytest.raises(UserError, match=key):
            load_settings(tmp_path / "lg" / "league.toml")


def test_the_settings_limits_stay_within_the_stores() -> None:
    """The largest limits a league may set are the store's own (an upload over them would
    pass the unpacking and fail at the copy, with a less helpful message)."""
    largest = msgspec.toml.decode(b"unpacked_mb = 512\nupload_files = 10000\n", type=Policy)
    limits = upload_limits(largest)
    assert (limits.unpacked_bytes, limits.files) == (store.MAX_BYTES, store.MAX_FILES)


# ----- damaged archives ---------------------------------------------------------------------


def good_archives() -> dict[str, bytes]:
    members = [member("bot", tarfile.DIRTYPE, 0o755), member("bot/bot.py", data=b"x" * 3000),
               member("bot/lib/a.py", data=os.urandom(700)),
               member("bot/l", tarfile.SYMTYPE, link="lib/a.py")]
    return {"b.tar": tar_bytes(members), "b.tar.gz": tar_bytes(members, gz=True),
            "b.zip": zip_bytes([("bot/bot.py", b"x" * 3000, None),
                                ("bot/lib/a.py", os.urandom(700), 0o100755)])}


GOOD = good_archives()


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(GOOD)), edits=st.lists(st.tuples(
    st.sampled_from(["overwrite", "cut", "insert"]), st.integers(0, 20_000),
    st.binary(min_size=1, max_size=8)), min_size=1, max_size=4))
def test_a_damaged_archive_unpacks_or_is_refused_in_one_line(
        tmp_path: Path, kind: str, edits: list[tuple[str, int, bytes]]) -> None:
    """Good archives with bytes overwritten, inserted or cut off: each unpacks, or is
    refused in one line leaving the destination empty; never another exception."""
    data = bytearray(GOOD[kind])
    for edit, at, piece in edits:
        at %= len(data) + 1
        if edit == "overwrite":
            data[at: at + len(piece)] = piece
        elif edit == "insert":
            data[at:at] = piece
        else:
            del data[at:]
    with tempfile.TemporaryDirectory(dir=tmp_path) as scratch:
        upload = Path(scratch) / "upload"
        upload.write_bytes(bytes(data))
        dest = Path(scratch) / "dest"
        try:
            folder = unpack(upload, kind, dest, LIMITS)
        except ArchiveRefused as exc:
            assert "\n" not in str(exc) and str(exc).startswith(f"{kind}: ")
            assert list(dest.iterdir()) == []
        else:
            assert folder in (dest, dest / "bot")
        assert sorted(os.listdir(scratch)) == ["dest", "upload"]
