"""``arena serve`` in a real browser (headless Chromium over CDP, as the report's browser test).

A real tournament (``arena run`` with sample bots that think a little per move) runs while
``arena serve`` follows its directory; the page must show a new finished game and a running
board that changes, without a reload (a marker set on ``window`` at the start survives), with
no console error, and a finished game must open in the report's viewer.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_report_browser import browser, needs_chromium

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "sample_bots" / "random_bot.py"
SCREENS = os.environ.get("ARENA_SCREENS")
"""A directory to keep the screenshots in (they always go to the test's tmp_path too)."""


def config_text(delay: float) -> str:
    bots = "".join(
        f'[[bots]]\nname = "slow{i}"\n'
        f'cmd = ["{{python}}", "{BOT}", "--seed", "{i}", "--delay", "{delay}"]\n\n'
        for i in (1, 2, 3)
    )
    return (
        'game = "dobutsu"\nformat = "round-robin"\ngames_per_pairing = 4\ntc = "60+1"\n'
        "concurrency = 2\nseed = 5\nreport_every = 2\n\n[adjudication]\nmax_plies = 40\n\n" + bots
    )


@contextmanager
def started(argv: list[str], log: Path, *, grace: float = 20.0
            ) -> Iterator[subprocess.Popen[str]]:
    """A child process in its own session, ended (group-wide, by its id) afterwards: Ctrl-C,
    then SIGKILL if it has not exited ``grace`` seconds later."""
    with log.open("w") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=20)


