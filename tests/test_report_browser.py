"""The report in a real browser: headless Chromium over the DevTools protocol (CDP).

Opens ``report.html`` from ``file://``, fails on any console error, uncaught exception or
failed load, steps through games with the viewer's buttons and arrow keys, checks the drawn
board against the rules' own pictures, and saves a screenshot next to the report.

Run by hand to look at a report: ``python tests/test_report_browser.py [--full] RUN_DIR
[OUT.png] [GAME_KEY [PLY]]`` (``--full``: the whole page, not just the window).
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import system_packages

# A headless Chromium over a report of every game. Under xdist one worker runs the whole module
# (tests/conftest.py: SHARED_SETUP), so the module's reports are built once.
pytestmark = pytest.mark.slow

CHROMIUM = Path(system_packages.CHROMIUM)
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--remote-debugging-port=0", "--window-size=1280,1000", "--hide-scrollbars",
]
TIMEOUT = 30.0


class Page:
    """One browser tab driven over CDP; collects every console error it sees."""

    def __init__(self, ws_url: str) -> None:
        import websocket  # test dependency (websocket-client)

        self.ws = websocket.create_connection(ws_url, timeout=TIMEOUT, suppress_origin=True)
        self.next_id = 0
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")

    def _note(self, message: dict[str, Any]) -> None:
        method = message.get("method", "")
        params = message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            self.errors.append(f"exception: {text}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.errors.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text')} {entry.get('url', '')}")
        self.events.append(message)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            if message.get("id") == mine:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self._note(message)
        raise TimeoutError(f"no answer to {method}")

    def set_file_input(self, selector: str, files: list[str]) -> None:
        """Give the file input ``selector`` these files. The node is looked up again when the
        document was replaced between the two calls (a page that redirects or renders once
        more after its ready mark: DevTools then forgets the old document's node ids, "Could
        not find node with given id", seen with 8 busy loops on 2 cores)."""
        for attempt in range(10):
            try:
                root = self.call("DOM.getDocument")["root"]["nodeId"]
                node = self.call("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
                self.call("DOM.setFileInputFiles", nodeId=node, files=files)
                return
            except RuntimeError as error:
                if "Could not find node" not in str(error) or attempt == 9:
                    raise
                time.sleep(0.5)

    def wait_event(self, method: str) -> None:
        if any(e.get("method") == method for e in self.events):
            return
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            self._note(message)
            if message.get("method") == method:
                return
        raise TimeoutError(f"no {method} event")

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str) -> Any:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"never true: {expression}; the page: {self.state()}")

    def state(self) -> str:
        """Where the tab is and what it saw: for a failure's message."""
        try:
            where = self.js(
                "JSON.stringify([location.href, document.readyState,"
                " (performance.getEntriesByType('navigation')[0] || {}).responseStatus,"
                " document.documentElement.outerHTML.length,"
                " (document.body ? document.body.innerText : '').slice(0, 200)])")
        except (RuntimeError, TimeoutError) as exc:
            where = f"(no answer: {exc})"
        return f"{where}, errors {self.errors}"

    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")
        self.wait_for("document.body && document.body.getAttribute('data-ready') === '1'")

    def key(self, key: str) -> None:
        codes = {"ArrowRight": 39, "ArrowLeft": 37, "ArrowDown": 40, "ArrowUp": 38,
                 "End": 35, "Home": 36, "Escape": 27}
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                      windowsVirtualKeyCode=codes[key])

    def screenshot(self, path: Path, full: bool = False) -> Path:
        """The viewport, or with ``full`` the whole page's height."""
        params: dict[str, Any] = {"format": "png"}
        if full:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                              "scale": 1}
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path


@contextmanager
def browser() -> Iterator[Page]:
    """A headless Chromium with one blank tab; always killed and reaped afterwards."""
    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    proc = subprocess.Popen(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stderr is not None
        port = None
        deadline = time.monotonic() + TIMEOUT
        while port is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"chromium exited with status {proc.returncode}")
            match = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if match:
                port = int(match.group(1))
        if port is None:
            raise TimeoutError("chromium never printed its DevTools address")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=TIMEOUT) as r:
            targets = json.load(r)
        tab = next(t for t in targets if t.get("type") == "page")
        page = Page(tab["webSocketDebuggerUrl"])
        try:
            yield page
        finally:
            page.ws.close()
    finally:
        proc.kill()
        proc.wait(timeout=TIMEOUT)
        if proc.stderr:
            proc.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)


def pieces_on_board(page: Page) -> int:
    return int(page.js("document.querySelectorAll('#board g.piece').length"))


# ----- tests -----------------------------------------------------------------------------

needs_chromium = pytest.mark.needs("chromium")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from bench.synthetic import round_robin, write_journal
    from reports.html import build_report

    out = {}
    for game, options, max_plies in (("draughts", None, 120), ("dvonn", None, 200),
                                     ("jungle", None, 80), ("dobutsu", None, 80),
                                     ("donkan", {"target": "2"}, 300)):
        run = tmp_path_factory.mktemp(game)
        write_journal(run, round_robin(game, games_per_pairing=2, seed=11, options=options,
                                       max_plies=max_plies))
        build_report(run)
        out[game] = run
    return out


