"""What a bot prints cannot grow the referee's memory or the journal: a 200,000-move ``pv`` on
every move and 12,000 ``option`` declarations of 20 kB each are cut to the caps of
``protocol/bounds.py`` (the test process is the referee here; its peak RSS is read from
/proc/self/status)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest
import trio
from proc_scan import tagged

from protocol.bounds import MAX_ID_CHARS, MAX_OPTIONS, MAX_PV_MOVES
from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.connection import BotConnection
from referee.match import FreshBots, open_bot, play_game
from referee.order import GameOrder
from referee.record import Termination, encode_record
from referee.timecontrol import TimeControl

HOSTILE = Path(__file__).resolve().parent / "hostile"
GROWTH_LIMIT_MB = 60

pytestmark = pytest.mark.slow  # 200 MB of pv and 200 MB of option lines through the referee


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def hostile(script: str, tag: str) -> BotSpec:
    return BotSpec(name=script, cmd=[sys.executable, str(HOSTILE / f"{script}.py"), tag, "0"])


def quiet(tag: str) -> BotSpec:
    return BotSpec(name="innocent",
                   cmd=[sys.executable, str(HOSTILE / "stderr_chatter.py"), tag, "0", "0"])


async def test_a_pv_flood_is_cut_in_the_record_and_in_memory(tmp_path: Path) -> None:
    tag = f"pvflood-{uuid.uuid4().hex[:8]}"
    before = peak = rss_mb()

    def sample(move: object) -> None:
        nonlocal peak
        peak = max(peak, rss_mb())

    with trio.fail_after(120):
        record = await play_game(GameOrder.checked("jungle", hostile("pv_flood", tag), quiet(tag),
                                                   tc=TimeControl.parse("60+1"),
                                                   adjudication=Adjudication(max_plies=40)),
                                 FreshBots(tmp_path), on_move=sample)
    assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION), record.reason
    flooded = [m for m in record.moves if m.side == 0]
    assert flooded and all(m.info is not None for m in flooded)
    for move in flooded:
        assert move.info is not None
        assert len(move.info.pv) == MAX_PV_MOVES and move.info.pv_more > 190_000
    assert len(encode_record(record)) < 100_000, "the journal line holds the flood"
    assert peak - before < GROWTH_LIMIT_MB, f"RSS grew {peak - before:.0f} MB"
    assert not tagged(tag)


async def test_an_option_flood_keeps_the_first_options_and_plays_on(tmp_path: Path) -> None:
    tag = f"optflood-{uuid.uuid4().hex[:8]}"
    before = rss_mb()
    with trio.fail_after(120):
        connection: BotConnection = await open_bot(hostile("option_flood", tag), timeout=60)
        try:
            peak = rss_mb()
            assert len(connection.options) == MAX_OPTIONS
            assert connection.options_dropped == 12_000 - MAX_OPTIONS
            assert connection.id_name is not None and len(connection.id_name) < MAX_ID_CHARS + 30
        finally:
            await connection.aclose()
    assert peak - before < GROWTH_LIMIT_MB, f"RSS grew {peak - before:.0f} MB"
    # In a game (handshake timeout 10 s) the innocent never loses. A smaller flood here (still
    # 8 times the cap): the memory bound is what the 12,000 above are for.
    flood = hostile("option_flood", tag)
    flood.cmd.append(str(8 * MAX_OPTIONS))
    with trio.fail_after(120):
        record = await play_game(GameOrder.checked("jungle", quiet(tag), flood,
                                                   tc=TimeControl.parse("60+1"),
                                                   adjudication=Adjudication(max_plies=10)),
                                 FreshBots(tmp_path))
    assert record.winner != 1, record.reason  # never the innocent p1's loss
    assert not tagged(tag)


async def test_a_debug_transcript_of_a_pv_flood_is_bounded(tmp_path: Path) -> None:
    from protocol.bounds import MAX_TRANSCRIPT_LINE_CHARS

    tag = f"pvdebug-{uuid.uuid4().hex[:8]}"
    flood = hostile("pv_flood", tag)
    flood.debug = True
    with trio.fail_after(120):
        record = await play_game(GameOrder.checked("jungle", flood, quiet(tag),
                                                   tc=TimeControl.parse("60+1"),
                                                   adjudication=Adjudication(max_plies=20),
                                                   id="g1"),
                                 transcript_dir=tmp_path)
    lines = (tmp_path / "g1.log").read_text().splitlines()
    floods = [line for line in lines if " < info depth 1" in line]
    assert len(floods) == sum(1 for m in record.moves if m.side == 0)
    assert all(len(line) < MAX_TRANSCRIPT_LINE_CHARS + 80 for line in floods)
    assert all(line.endswith("more chars)") for line in floods)


async def test_a_debug_transcript_stops_at_its_byte_cap_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.channel.MAX_TRANSCRIPT_BYTES", 4000)
    tag = f"pvcap-{uuid.uuid4().hex[:8]}"
    flood = hostile("pv_flood", tag)
    flood.debug = True
    with trio.fail_after(120):
        await play_game(GameOrder.checked("jungle", flood, quiet(tag),
                                          tc=TimeControl.parse("60+1"),
                                          adjudication=Adjudication(max_plies=20), id="g1"),
                        transcript_dir=tmp_path)
    text = (tmp_path / "g1.log").read_text()
    assert len(text) < 4000 + 300
    assert "more lines not written (a transcript keeps 4000 bytes of each bot's lines)" in text


def test_numbers_too_big_for_the_journal_are_left_out_of_the_record() -> None:
    """A dialect that builds ``Info`` itself (Hub's floats) may hold a number msgspec cannot
    write: the record drops it rather than fail the journal append."""
    from protocol.messages import Info
    from referee.match import _info_record

    info = _info_record(Info(nodes=1 << 70, depth=3, pv=["x" * 500]))
    assert info is not None and info.nodes is None and info.depth == 3
    import msgspec

    assert b'"depth":3' in msgspec.json.encode(info)  # and the journal can write it
    assert len(info.pv[0]) < 100