def served_url(log: Path, proc: subprocess.Popen[str]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        match = re.search(r"at (http://\S+/) ", log.read_text())
        if match:
            return match.group(1)
        if proc.poll() is not None:
            raise AssertionError(f"arena serve exited: {log.read_text()}")
        time.sleep(0.1)
    raise TimeoutError(f"arena serve printed no address: {log.read_text()}")


def wait_until(page, expression: str, timeout: float = 90.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = page.js(expression)
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError(f"never true: {expression}")


@needs_chromium
@pytest.mark.slow
def test_live_page_follows_a_running_tournament(tmp_path: Path) -> None:
    config = tmp_path / "live.toml"
    config.write_text(config_text(0.25))
    run_dir = tmp_path / "run"
    arena = [sys.executable, "-m", "arena.cli"]
    # After Ctrl-C the runner finishes its games and builds the final report: on a loaded
    # 2-core machine that took more than 20 s once.
    with started([*arena, "run", str(config), "--output", str(run_dir), "--plain"],
                 tmp_path / "run.log", grace=120) as runner:
        deadline = time.monotonic() + 60
        while not (run_dir / "schedule.json").exists():
            assert time.monotonic() < deadline and runner.poll() is None, "run never started"
            time.sleep(0.1)
        with started([*arena, "serve", str(run_dir), "--port", "0"],
                     tmp_path / "serve.log") as server:
            url = served_url(tmp_path / "serve.log", server)
            with browser() as page:
                page.open(url)
                page.js("window.__noReload = 42")
                # A running board changes as moves are played. Each look at the page is one
                # evaluation of the state it checks: a card read, then read again, may have
                # gone in between (its game finished).
                card, plies = wait_until(
                    page, "(function(){var c=document.querySelector('.board-card[data-plies]');"
                          "return c && [c.getAttribute('data-game'),"
                          " parseInt(c.getAttribute('data-plies'), 10)];})()")
                selector = f".board-card[data-game=\"{card}\"]"
                wait_until(
                    page,
                    f"(function(){{var c=document.querySelector('{selector}');"
                    f"return !c || parseInt(c.getAttribute('data-plies'),10) > {plies};}})()")
                # The boards are drawn (no board shown is fine: between games).
                wait_until(page, "document.querySelectorAll('.board-card').length === 0"
                                 " || document.querySelector('.board-card svg g.piece') !== null")
                # A new finished game appears, and the standings follow.
                before = int(page.js("document.querySelectorAll('#finished-table tbody tr')"
                                     ".length"))
                wait_until(page, "document.querySelectorAll('#finished-table tbody tr').length"
                                 f" > {before}")
                wait_until(page, "document.querySelectorAll('#standings-table tbody tr')"
                                 ".length === 3")
                assert page.js("window.__noReload") == 42, "the page was reloaded"
                shot = page.screenshot(tmp_path / "live.png", full=True)
                # A finished game opens in the report's viewer.
                href = wait_until(page, "(function(){var a=document.querySelector("
                                        "'#finished-table a.view');return a && a.href;})()",
                                  timeout=120)
                assert page.errors == [], page.errors
                page.open(href)
                wait_until(page, "document.getElementById('viewer').classList.contains('open')"
                                 " && document.querySelectorAll('#board g.piece').length > 0")
                assert page.errors == [], page.errors
                if SCREENS:
                    Path(SCREENS).mkdir(parents=True, exist_ok=True)
                    (Path(SCREENS) / "live-page.png").write_bytes(shot.read_bytes())
    assert runner.returncode in (0, 130), (tmp_path / "run.log").read_text()


@needs_chromium
@pytest.mark.slow
def test_live_page_without_javascript_shows_the_running_games_and_standings(
        tmp_path: Path) -> None:
    """The first response carries the run (a plain screenshot, a slow browser, no script):
    with JavaScript disabled in Chromium, the page shows each game in progress (players,
    ply, clocks, the board as the rules draw it), the standings, the crosstable and the
    finished games with a link that exists now (their PGN)."""
    from arena.rundir.live_files import LiveFiles, LiveHeader
    from bench.synthetic import round_robin, write_journal
    from referee.games import get_game

    records = round_robin("dobutsu", games_per_pairing=1, seed=3, max_plies=30)
    run_dir = tmp_path / "run"
    write_journal(run_dir, records[:-1])
    playing = records[-1]
    live = LiveFiles(run_dir)
    on_move = live.start(LiveHeader(
        id="r2-live", game="dobutsu", p1=playing.p1, p2=playing.p2, time_control="60+1"))
    moves = playing.moves[:5]
    for move in moves:
        on_move(move)
    live.flush()
    live.flush()  # the second flush that finds a game running makes its file
    board = get_game("dobutsu").new(None)
    for move in moves:
        board.play(move.move)
    clocks = {move.side: move.clock_ms for move in moves if move.clock_ms is not None}
    assert set(clocks) == {0, 1}  # the simulated bots play on clocks
    bots = sorted({r.p1 for r in records[:-1]} | {r.p2 for r in records[:-1]})
    arena = [sys.executable, "-m", "arena.cli"]
    with started([*arena, "serve", str(run_dir), "--port", "0", "--no-report"],
                 tmp_path / "serve.log") as server:
        url = served_url(tmp_path / "serve.log", server)
        with browser() as page:
            page.call("Emulation.setScriptExecutionDisabled", value=True)
            page.events.clear()
            page.call("Page.navigate", url=url)
            page.wait_event("Page.loadEventFired")
            # All that is read, in one evaluation right after the load (DevTools evaluates
            # with the page's scripts off): the page reloads itself 10 s later.
            seen = page.js(
                "JSON.stringify({live: typeof LIVE, texts: Object.fromEntries(["
                "'.board-card', '.board-card .hint', '.board-card pre.diagram',"
                "'#standings-table tbody tr', '#crosstable-table tbody tr',"
                "'#finished-table tbody tr', '#progress'].map(function (s) {"
                "return [s, Array.prototype.map.call(document.querySelectorAll(s),"
                "function (n) { return n.textContent; })]; }))})")
            found = json.loads(seen)

            def text_of(selector: str) -> list[str]:
                texts: list[str] = found["texts"][selector]
                return texts

            assert found["live"] == "undefined"  # live.js never ran
            cards = text_of(".board-card")
            assert len(cards) == 1, cards
            assert f"r2-live: {playing.p1} vs {playing.p2}" in cards[0]
            hint = text_of(".board-card .hint")[0]
            assert "dobutsu 60+1, ply 5, last move " + moves[-1].move in hint
            for side, ms in clocks.items():
                assert f"p{side + 1} {ms / 1000:.1f} s" in hint
            assert text_of(".board-card pre.diagram") == [board.diagram()]
            standings = text_of("#standings-table tbody tr")
            assert len(standings) == len(bots)
            for bot in bots:
                assert any(bot in row for row in standings), (bot, standings)
            assert len(text_of("#crosstable-table tbody tr")) == len(bots)
            finished = text_of("#finished-table tbody tr")
            assert len(finished) == len(records) - 1
            assert finished[0].startswith("PGN" + records[-2].id)  # newest first
            progress = text_of("#progress")[0]
            assert progress == f"{len(records) - 1} games finished, 1 in progress"
            shot = page.screenshot(tmp_path / "live-no-js.png", full=True)
            assert shot.stat().st_size > 0
        links = re.findall(r'href="(/game/[^"]+\.pgn)"', urllib.request.urlopen(
            url, timeout=30).read().decode())
        assert len(links) == len(records) - 1
        pgn = urllib.request.urlopen(url.rstrip("/") + links[0], timeout=30).read().decode()
        assert f'[GameId "{records[-2].id}"]' in pgn and records[-2].result in pgn
