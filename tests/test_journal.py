"""The journal: durable appends, torn-last-line repair, loud errors for damage elsewhere."""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from pathlib import Path

import pytest
import trio

from arena.errors import UserError
from arena.rundir.journal import (
    SYNC_EVERY_S,
    Journal,
    JournalWriteError,
    iter_records,
    load,
)
from referee.record import GameRecord, MoveRecord, Termination, encode_record


def record(game_id: str) -> GameRecord:
    return GameRecord(
        game="draughts", p1="a", p2="b", result="1-0", termination=Termination.NORMAL,
        reason="p2 has no moves", winner=0, id=game_id,
    )  # fmt: skip


async def test_append_then_reopen(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    warnings: list[str] = []
    journal = Journal.open(path, warnings.append)
    await journal.append(record("r1-p01-g1"))
    journal.append_sync(record("r1-p01-g2"))
    journal.close()  # its fsync thread ends (else it would outlive the test)
    assert path.read_bytes().count(b"\n") == 2
    again = Journal.open(path, warnings.append)
    assert [r.id for r in again.summaries] == ["r1-p01-g1", "r1-p01-g2"]
    assert again.summaries[0] == record("r1-p01-g1")
    assert warnings == []


def test_a_new_journal_makes_its_name_durable_with_its_first_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a new journal does not wait for the disk (a fresh run's first game would wait
    for it); its folder is fsync'd by the first append, before the record is, and only
    then. A journal that existed already is never its folder's business."""
    synced: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    path = tmp_path / "games.jsonl"
    journal = Journal.open(path, lambda text: None)
    assert path.exists() and synced == []
    journal.append_sync(record("g1"))
    assert synced == ["folder", "file"]
    journal.append_sync(record("g2"))
    assert synced == ["folder", "file", "file"]
    synced.clear()
    Journal.open(path, lambda text: None).append_sync(record("g3"))
    assert synced == ["file"]
    assert [r.id for r in iter_records(path)] == ["g1", "g2", "g3"]


async def test_a_runners_append_is_in_the_file_at_once_and_fsyncd_by_the_journals_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's append writes its line before it returns (a killed runner loses nothing
    it announced) and leaves the fsync to the journal's thread, at most once a second: a
    new journal's folder first, then the file; a burst of appends costs one or two fsyncs,
    not one each. Closing fsyncs once more, from the caller."""
    synced: list[tuple[str, float]] = []
    real = os.fsync

    def spy(fd: int) -> None:
        kind = "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        synced.append((kind, time.monotonic()))
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    path = tmp_path / "games.jsonl"
    journal = Journal.open(path, lambda text: None)
    start = time.monotonic()
    for number in range(50):
        await journal.append(record(f"g{number}"))
        assert path.read_bytes().count(b"\n") == number + 1
    burst = time.monotonic() - start
    deadline = time.monotonic() + 10
    while len(synced) < 2 and time.monotonic() < deadline:
        await trio.sleep(0.01)
    assert [kind for kind, _ in synced[:2]] == ["folder", "file"]
    assert len(synced) <= 3 + burst / SYNC_EVERY_S  # the folder, then at most one a second
    before_close = len(synced)
    journal.close()
    assert [kind for kind, _ in synced[before_close:]] == ["file"]
    assert [r.id for r in iter_records(path)] == [f"g{n}" for n in range(50)]
    assert journal.count == 50


async def test_an_fsync_the_disk_refused_stops_the_next_append_and_the_close(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An I/O error of the journal's thread is not lost: the next append raises it as a
    :class:`JournalWriteError` naming the journal (the run stops there), and the close raises
    one that no append has reported (said once, not twice)."""
    path = tmp_path / "games.jsonl"
    journal = Journal.open(path, lambda text: None)
    failed = threading.Event()

    def broken(fd: int) -> None:
        failed.set()
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    await journal.append(record("g1"))
    assert failed.wait(10)
    with trio.fail_after(10):  # the thread keeps the error once the fsync has raised
        while journal._syncer is None or journal._syncer.error is None:
            await trio.sleep(0.01)
    with pytest.raises(JournalWriteError, match=r"games\.jsonl: Input/output error.*run stops"):
        await journal.append(record("g2"))
    journal.close()  # reported once: the run has stopped on it already
    await journal.append(record("g3"))  # an fsync that fails at the close, unreported: raised
    with pytest.raises(JournalWriteError, match="Input/output error"):
        journal.close()


