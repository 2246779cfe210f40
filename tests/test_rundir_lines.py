"""The one line reader of a run's files and its rule for a last line without its newline."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import UserError
from arena.rundir.journal import iter_records, journal_lines, load
from arena.rundir.textlines import LastLine, LineReader
from referee.record import GameRecord, Termination, encode_record


def test_a_pending_last_line_is_left_out_and_read_once_complete(tmp_path: Path) -> None:
    path = tmp_path / "lines"
    path.write_bytes(b"a\n\nb\nc")
    lines = LineReader(path, LastLine.PENDING)
    assert [(line.number, line.offset, line.data) for line in lines] == [(1, 0, b"a\n"),
                                                                          (3, 3, b"b\n")]
    assert (lines.end, lines.lines) == (5, 3)
    assert lines.torn is not None and (lines.torn.number, lines.torn.offset) == (4, 5)
    with path.open("ab") as fh:
        fh.write(b"d\n")
    more = LineReader(path, LastLine.PENDING, start=lines.end, before=lines.lines)
    assert [(line.number, line.data) for line in more] == [(4, b"cd\n")]
    assert more.torn is None and more.end == path.stat().st_size


def test_a_text_files_last_line_needs_no_newline(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_bytes(b'[White "a"]\n\n1-0')
    lines = LineReader(path, LastLine.TEXT, blank=True)
    assert [line.data for line in lines] == [b'[White "a"]\n', b"\n", b"1-0"]
    assert lines.torn is None


def record(game_id: str) -> bytes:
    return encode_record(GameRecord(game="dobutsu", p1="a", p2="b", result="1-0",
                                    termination=Termination.NORMAL, reason="test", winner=0,
                                    id=game_id)) + b"\n"


def test_journal_readers_share_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(record("g1") + record("g2")[:20])
    assert [line.number for line in journal_lines(path)] == [1]
    assert [r.id for r in iter_records(path)] == ["g1"]
    warnings: list[str] = []
    assert [r.id for r in load(path, warnings.append)] == ["g1"]
    assert "games.jsonl:2: torn last line" in warnings[0] and path.stat().st_size > 0


def test_a_bad_line_before_a_torn_one_is_not_the_last(tmp_path: Path) -> None:
    """Resume cuts off only the last line; a bad one with a torn line after it is damage."""
    path = tmp_path / "games.jsonl"
    path.write_bytes(record("g1") + b'{"game": 1}\n' + record("g3")[:20])
    before = path.read_bytes()
    with pytest.raises(UserError, match=r"games\.jsonl:2: corrupt journal line"):
        load(path, lambda text: None, repair=True)
    assert path.read_bytes() == before
    with pytest.raises(UserError, match=r"games\.jsonl:2: corrupt journal line"):
        list(iter_records(path))
