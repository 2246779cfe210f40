"""The human seat in the browser (``arena serve --play``), in headless Chromium: the clocks start
when the page is there and the side to move's clock runs on screen; help, a draw offer and
resigning from the page's buttons; a game in progress when the server stops is written to
``--out`` as unfinished (``*``) with its moves."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest
from test_live_browser import served_url, started, wait_until
from test_report_browser import browser, needs_chromium

from referee.record import Termination, decode_record

pytestmark = [needs_chromium, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "sample_bots" / "random_bot.py"


def seconds(page, side: int) -> float:  # type: ignore[no-untyped-def]
    """What clock ``side`` shows, in seconds ("p1 you: 4:59.3" -> 299.3)."""
    text = page.js(f"document.getElementById('clock{side}').textContent")
    match = re.search(r"(?:(\d+):)?(\d+\.\d) ?s?$", text)
    assert match, text
    return int(match.group(1) or 0) * 60 + float(match.group(2))


def shows(page, side: int, at_most: float, timeout: float = 30.0) -> float:  # type: ignore[no-untyped-def]
    """Wait until clock ``side`` shows ``at_most`` seconds or less (it runs on screen);
    returns what it shows then."""
    deadline = time.monotonic() + timeout
    while (shown := seconds(page, side)) > at_most:
        assert time.monotonic() < deadline, f"clock {side} stays at {shown} s"
        time.sleep(0.05)
    return shown


def running(page) -> int | None:  # type: ignore[no-untyped-def]
    """The side whose clock the page shows running (class ``turn``)."""
    for side in (0, 1):
        if "turn" in page.js(f"document.getElementById('clock{side}').className"):
            return side
    return None


def serve(tmp_path: Path, human: str, delay: float) -> list[str]:
    return [sys.executable, "-m", "arena.cli", "serve", "--play", "dobutsu", "--bot",
            f"{sys.executable} {BOT} --seed 3 --delay {delay}", "--tc", "300+0", "--human",
            human, "--port", "0", "--out", str(tmp_path / "out")]


def records(tmp_path: Path) -> list:  # type: ignore[type-arg]
    return [decode_record(line)
            for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]


def test_clocks_start_with_the_page_and_run_for_the_side_to_move(tmp_path: Path) -> None:
    """The bot moves first and thinks 6 s a move; its clock starts when the page connects,
    not with the server (the snapshot says since when it runs: after the page was opened)."""
    log = tmp_path / "serve.log"
    with started(serve(tmp_path, "p2", 6.0), log) as server:
        url = served_url(log, server)
        assert (tmp_path / "out").is_dir()  # --out exists from the start
        with browser() as page:
            opened = time.time()  # the server has been up a while: nobody was there
            page.open(url)
            wait_until(page, "document.body.getAttribute('data-ready') === '1'")
            # The bot's turn began when the page connected: nothing played yet, its clock
            # full but for a second or two, and running down on screen; ours waits at 5:00.
            assert page.js("PLAY.snap.doc.moves.length") == 0
            assert page.js("document.body.getAttribute('data-turn')") == "bot"
            assert page.js("PLAY.snap.running.since") >= opened
            first = seconds(page, 0)
            assert 296.0 <= first <= 300.0, first
            assert running(page) == 0
            shows(page, 0, first - 0.8)
            assert page.js("PLAY.snap.doc.moves.length") == 0
            assert seconds(page, 1) == 300.0
            # Our turn: the bot's clock stops where its move left it, ours runs.
            wait_until(page, "document.body.getAttribute('data-turn') === 'human'", timeout=60)
            bot_left = seconds(page, 0)
            assert 280.0 <= bot_left <= 294.0, bot_left  # 6 s thought, and a little more
            assert running(page) == 1
            ours = seconds(page, 1)
            # help and a draw offer: answered on the page, no move spent, the clock runs on.
            page.js("document.querySelector('#commands button[data-command=help]').click()")
            wait_until(page, "document.getElementById('note').textContent"
                             ".indexOf('legal moves (') >= 0", timeout=30)
            note = page.js("document.getElementById('note').textContent")
            assert "resign" in note and "draw" in note and "clock keeps running" in note
            page.js("document.querySelector('#commands button[data-command=draw]').click()")
            wait_until(page, "document.getElementById('note').textContent"
                             ".indexOf('draw offer declined') >= 0", timeout=30)
            shows(page, 1, ours - 1.0)
            assert page.js("document.body.getAttribute('data-turn')") == "human"
            assert page.js("PLAY.snap.doc.moves.length") == 1
            assert page.js("document.getElementById('problem').textContent") == ""
            assert seconds(page, 0) == bot_left
            # A move, typed; the bot's clock runs again from where it stood.
            move = page.js("PLAY.snap.turn.legal[0]")
            page.js(f"document.getElementById('move-text').value = '{move}';"
                    "document.querySelector('#typed button').click()")
            wait_until(page, "PLAY.snap.doc.moves.length === 2", timeout=30)
            assert running(page) == 0
            shows(page, 0, bot_left - 0.8)
            assert page.errors == [], page.errors
        # The server stops mid-game: the game is kept, unfinished, with its two moves.
        os.killpg(server.pid, signal.SIGINT)
        assert server.wait(timeout=120) == 0  # stopped, no traceback
    assert ("game 1 stopped after 2 plies (the server was stopped): written unfinished (*)"
            in log.read_text())
    assert "Traceback" not in log.read_text()
    [record] = records(tmp_path)
    assert record.result == "*" and record.termination == Termination.INTERRUPT, record
    assert (record.p1, record.p2) == ("random_bot", "you")
    assert [m.move for m in record.moves][1] == move and record.plies == 2
    assert "server was stopped" in record.reason


def test_resign_from_the_page_at_first_load(tmp_path: Path) -> None:
    """We move first: at the page's first load our clock is full although the server has been
    up a while (it started with the page: the snapshot says it runs since after the page was
    opened), and the resign button ends the game."""
    log = tmp_path / "serve.log"
    with started(serve(tmp_path, "p1", 0.0), log) as server:
        url = served_url(log, server)
        with browser() as page:
            opened = time.time()
            page.open(url)
            wait_until(page, "document.body.getAttribute('data-turn') === 'human'")
            assert page.js("PLAY.snap.running.since") >= opened
            assert seconds(page, 0) >= 297.0
            assert running(page) == 0
            page.js("document.querySelector('#commands button[data-command=resign]').click()")
            wait_until(page, "document.body.getAttribute('data-turn') === 'over'", timeout=30)
            status = page.js("document.getElementById('status').textContent")
            assert status.startswith("Game over: 0-1 (resignation)"), status
            assert running(page) is None
            assert page.js("document.querySelector('#commands button').disabled")
            assert page.errors == [], page.errors
    [record] = records(tmp_path)
    assert (record.result, record.termination, record.plies) == (
        "0-1", Termination.RESIGNATION, 0)
    assert record.reason == "p1 (you): resigned"


INSIDE = """(function (name, cell) {
  var text = Array.prototype.filter.call(document.querySelectorAll('#board text.square-name'),
      function (t) { return t.textContent === name; });
  if (text.length !== 1) return 'square names ' + name + ': ' + text.length;
  var t = text[0].getBoundingClientRect(), c = cell.getBoundingClientRect();
  return t.left >= c.left && t.right <= c.right && t.top >= c.top && t.bottom <= c.bottom
      ? 'inside' : 'outside: ' + JSON.stringify([t, c]);
})"""
"""Whether the board writes square ``name`` once, inside the cell element ``cell``."""

EDGE_LETTERS = ("Array.prototype.filter.call(document.querySelectorAll('#board text'), "
                "function (t) { return /^[a-j]$/.test(t.textContent); }).length")


def test_draughts_square_numbers_in_the_report_viewer(tmp_path: Path) -> None:
    """The viewer writes each square's number on its dark square (32 where the rules put it),
    and no a-j edge letters, which the draughts moves never use."""
    from bench.synthetic import write_journal
    from referee.games import get_game
    from referee.record import GameRecord, MoveRecord
    from reports.html import build_report
    from reports.journal_summary import summarise_journal

    board = get_game("draughts").new(None)
    view = board.board_view()
    cell32 = view.names.index("32")
    x, y = view.cells[cell32].x, view.cells[cell32].y
    assert (x, y) == (3, 3)
    moves = ["32-27", "18-22", "27x18", "12x23"]
    for move in moves:
        board.play(move)
    record = GameRecord(game="draughts", p1="a", p2="b", result="1/2-1/2",
                        termination=Termination.ADJUDICATION, reason="test", id="g1",
                        moves=[MoveRecord(m, i % 2, 10.0) for i, m in enumerate(moves)],
                        plies=len(moves), final_position=board.position())
    write_journal(tmp_path, [record])
    build_report(tmp_path)
    key = summarise_journal(tmp_path).games[0].key
    with browser() as page:
        page.open(f"{(tmp_path / 'report.html').as_uri()}#game={key}&ply=0")
        page.wait_for("ARENA.game !== null && ARENA.positions !== null")
        # the cell of square 32: the board's rects are drawn in the cells' order
        rect = (f"document.querySelectorAll('#board svg > g > rect')[{cell32}]")
        assert page.js(f"{INSIDE}('32', {rect})") == "inside"
        names = page.js("Array.prototype.map.call(document.querySelectorAll("
                        "'#board text.square-name'), function (t) { return t.textContent; })")
        assert sorted(names, key=int) == [str(n) for n in range(1, 51)]
        assert page.js(EDGE_LETTERS) == 0
        # After 32-27 the piece stands on the cell named 27, and 32 is empty.
        page.key("ArrowRight")
        cell27 = view.names.index("27")
        assert page.js("ARENA.positions[1].cells")[cell27][2] == "m"
        assert page.js("ARENA.positions[1].cells")[cell32][2] == ""
        assert page.errors == [], page.errors


def test_draughts_square_numbers_on_the_play_page(tmp_path: Path) -> None:
    """On the play page too, also with the board flipped (square 32 stays on its cell)."""
    log = tmp_path / "serve.log"
    argv = [sys.executable, "-m", "arena.cli", "serve", "--play", "draughts", "--bot",
            f"{sys.executable} {BOT} --seed 3", "--tc", "300+0", "--port", "0"]
    with started(argv, log) as server:
        url = served_url(log, server)
        with browser() as page:
            page.open(url)
            wait_until(page, "document.body.getAttribute('data-turn') === 'human'")
            cell = "document.querySelector('#board rect.hit[data-cell=\"3,3\"]')"
            assert page.js(f"{INSIDE}('32', {cell})") == "inside"
            assert page.js(EDGE_LETTERS) == 0
            page.js("document.getElementById('flip').click()")
            assert page.js(f"{INSIDE}('32', {cell})") == "inside"
            assert page.js(f"{INSIDE}('1', document.querySelector("
                           "'#board rect.hit[data-cell=\"1,9\"]'))") == "inside"
            assert page.errors == [], page.errors