@needs_chromium
def test_page_has_no_console_errors_and_viewer_steps(reports: dict[str, Path]) -> None:
    from reports.journal_summary import read_record, summarise_journal
    from reports.replay import replay

    with browser() as page:
        for game, run in reports.items():
            page.open((run / "report.html").as_uri())
            rows = page.js("ARENA.index.rows.length")
            journal = summarise_journal(run)
            assert rows == len(journal.games)
            assert page.js("document.querySelectorAll('#game-table tbody tr').length") == rows
            summary = max(journal.games, key=lambda g: g.plies)
            views = replay(read_record(journal, summary), keep_views=True).views
            page.js(f"openGame({json.dumps(summary.key)}, 0)")
            page.wait_for("ARENA.positions !== null && ARENA.game !== null")
            assert page.js("ARENA.ply") == 0
            expected = [sum(1 for c in v.cells if c.piece) for v in views]
            assert pieces_on_board(page) == expected[0] + sum(len(h) for h in views[0].hands)
            for ply in range(1, 6):
                page.key("ArrowRight")
                assert page.js("ARENA.ply") == ply
                hands = sum(len(h) for h in views[ply].hands)
                assert pieces_on_board(page) == expected[ply] + hands, (game, ply)
            page.js("document.getElementById('v-prev').click()")
            assert page.js("ARENA.ply") == 4
            page.key("End")
            last = len(views) - 1
            assert page.js("ARENA.ply") == last
            assert page.js("document.getElementById('v-ply').textContent") == (
                f"ply {last} / {last}"
            )
            assert pieces_on_board(page) == expected[last] + sum(len(h) for h in views[-1].hands)
            rows_text = page.js("document.querySelectorAll('#v-moves tbody tr').length")
            assert rows_text == last
            page.screenshot(run / f"report-{game}.png")
            assert (run / f"report-{game}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            page.key("Escape")
            assert page.js("document.getElementById('viewer').classList.contains('open')") is False
        assert page.errors == []


@needs_chromium
def test_hash_opens_game_at_ply_and_filters_work(reports: dict[str, Path]) -> None:
    from reports.journal_summary import summarise_journal

    run = reports["draughts"]
    journal = summarise_journal(run)
    target = journal.games[3]
    with browser() as page:
        page.open(f"{(run / 'report.html').as_uri()}#game={target.key}&ply=5")
        page.wait_for("ARENA.game !== null && ARENA.ply === 5")
        assert page.js("document.getElementById('v-title').textContent") == target.id
        page.key("Escape")
        bot = journal.bots[0]
        page.js(f"document.getElementById('f-bot').value = {json.dumps(bot)};"
                "document.getElementById('f-bot').dispatchEvent(new Event('change'))")
        shown = page.js("document.querySelectorAll('#game-table tbody tr').length")
        assert shown == sum(1 for g in journal.games if bot in (g.p1, g.p2))
        page.js("document.getElementById('f-result').value = 'lost';"
                "document.getElementById('f-result').dispatchEvent(new Event('change'))")
        lost = sum(1 for g in journal.games
                   if (g.p1 == bot and g.result == "0-1") or (g.p2 == bot and g.result == "1-0"))
        assert page.js("document.querySelectorAll('#game-table tbody tr').length") == lost
        assert page.errors == []


def main(argv: list[str]) -> int:
    """Screenshot a report: [--full] RUN_DIR [OUT.png] [GAME_KEY [PLY]]."""
    full = "--full" in argv
    argv = [a for a in argv if a != "--full"]
    run = Path(argv[0]).resolve()
    out = Path(argv[1]) if len(argv) > 1 else run / "report-screenshot.png"
    url = (run / "report.html").as_uri()
    if len(argv) > 2:
        url += f"#game={argv[2]}&ply={argv[3] if len(argv) > 3 else 0}"
    with browser() as page:
        page.open(url)
        if len(argv) > 2:
            page.wait_for("ARENA.game !== null")
        page.screenshot(out, full=full)
        for error in page.errors:
            print(f"console error: {error}", file=sys.stderr)
        print(out)
        return 1 if page.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


@needs_chromium
def test_empty_report_and_missing_viewer_file_are_handled(tmp_path: Path,
                                                          reports: dict[str, Path]) -> None:
    from reports.html import build_report

    (tmp_path / "games.jsonl").touch()
    build_report(tmp_path)
    with browser() as page:
        page.open((tmp_path / "report.html").as_uri())
        assert page.js("document.getElementById('page-info').textContent").startswith("0 of 0")
        assert page.errors == []
        # A viewer file deleted behind the report's back: a message, not a dead viewer.
        run = reports["dobutsu"]
        victim = next((run / "report" / "games").iterdir())
        key = victim.name.split(".")[0]
        saved = victim.read_bytes()
        victim.unlink()
        try:
            page.open(f"{(run / 'report.html').as_uri()}#game={key}&ply=1")
            page.wait_for("document.getElementById('v-error').textContent !== ''")
            assert "could not load" in page.js("document.getElementById('v-error').textContent")
            page.errors = [e for e in page.errors if victim.name not in e]
            assert page.errors == []
        finally:
            victim.write_bytes(saved)
