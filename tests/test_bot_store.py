"""The one bot-folder store (arena.bots.store): a league's submission and a cluster's shipped
bot are kept by the same digest, and a shipped folder lands in a worker's store only whole and
only when it is the folder its digest says."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.bots import store


def bot_folder(root: Path) -> Path:
    folder = root / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hello')\n")
    (folder / "run.sh").write_text("#!/bin/sh\nexec python3 bot.py\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "lib" / "data.bin").write_bytes(bytes(range(256)) * 10)
    os.symlink("lib/data.bin", folder / "data")
    return folder


def test_a_shipped_folder_has_the_digest_the_league_would_give_it(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    incoming = store.copy_in(tmp_path / "league-store", folder)
    digest, archive = store.folder_archive(folder)
    assert digest == incoming.digest == store.folder_digest(folder)
    assert store.folder_archive(folder) == (digest, archive)  # reproducible bytes
    store.discard(incoming)


def test_caches_and_history_are_no_part_of_the_folder(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    before = store.folder_digest(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0" * 64)
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert store.folder_digest(folder) == before
    (folder / "bot.py").write_text("print('changed')\n")
    assert store.folder_digest(folder) != before


def test_a_worker_unpacks_a_shipped_folder_once(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    digest, archive = store.folder_archive(folder)
    cache = tmp_path / "cache" / "bots"
    landed = store.unpack(cache, digest, archive)
    assert landed == cache / digest
    assert (landed / "bot.py").read_text() == "print('hello')\n"
    assert os.access(landed / "run.sh", os.X_OK) and os.readlink(landed / "data") == "lib/data.bin"
    assert store.folder_digest(landed) == digest
    assert store.unpack(cache, digest, b"not read again") == landed
    assert sorted(p.name for p in cache.iterdir()) == [digest]  # no scratch left behind


def test_an_archive_that_is_not_its_folder_never_lands(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    digest, _ = store.folder_archive(folder)
    (folder / "bot.py").write_text("print('swapped')\n")
    _, other = store.folder_archive(folder)
    cache = tmp_path / "cache"
    with pytest.raises(OSError, match="damaged in transit"):
        store.unpack(cache, digest, other)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("escape")
        info.type, info.linkname = tarfile.SYMTYPE, "../../outside"
        tar.addfile(info)
    with pytest.raises(OSError, match="cannot be unpacked"):
        store.unpack(cache, digest, buffer.getvalue())
    assert list(cache.iterdir()) == []


def test_a_folder_the_store_refuses_is_not_shipped(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    os.symlink("/etc/passwd", folder / "secret")
    with pytest.raises(store.StoreError, match="absolute path"):
        store.folder_archive(folder)
