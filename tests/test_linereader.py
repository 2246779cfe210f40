"""The capped line reader: a chunk's lines cut at once and handed out without awaiting, with
the same answers as line by line (``\\r`` stripped, bad UTF-8 and overlong lines reported)."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from protocol.lines import MAX_LINE_BYTES, BadLine
from referee.process.boterrors import BotExited
from referee.process.linereader import CappedLineReader


async def read_all(chunks: list[bytes]) -> tuple[list[str | BadLine], CappedLineReader]:
    send, receive = trio.testing.memory_stream_one_way_pair()
    reader = CappedLineReader(receive, "bot")
    lines: list[str | BadLine] = []
    for chunk in chunks:
        await send.send_all(chunk)
        with trio.move_on_after(0.01):
            while True:
                lines.append(await reader.readline())
    await send.aclose()
    with pytest.raises(BotExited):
        while True:
            lines.append(await reader.readline())
    return lines, reader


def shown(lines: list[str | BadLine]) -> list[str]:
    return [line if isinstance(line, str) else f"bad: {line.why}" for line in lines]


async def test_a_chunk_of_lines_is_cut_at_once_and_the_tail_waits_for_its_end() -> None:
    lines, _ = await read_all([b"info depth 1\r\nbestmove a1\n\xff\xfe\npar", b"tial\n", b"end"])
    assert shown(lines) == ["info depth 1", "bestmove a1",
                            "bad: not UTF-8 (invalid start byte at byte 0)", "partial", "end"]


async def test_lines_read_already_are_handed_out_without_awaiting() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    reader = CappedLineReader(receive, "bot")
    await send.send_all(b"one\ntwo\nthree\n")
    assert await reader.readline() == "one"
    with trio.CancelScope() as scope:
        scope.cancel()  # any await would raise Cancelled here
        assert await reader.readline() == "two"
        assert await reader.readline() == "three"
    with trio.move_on_after(0.01):
        await reader.readline()
        raise AssertionError("a line was read from an empty pipe")


async def test_an_overlong_line_among_short_ones_is_reported_as_before() -> None:
    long = b"y" * (MAX_LINE_BYTES + 10)
    lines, reader = await read_all([b"x\n" + long[:60000], long[60000:] + b"\nz\nw\n"])
    assert shown(lines) == ["x", f"bad: line longer than {MAX_LINE_BYTES} bytes", "z", "w"]
    assert reader.dropped_lines == 1
    assert reader.dropped_bytes == len(long)
