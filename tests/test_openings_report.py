"""The report's openings table: each side's score per opening, most unbalanced first.

One test counts a journal written here with known results; the others are whole ``arena run``
tournaments from an EPD and a PDN book, whose report must show every book opening played.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from report_html import TableText, html_table

from referee.games import get_game
from referee.record import GameRecord, Termination, decode_record, encode_record
from reports.journal_summary import summarise_journal
from reports.tables import games_frame, openings

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data" / "openings"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"
RUN_TIMEOUT = 300


def record(n: int, result: str, source: str | None, moves: tuple[str, ...] = (),
           start: str = "") -> GameRecord:
    winner = {"1-0": 0, "0-1": 1}.get(result)
    return GameRecord(
        game="draughts", p1="a" if n % 2 else "b", p2="b" if n % 2 else "a", result=result,
        termination=Termination.INTERRUPT if result == "*" else Termination.NORMAL,
        reason="", winner=winner, id=f"g{n}", start_position=start, opening=list(moves),
        tags={"opening": source} if source else {})


BOOK_MOVES = {"book.pgn:1": ("31-26", "16-21"), "book.pgn:5": ("32-28",),
              "book.pgn:9": ("33-29", "18-23", "39-33")}


def test_the_table_counts_a_journal_with_known_results(tmp_path: Path) -> None:
    games = [
        # book.pgn:1: p1 won both games of its pair (and one interrupted game, not counted)
        ("1-0", "book.pgn:1"), ("1-0", "book.pgn:1"), ("*", "book.pgn:1"),
        # book.pgn:5: even, over four games
        ("1-0", "book.pgn:5"), ("0-1", "book.pgn:5"), ("1/2-1/2", "book.pgn:5"),
        ("1/2-1/2", "book.pgn:5"),
        # book.pgn:9: p2 scored 1.5 of 2
        ("0-1", "book.pgn:9"), ("1/2-1/2", "book.pgn:9"),
    ]
    records = [record(i, r, s, moves=BOOK_MOVES[s]) for i, (r, s) in enumerate(games)]
    records.append(record(90, "1/2-1/2", None))  # the start position, no tag
    records.append(record(91, "0-1", None, moves=("32-28", "19-23")))  # moves, no tag
    records.append(record(92, "1-0", None, start="W:W31-50:B1-20"))  # the start, as text
    records.append(record(93, "1-0", None, start="B:W31-50:B1-20"))  # another position
    records.append(record(94, "0-1", "book.epd:3", start="B:W31-50:B1-20"))  # an EPD line
    records.append(record(95, "1-0", "random: 31-27 17-22", moves=("31-27", "17-22")))
    (tmp_path / "games.jsonl").write_bytes(b"".join(encode_record(r) + b"\n" for r in records))

    table = openings(games_frame(summarise_journal(tmp_path)))
    rows = {row["source"] or row["opening"]: row for row in table.to_dict("records")}
    one = rows["book.pgn:1"]
    assert one["opening"] == "31-26 16-21"  # named by its moves, its book line beside them
    assert (one["games"], one["p1 wins"], one["draws"], one["p2 wins"]) == (2, 2, 0, 0)
    assert (one["p1 score"], one["p2 score"], one["imbalance %"], one["favours"]) == \
        (2.0, 0.0, 100.0, "p1")
    # Two wins of two: the Wilson 95% interval is 34.2% to 100% (a published value).
    assert (one["p1 low %"], one["p1 high %"]) == (34.2, 100.0)
    five = rows["book.pgn:5"]
    assert five["opening"] == "32-28"
    assert (five["games"], five["p1 score"], five["p1 score %"], five["imbalance %"],
            five["favours"]) == (4, 2.0, 50.0, 0.0, "")
    assert (five["p1 low %"], five["p1 high %"]) == (15.0, 85.0)  # 2 of 4, draws as halves
    nine = rows["book.pgn:9"]
    assert (nine["games"], nine["p1 score"], nine["p2 score"], nine["p1 score %"],
            nine["imbalance %"], nine["favours"]) == (2, 0.5, 1.5, 25.0, 50.0, "p2")
    assert nine["p1 low %"] < 25.0 < nine["p1 high %"]
    # An EPD book's opening is named by its position; random plies by their moves.
    epd = rows["book.epd:3"]
    assert (epd["opening"], epd["games"], epd["favours"]) == ("B:W31-50:B1-20", 1, "p2")
    assert rows["random"]["opening"] == "31-27 17-22"
    # The standard start, with or without its text written out, is one opening.
    start = rows["start position"]
    assert (start["games"], start["p1 score"], start["imbalance %"]) == (2, 1.5, 50.0)
    assert start["source"] == ""
    assert rows["32-28 19-23"]["favours"] == "p2"
    assert rows["B:W31-50:B1-20"]["games"] == 1
    # Most unbalanced first; at equal imbalance the better-sampled opening, then by source.
    assert [row["source"] or row["opening"] for row in table.to_dict("records")] == [
        "book.pgn:1", "32-28 19-23", "B:W31-50:B1-20", "book.epd:3", "random",
        "start position", "book.pgn:9", "book.pgn:5"]
    assert int(table["games"].sum()) == len(records) - 1  # the interrupted game left out


def test_the_page_shows_the_most_unbalanced_openings_of_a_large_book(tmp_path: Path) -> None:
    from reports.html import OPENINGS_SHOWN, _openings_section

    count = OPENINGS_SHOWN + 50
    # Opening i: p1 wins its first game; its second is a p1 win for the last 10 only.
    records = [record(2 * i + k, "1-0" if k == 0 or i >= count - 10 else "0-1", f"b.pgn:{i}")
               for i in range(count) for k in (0, 1)]
    (tmp_path / "games.jsonl").write_bytes(b"".join(encode_record(r) + b"\n" for r in records))
    table = openings(games_frame(summarise_journal(tmp_path)))
    page = _openings_section(table)
    assert page.count("<tr") == OPENINGS_SHOWN + 1  # the header row and the rows shown
    assert f"The {OPENINGS_SHOWN} most unbalanced of {count} openings" in page
    shown = table["source"].head(10).tolist()
    assert shown == [f"b.pgn:{i}" for i in range(count - 10, count)]
    assert all(f"<td>{name}</td>" in page for name in shown)
    # Two p1 wins of two is no proof of a lopsided opening (34.2% to 100%): nothing in bold.
    assert "<strong>" not in page and "lopsided" not in page.split("<table")[1]


def test_an_opening_lopsided_beyond_its_games_is_marked(tmp_path: Path) -> None:
    from reports.html import _openings_section

    records = [record(i, "1-0", "b.pgn:1", moves=("31-26",)) for i in range(8)]
    records += [record(10 + i, "1-0" if i % 2 else "0-1", "b.pgn:2", moves=("32-28",))
                for i in range(8)]
    (tmp_path / "games.jsonl").write_bytes(b"".join(encode_record(r) + b"\n" for r in records))
    table = openings(games_frame(summarise_journal(tmp_path)))
    page = _openings_section(table)
    rows = html_table_of(page, "openings-table")
    assert rows[0][:2] == ["opening", "source"]
    assert rows[1][:3] == ["31-26", "b.pgn:1", "8"]
    assert rows[1][rows[0].index("95% interval")] == "67.6–100.0"  # Wilson, 8 of 8
    assert rows[2][:3] == ["32-28", "b.pgn:2", "8"]
    assert page.count('<tr class="lopsided">') == 1
    assert "<strong>100.0</strong>" in page and "<strong>50.0" not in page


def html_table_of(page: str, table_id: str) -> list[list[str]]:
    parser = TableText(table_id)
    parser.feed(page)
    return parser.rows


def arena_run(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out), "-j", "2"],
        capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT)


def write_config(tmp_path: Path, game: str, openings_keys: str) -> Path:
    bots = "".join(
        f'[[bots]]\nname = "r{i}"\ncmd = ["{{python}}", "{RANDOM_BOT}", "--seed", "{i}"]\n'
        for i in range(2))
    path = tmp_path / "t.toml"
    path.write_text(f'game = "{game}"\ntc = "60+1"\ngames_per_pairing = 6\nseed = 7\n'
                    f"[openings]\n{openings_keys}\n[adjudication]\nmax_plies = 40\n\n{bots}")
    return path


@pytest.mark.slow
@pytest.mark.parametrize(("game", "book", "keys", "sources"), [
    ("draughts", "draughts.pdn", 'order = "random"\nplies = 4',
     {"draughts.pdn:1", "draughts.pdn:11", "draughts.pdn:21"}),
    ("jungle", "jungle.epd", "", {"jungle.epd:2", "jungle.epd:3", "jungle.epd:5"}),
])
def test_arena_run_plays_a_book_and_reports_each_opening(
        tmp_path: Path, game: str, book: str, keys: str, sources: set[str]) -> None:
    (tmp_path / book).write_bytes((DATA / book).read_bytes())
    config = write_config(tmp_path, game, f'file = "{book}"\n{keys}')
    out = tmp_path / "out"
    done = arena_run(config, out)
    assert done.returncode == 0, done.stderr
    records = [decode_record(line) for line in (out / "games.jsonl").read_bytes().splitlines()]
    assert len(records) == 6
    assert {r.tags["opening"] for r in records} == sources
    for r in records:
        assert r.opening == [m.move for m in r.moves if m.book]
        if game == "draughts":
            assert len(r.opening) <= 4
    by_source: dict[str, set[tuple[str, str]]] = {}
    for r in records:
        by_source.setdefault(r.tags["opening"], set()).add((r.p1, r.p2))
    assert all(pair == {("r0", "r1"), ("r1", "r0")} for pair in by_source.values())

    context = {row[0]: row[1] for row in html_table(out, "context-table")}
    assert context["openings"].startswith(
        f"file {book} (random order, first 4 plies)" if keys else f"file {book} (sequential")

    rows = html_table(out, "openings-table")
    header, body = rows[0], rows[1:]
    assert header[:6] == ["opening", "source", "games", "p1 wins", "draws", "p2 wins"]
    col = {name: header.index(name) for name in header}
    assert {row[col["source"]] for row in body} == sources
    assert all(row[col["games"]] == "2" for row in body)
    imbalance = [float(row[col["imbalance %"]]) for row in body]
    assert imbalance == sorted(imbalance, reverse=True)
    for row in body:  # named by its moves (an EPD line: its position); scores match the journal
        played = [r for r in records if r.tags["opening"] == row[col["source"]]]
        start, moves = played[0].start_position, " ".join(played[0].opening)
        if start == get_game(game).START_POSITION:
            assert row[col["opening"]] == (moves or "start position")
        else:
            assert row[col["opening"]] == (f"{start}, then {moves}" if moves else start)
        p1 = sum({"1-0": 1.0, "1/2-1/2": 0.5}.get(r.result, 0.0) for r in played)
        assert float(row[col["p1 score"]]) == p1
        assert float(row[col["p1 score"]]) + float(row[col["p2 score"]]) == 2
        low, high = map(float, row[col["95% interval"]].split("–"))
        assert low <= float(row[col["p1 score %"]]) <= high
