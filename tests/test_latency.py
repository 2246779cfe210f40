"""Latency per move (referee/latency.py): the spreads a game keeps, measured on scripted bots
on trio's autojump clock, where every delay is the script's own and exact; and the record
with or without them read back (old journals have none)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import trio
from fake_channel import Answer, Later
from scripted import NativeBot, ScriptedBot, play_scripted
from trio.testing import MockClock

from referee.adjudication import Adjudication
from referee.latency import GameLatency, LatencyLog, SideLatency, Spread, spread
from referee.record import decode_record, encode_record
from referee.timecontrol import TimeControl

FAST = TimeControl.parse("10+0.1")


def slow_bot(name: str, first_s: float, move_s: float, reported_ms: int | None
             ) -> ScriptedBot:
    """A native bot whose first line comes ``first_s`` after each ``go`` (an ``info``,
    reporting ``reported_ms`` when given) and its move ``move_s`` after it."""

    def move(legal: Sequence[str], made: int) -> list[Answer]:
        info = "info depth 1 score cp 0" + ("" if reported_ms is None else f" time {reported_ms}")
        return [Later(first_s, info), Later(move_s, f"bestmove {legal[0]}")]

    return ScriptedBot(name, lambda: NativeBot(move, name=name))


async def test_each_side_keeps_its_first_line_and_unreported_time(
        autojump_clock: MockClock) -> None:
    with trio.fail_after(30):
        record = await play_scripted(
            "dobutsu", slow_bot("a", 0.010, 0.050, 30), slow_bot("b", 0.002, 0.020, None),
            tc=FAST, adjudication=Adjudication(max_plies=6, draw_rules=False))
    assert record.plies == 6
    latency = record.latency
    assert latency is not None and len(latency.sides) == 2
    a, b = latency.sides
    assert a.first_line == Spread(n=3, p50_ms=10.0, p99_ms=10.0, max_ms=10.0)
    assert b.first_line == Spread(n=3, p50_ms=2.0, p99_ms=2.0, max_ms=2.0)
    # a answers 50 ms after a go and says it searched 30: 20 ms it did not count.
    assert a.unreported == Spread(n=3, p50_ms=20.0, p99_ms=20.0, max_ms=20.0)
    assert b.unreported is None  # b reports no time
    # The referee's own time takes no time on the mock clock; p1's first go has none before it.
    assert a.turnaround is not None and a.turnaround.n == 2 and a.turnaround.max_ms == 0.0
    assert b.turnaround is not None and b.turnaround.n == 3


def test_spread_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 201)]
    assert spread(values) == Spread(n=200, p50_ms=100.0, p99_ms=198.0, max_ms=200.0)
    assert spread([5.0]) == Spread(n=1, p50_ms=5.0, p99_ms=5.0, max_ms=5.0)
    assert spread([]) is None


def test_a_game_of_no_searched_move_has_no_latency() -> None:
    assert LatencyLog().summary() is None


@pytest.mark.parametrize("with_latency", [False, True])
def test_records_with_and_without_latency_read_back(with_latency: bool) -> None:
    line = (b'{"game":"dobutsu","p1":"a","p2":"b","result":"1-0","termination":"normal",'
            b'"reason":"x"}')
    record = decode_record(line)
    assert record.latency is None  # a journal from before the field
    if with_latency:
        record.latency = GameLatency(sides=[
            SideLatency(first_line=Spread(n=2, p50_ms=1.5, p99_ms=3.0, max_ms=3.0)),
            SideLatency()])
    again = decode_record(encode_record(record))
    assert again == record


def _record_line(p1: str, p2: str, gid: str, p50: tuple[float, float], referee: str) -> bytes:
    record = decode_record(
        b'{"game":"dobutsu","p1":"a","p2":"b","result":"1-0","termination":"normal",'
        b'"reason":"x"}')
    record.p1, record.p2, record.id = p1, p2, gid
    record.latency = GameLatency(sides=[
        SideLatency(first_line=Spread(n=9, p50_ms=p50[0], p99_ms=4 * p50[0], max_ms=9.0)),
        SideLatency(first_line=Spread(n=9, p50_ms=p50[1], p99_ms=4 * p50[1], max_ms=5.0),
                    turnaround=Spread(n=9, p50_ms=0.1, p99_ms=0.3, max_ms=0.5),
                    cpu_wait=Spread(n=9, p50_ms=2.0, p99_ms=30.0, max_ms=p50[1] * 10))],
    )
    record.worker = referee
    return encode_record(record) + b"\n"


def test_the_report_tables_group_by_bot_and_by_referee(tmp_path: Path) -> None:
    from reports.html import _latency_section
    from reports.journal_summary import summarise_journal
    from reports.latency_tables import latency_tables

    old = (b'{"game":"dobutsu","p1":"a","p2":"b","result":"1-0","termination":"normal",'
           b'"reason":"x"}\n')
    (tmp_path / "games.jsonl").write_bytes(old)
    assert latency_tables(summarise_journal(tmp_path)) is None  # journals from before
    assert _latency_section(None) == ""
    (tmp_path / "games.jsonl").write_bytes(
        old + _record_line("a", "b", "g1", (1.0, 2.0), "r1")
        + _record_line("b", "a", "g2", (3.0, 5.0), "r2")
        + _record_line("a", "b", "g3", (2.0, 7.0), "r2"))
    tables = latency_tables(summarise_journal(tmp_path))
    assert tables is not None
    by_bot, by_referee = tables
    assert by_bot.loc["a", "games"] == 3 and by_bot.loc["b", "games"] == 3
    assert by_bot.loc["a", "to first line p50 ms"] == 2.0  # medians 1, 5, 2
    assert by_bot.loc["a", "to first line p99 ms"] == 20.0
    assert by_bot.loc["b", "referee max ms"] == 0.5
    assert list(by_referee.index) == ["r1", "r2"]
    assert by_referee.loc["r2", "games"] == 2
    assert by_referee.loc["r2", "to first line max ms"] == 9.0
    assert by_bot.loc["a", "CPU wait max ms"] == 50.0 and by_bot.loc["b", "CPU wait max ms"] == 70.0
    assert "slot wait p50 ms" not in by_bot.columns  # no game waited for a slot
    html = _latency_section(tables)
    assert 'id="latency-bots"' in html and 'id="latency-referees"' in html