def test_torn_last_line_is_truncated_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    good = encode_record(record("g1")) + b"\n"
    torn = encode_record(record("g2"))[:25]
    path.write_bytes(good + torn)
    warnings: list[str] = []
    journal = Journal.open(path, warnings.append)
    assert [r.id for r in journal.summaries] == ["g1"]
    assert path.read_bytes() == good
    assert len(warnings) == 1 and "games.jsonl:2: torn last line" in warnings[0]
    journal.append_sync(record("g2"))
    assert [r.id for r in load(path, warnings.append)] == ["g1", "g2"]


def test_corrupt_complete_last_line_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    good = encode_record(record("g1")) + b"\n"
    path.write_bytes(good + b'{"game": "draughts"}\n')
    warnings: list[str] = []
    assert [r.id for r in Journal.open(path, warnings.append).summaries] == ["g1"]
    assert path.read_bytes() == good and "corrupt last line" in warnings[0]


def test_corrupt_middle_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    lines = [encode_record(record(f"g{i}")) for i in range(3)]
    lines[1] = lines[1][:-5] + b"xx"
    path.write_bytes(b"\n".join(lines) + b"\n")
    before = path.read_bytes()
    with pytest.raises(UserError, match=r"games\.jsonl:2: corrupt journal line"):
        Journal.open(path, lambda text: None)
    assert path.read_bytes() == before  # never repaired silently


def test_two_records_of_one_game_are_an_error_naming_both_lines(tmp_path: Path) -> None:
    """A forged or doubled record is never resolved silently (neither copy is "the" game)."""
    path = tmp_path / "games.jsonl"
    forged = record("g1")
    forged.result = "0-1"
    path.write_bytes(b"".join(encode_record(r) + b"\n" for r in
                              (record("g0"), record("g1"), forged)))
    before = path.read_bytes()
    with pytest.raises(UserError) as caught:
        Journal.open(path, lambda text: None)
    message = str(caught.value)
    assert f"{path}:3: game g1 is already recorded at {path}:2" in message
    assert "delete the wrong one" in message
    assert path.read_bytes() == before


def test_summaries_leave_the_moves_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    full = record("g1")
    full.moves = [MoveRecord(move="32-28", side=0, elapsed_ms=1.0)]
    path.write_bytes(encode_record(full) + b"\n")
    journal = Journal.open(path, lambda text: None)
    assert journal.summaries[0].moves == [] and journal.summaries[0].plies == full.plies
    assert list(iter_records(path)) == [full]


def test_a_failed_append_leaves_no_torn_line(tmp_path: Path) -> None:
    """Writing to a full disk: the error is clean and the file keeps only complete lines."""
    path = tmp_path / "games.jsonl"
    journal = Journal.open(path, lambda text: None)
    journal.append_sync(record("g1"))
    good = path.read_bytes()
    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("no /dev/full on this machine")
    disk_full = Journal(full, [])
    with pytest.raises(JournalWriteError, match="No space left on device"):
        disk_full.append_sync(record("g2"))
    assert path.read_bytes() == good and disk_full.summaries == []


def test_appends_keep_ids_and_count_not_records(tmp_path: Path) -> None:
    """A long run's memory stays flat: an append adds an id and a count, never a record."""
    path = tmp_path / "games.jsonl"
    path.write_bytes(encode_record(record("g0")) + b"\n")
    journal = Journal.open(path, lambda text: None)
    journal.forget_summaries()
    for i in range(1, 4):
        journal.append_sync(record(f"g{i}"))
    assert journal.summaries == []
    assert journal.ids() == {"g0", "g1", "g2", "g3"} and journal.count == 4
