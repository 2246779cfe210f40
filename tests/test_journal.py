"""The journal: durable appends, torn-last-line repair, loud errors for damage elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import UserError
from arena.journal import Journal, load
from referee.record import GameRecord, Termination, encode_record


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
    assert path.read_bytes().count(b"\n") == 2
    again = Journal.open(path, warnings.append)
    assert [r.id for r in again.records] == ["r1-p01-g1", "r1-p01-g2"]
    assert again.records[0] == record("r1-p01-g1")
    assert warnings == []


def test_torn_last_line_is_truncated_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    good = encode_record(record("g1")) + b"\n"
    torn = encode_record(record("g2"))[:25]
    path.write_bytes(good + torn)
    warnings: list[str] = []
    journal = Journal.open(path, warnings.append)
    assert [r.id for r in journal.records] == ["g1"]
    assert path.read_bytes() == good
    assert len(warnings) == 1 and "games.jsonl:2: torn last line" in warnings[0]
    journal.append_sync(record("g2"))
    assert [r.id for r in load(path, warnings.append)] == ["g1", "g2"]


def test_corrupt_complete_last_line_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    good = encode_record(record("g1")) + b"\n"
    path.write_bytes(good + b'{"game": "draughts"}\n')
    warnings: list[str] = []
    assert [r.id for r in Journal.open(path, warnings.append).records] == ["g1"]
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


def test_duplicate_ids_keep_the_first(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    second = record("g1")
    second.result = "0-1"
    path.write_bytes(encode_record(record("g1")) + b"\n" + encode_record(second) + b"\n")
    warnings: list[str] = []
    records = load(path, warnings.append)
    assert [r.result for r in records] == ["1-0"] and "twice" in warnings[0]
