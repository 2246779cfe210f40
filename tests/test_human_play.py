"""A person against a bot: in the terminal (``arena play --p1 human``) and in the browser
(``arena serve --play``, headless Chromium clicking like a person: real mouse events on the
board's cells, hand pieces and buttons). Games are played to the end through the real referee
and clocks; the moves a "person" picks come from the page's own click map, at random."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_live_browser import served_url, started, wait_until
from test_report_browser import browser, needs_chromium
from trio.testing import MockClock

from referee.games import get_game
from referee.record import decode_record

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "sample_bots" / "random_bot.py"
SCREENS = __import__("os").environ.get("ARENA_SCREENS")


@pytest.mark.slow
def test_terminal_seat_reprompts_and_plays_to_the_end(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "play", "dobutsu", "--p1", "human", "--p2",
         f"{sys.executable} {BOT} --seed 4", "--tc", "120+1", "--max-plies", "60",
         "--out", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    rng = random.Random(2)
    seen = ""
    first = True
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        chunk = proc.stdout.readline()
        if not chunk:
            break
        seen += chunk
        if "Score of" in chunk:
            break
        if "legal moves (" in chunk:
            legal = chunk.split(":", 1)[1].split()
            if first:
                proc.stdin.write("no-such-move\n")
                first = False
            proc.stdin.write(rng.choice(legal) + "\n")
            proc.stdin.flush()
    proc.stdin.close()
    proc.wait(timeout=30)
    assert "clocks: p1 " in seen and "legal moves (4): b1c2 b1a2 c1c2 b2b3" in seen
    assert "not accepted: 'no-such-move'" in seen
    assert "Result: human vs random_bot:" in seen, seen[-2000:]
    record = decode_record((tmp_path / "games.jsonl").read_text().splitlines()[0])
    assert record.p1 == "human" and record.termination != "crash"
    board = get_game("dobutsu").new(None)
    for move in record.moves:
        board.play(move.move)  # every move, the person's too, was legal


def click_element(page, selector: str) -> None:  # type: ignore[no-untyped-def]
    """A real mouse click (pressed and released) at the centre of the element."""
    box = page.js(
        f"(function(){{var r=document.querySelector({json.dumps(selector)})"
        ".getBoundingClientRect();return [r.left+r.width/2, r.top+r.height/2];})()")
    for kind in ("mousePressed", "mouseReleased"):
        page.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left",
                  clickCount=1)


def cell_selector(doc: dict, index: int) -> str:  # type: ignore[type-arg]
    x, y = doc["cells"][index][:2]
    return f'#board rect.hit[data-cell="{x},{y}"]'


def play_one_game(page, rng: random.Random, prefer: str,  # type: ignore[no-untyped-def]
                  shot: Path | None = None) -> dict[str, int]:
    """Click through one game; returns the kinds of moves clicked. After the first click of a
    piece, its legal targets (and only they) must be marked; ``shot`` gets a screenshot then."""
    kinds = {"from-to": 0, "drop": 0, "placement": 0, "button": 0}
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        turn = wait_until(page, "document.body.getAttribute('data-turn') !== 'bot' && "
                                "document.body.getAttribute('data-turn')", timeout=60)
        if turn == "over":
            return kinds
        version = page.js("PLAY.snap.version")
        snap = page.js("PLAY.snap")
        options = snap["turn"]["clicks"]
        preferred = [c for c in options if (prefer == "drop" and c["hand"]) or
                     (prefer == "placement" and c["from"] is None and c["hand"] is None
                      and c["to"] is not None)]
        choice = rng.choice(preferred or options)
        doc = snap["doc"]
        if choice["hand"] is not None:
            side, k = choice["hand"]
            click_element(page, f'#board rect.hand-hit[data-hand^="{side},{k},"]')
            click_element(page, cell_selector(doc, choice["to"]))
            kinds["drop"] += 1
        elif choice["from"] is not None:
            click_element(page, cell_selector(doc, choice["from"]))
            targets = sorted({c["to"] for c in options
                              if c["from"] == choice["from"] and c["hand"] is None})
            shown = page.js("Array.prototype.map.call(document.querySelectorAll("
                            "'#board rect.hit.target'), function (r) {"
                            "return r.getAttribute('data-cell'); })")
            expected = [",".join(str(v) for v in doc["cells"][t][:2]) for t in targets]
            assert sorted(shown) == sorted(expected), (choice, shown, expected)
            if shot is not None and kinds["from-to"] == 2:
                page.screenshot(shot, full=True)
            click_element(page, cell_selector(doc, choice["to"]))
            kinds["from-to"] += 1
        elif choice["to"] is not None:
            click_element(page, cell_selector(doc, choice["to"]))
            kinds["placement"] += 1
        else:
            click_element(page, f'#choices button[data-move="{choice["move"]}"]')
            kinds["button"] += 1
        # Several moves may share a click (a promotion, two capture paths): pick by button.
        button = f'#choices button[data-move="{choice["move"]}"]'
        if page.js(f"document.querySelector({json.dumps(button)}) !== null && "
                   f"PLAY.snap.version === {version}"):
            click_element(page, button)
        wait_until(page, f"PLAY.snap.version > {version}", timeout=30)
    raise TimeoutError("the game did not end")


@needs_chromium
@pytest.mark.slow
@pytest.mark.parametrize(("game", "prefer", "kind", "options"), [
    ("dobutsu", "drop", "drop", []),
    ("dvonn", "placement", "placement", []),
    ("donkan", "", "from-to", ["--option", "target=1"]),
])
def test_a_human_plays_whole_games_in_the_browser_by_clicking(
        tmp_path: Path, game: str, prefer: str, kind: str, options: list[str]) -> None:
    out = tmp_path / "games"
    argv = [sys.executable, "-m", "arena.cli", "serve", "--play", game, *options, "--bot",
            f"{sys.executable} {BOT} --seed 7", "--tc", "600+5", "--port", "0",
            "--out", str(out)]
    with started(argv, tmp_path / "serve.log") as server:
        url = served_url(tmp_path / "serve.log", server)
        with browser() as page:
            page.open(url)
            rng = random.Random(11)
            kinds = play_one_game(page, rng, prefer)
            assert page.js("document.getElementById('status').textContent").startswith(
                "Game over")
            shot = page.screenshot(tmp_path / f"human-{game}.png", full=True)
            if game == "donkan":  # the partie score is on the page
                assert "(target 1)" in page.js("document.getElementById('caption').textContent")
                assert "partie won by" in page.js(
                    "document.getElementById('messages').textContent")
            # A second game, colours swapped: the bot moves first now.
            click_element(page, "#new-game")
            wait_until(page, "document.body.getAttribute('data-number') === '2'")
            more = play_one_game(page, rng, prefer, shot=tmp_path / f"human-{game}-select.png")
            assert page.errors == [], page.errors
    assert kinds[kind] + more[kind] > 0, (kinds, more)
    records = [decode_record(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [r.p1 for r in records] == ["you", "random_bot"]
    for record in records:
        assert record.result in ("1-0", "0-1", "1/2-1/2"), record.reason
        assert not re.search(r"time|crash|illegal", str(record.termination)), record.reason
        board = get_game(game).new(None)
        for move in record.moves:
            board.play(move.move)
    if SCREENS:
        Path(SCREENS).mkdir(parents=True, exist_ok=True)
        (Path(SCREENS) / f"human-{game}.png").write_bytes(shot.read_bytes())
        select = tmp_path / f"human-{game}-select.png"
        if select.exists():
            (Path(SCREENS) / select.name).write_bytes(select.read_bytes())


@pytest.mark.parametrize("game", ["draughts", "jungle", "dobutsu", "dvonn", "donkan"])
def test_every_legal_move_can_be_clicked(game: str) -> None:
    from arena.web.humanplay import click_map

    board = get_game(game).new(None, (), **({"target": 2} if game == "donkan" else {}))
    rng = random.Random(5)
    for _ in range(150):
        if board.outcome() is not None:
            break
        legal = board.legal_moves()
        clicks = click_map(board, legal)
        assert [c["move"] for c in clicks] == legal
        for c in clicks:
            # A target to click (after a piece or a hand piece, or alone for a placement),
            # or, with no cell at all, a button.
            assert c["to"] is not None or (c["from"] is None and c["hand"] is None), c
        board.play(rng.choice(legal))


async def test_a_human_who_does_not_answer_loses_on_time(autojump_clock: MockClock) -> None:
    """The human seat's clock is the referee's: a scripted bot, the autojump clock."""
    import trio
    from scripted import open_scripted, play_on_scripted, random_bot

    from protocol.messages import GameOver
    from referee.human import HumanSeat, human_spec

    class Silent:
        asked = 0
        over: list[GameOver] = []

        async def ask(self, turn, seconds_left, problem):  # type: ignore[no-untyped-def]
            self.asked += 1
            await trio.sleep_forever()

        def tell(self, text: str) -> None:
            pass

        def game_over(self, message: GameOver) -> None:
            self.over.append(message)

        def partie(self, message) -> None:  # type: ignore[no-untyped-def]
            pass

    front = Silent()
    seat = HumanSeat(human_spec("you"), front)
    bot = await open_scripted(random_bot("rnd", 1))
    try:
        with trio.fail_after(30):
            record = await play_on_scripted("dobutsu", (bot, seat), tc="0.5+0")
    finally:
        await bot.aclose()
    assert record.termination == "time-forfeit" and record.winner == 0, record.reason
    assert front.asked == 1 and front.over and front.over[0].result == "1-0"
