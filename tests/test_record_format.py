"""The game record's JSON: journals written before the search report had one definition (it
was declared twice, in protocol/messages.py and referee/record.py) still read the same."""

from __future__ import annotations

from protocol.lines import parse_reply
from protocol.messages import Info, SearchInfo
from referee.match import _info_record
from referee.record import GameRecord, MoveRecord, Termination, decode_record, encode_record

OLD_LINE = (
    b'{"game":"jungle","p1":"alpha","p2":"beta","result":"1-0","termination":"time-forfeit",'
    b'"reason":"p2 (beta): lost on time","winner":0,"id":"r1-g7","moves":[{"move":"a3a4",'
    b'"side":0,"elapsed_ms":12.5,"clock_ms":987.5,"info":{"depth":7,"seldepth":11,'
    b'"score_cp":-35,"nodes":123456,"nps":98765,"time_ms":125,"pv":["a3a4","g7g6"],'
    b'"pv_more":3,"string":"thinking"}},{"move":"g7g6","side":1,"elapsed_ms":3.0,'
    b'"clock_ms":997.0,"info":{"score_mate":-2,"time_ms":0}},{"move":"a4a5","side":0,'
    b'"elapsed_ms":1.0,"clock_ms":990.0}]}'
)
"""A journal line as commit fa60f72 wrote it (``encode_record`` of the record below)."""


def test_an_old_journal_line_decodes_to_the_same_values_and_back_to_the_same_bytes() -> None:
    record = decode_record(OLD_LINE)
    assert record == GameRecord(
        game="jungle", p1="alpha", p2="beta", result="1-0",
        termination=Termination.TIME_FORFEIT, reason="p2 (beta): lost on time", winner=0,
        id="r1-g7", moves=[
            MoveRecord(move="a3a4", side=0, elapsed_ms=12.5, clock_ms=987.5,
                       info=SearchInfo(depth=7, seldepth=11, score_cp=-35, nodes=123456,
                                       nps=98765, time_ms=125, pv=["a3a4", "g7g6"], pv_more=3,
                                       string="thinking")),
            MoveRecord(move="g7g6", side=1, elapsed_ms=3.0, clock_ms=997.0,
                       info=SearchInfo(score_mate=-2, time_ms=0)),
            MoveRecord(move="a4a5", side=0, elapsed_ms=1.0, clock_ms=990.0),
        ])
    first = record.moves[0].info
    assert type(first) is SearchInfo  # the record's own type, not the tagged wire message
    assert encode_record(record) == OLD_LINE


def test_the_wire_word_time_is_the_records_time_ms() -> None:
    info = parse_reply("info depth 7 score cp -35 nodes 123456 time 125 pv a3a4 g7g6")
    assert isinstance(info, Info) and info.time_ms == 125
    recorded = _info_record(info)
    assert recorded == SearchInfo(depth=7, score_cp=-35, nodes=123456, time_ms=125,
                                  pv=["a3a4", "g7g6"])
    assert type(recorded) is SearchInfo
    assert b'"time_ms":125' in encode_record(GameRecord(
        game="jungle", p1="a", p2="b", result="*", termination=Termination.INTERRUPT,
        reason="", moves=[MoveRecord(move="a3a4", side=0, elapsed_ms=1.0, info=recorded)]))
