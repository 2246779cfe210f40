"""Authors serve themselves, on a real ``arena serve LEAGUE --submissions``, in headless
Chromium and over plain HTTP, with real sandboxed builds, real nights and a real webhook
listener on 127.0.0.1:

- a C bot whose build fails is rejected with the compiler's first ``error:`` line on the card,
  and nothing on the page names a path of the server (the league, its store);
- a good bot is accepted, and the line under the form says so (not "queued");
- the same content as another author's stored version is accepted with a notice naming it;
- the author retires her version with its button; another author's retire gets 403;
- the rejected submission used no version number;
- after two nights the webhook got one JSON message per night, and the author's Atom feed lists
  the nights' results;
- ``/bots/NAME`` is public and links to no log and no source, and no log or source is reached
  through it.
"""

from __future__ import annotations

import http.server
import json
import re
import shutil
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
import pytest
from test_bounded_input import request
from test_league_submissions import (
    arena,
    bearer,
    bot_folder,
    make_league,
    server,
    zipped,
)
from test_live_browser import wait_until
from test_report_browser import browser, needs_chromium

from arena.league.authors import add_author
from arena.league.webhook import NightClosed
from arena.leaguedir.versions import read_versions

pytestmark = pytest.mark.slow

BROKEN_C = "int main(void) {\n    return undeclared_thing;\n}\n"


@contextmanager
def listener() -> Iterator[tuple[str, list[bytes]]]:
    """A webhook receiver on 127.0.0.1 (its URL, and the bodies it received)."""
    received: list[bytes] = []

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/hook", received
    finally:
        httpd.shutdown()
        httpd.server_close()


def submit_in_browser(page, archive: Path, bot: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Upload ``archive`` as ``bot`` with the page's form; the finished row (stage, label,
    reason) and the line under the form, once it tells the end."""
    page.set_file_input("#bot-file", [str(archive)])
    page.js("delete document.getElementById('submit-message').dataset.stage;"
            f"document.getElementById('bot-name').value = {json.dumps(bot)};"
            "document.getElementById('submit-button').click()")
    wait_until(page, "['accepted', 'rejected', 'failed'].includes(document.getElementById("
               "'submit-message').dataset.stage)", 240)
    return list(page.js(
        "(() => { const tr = document.querySelector('#jobs tr[data-job]');"
        " return [tr.dataset.stage, tr.children[3].textContent,"
        " tr.querySelector('td.reason').textContent,"
        " document.getElementById('submit-message').textContent]; })()"))


@needs_chromium
@pytest.mark.needs("gcc")
def test_an_author_serves_herself_and_is_told_of_each_night(tmp_path: Path) -> None:
    with listener() as (hook, received):
        league = make_league(tmp_path / "league", f'webhook = "{hook}"\n')
        ada, bob = add_author(league, "ada"), add_author(league, "bob")
        house_folder = bot_folder(tmp_path / "house", build=None, seed=7)
        house = arena("league", "submit", str(league.root), "house", str(house_folder),
                      "--author", "bob")
        assert house.returncode == 0, house.stdout + house.stderr

        broken = tmp_path / "cbot"
        broken.mkdir()
        (broken / "bot.c").write_text(BROKEN_C)
        (broken / "bot.toml").write_text('build = ["cc", "-o", "bot", "bot.c"]\n'
                                         'cmd = ["./bot"]\n')
        copy = tmp_path / "copy"
        shutil.copytree(house_folder, copy)  # bob's bot, byte for byte
        archives = {"cbot": zipped(broken, tmp_path / "cbot.zip"),
                    "adabot": zipped(bot_folder(tmp_path / "adabot"), tmp_path / "adabot.zip"),
                    "adacopy": zipped(copy, tmp_path / "adacopy.zip")}
        with server(league, tmp_path / "serve.log") as url, browser() as page:
            page.open(url + "login")
            page.js(f"document.getElementById('token').value = {json.dumps(ada)};"
                    "document.getElementById('login-button').click()")
            wait_until(page, "location.pathname === '/authors/ada' && !!document.body && "
                       "document.body.getAttribute('data-ready') === '1'", 30)

            stage, label, reason, told = submit_in_browser(page, archives["cbot"], "cbot")
            assert (stage, label) == ("rejected", "cbot#1"), (stage, label, reason)
            assert reason.startswith("build: build exited with status 1"), reason
            assert re.search(r"bot\.c:2:\d+: error: .undeclared_thing. undeclared", reason), \
                reason  # the compiler's first error (its quotes depend on the locale)
            assert "bot.c:2:" in reason and reason.endswith("; see build.log"), reason
            assert "rejected at build" in told, told
            # The card wraps the reason instead of widening the table.
            assert page.js("getComputedStyle(document.querySelector('#jobs td.reason'))"
                           ".whiteSpace") == "normal"

            stage, label, reason, told = submit_in_browser(page, archives["adabot"], "adabot")
            assert (stage, label) == ("accepted", "adabot@1"), (stage, reason)
            assert told == "adabot (adabot.zip): accepted as adabot@1", told

            stage, label, reason, told = submit_in_browser(page, archives["adacopy"],
                                                           "adacopy")
            assert (stage, label, reason) == ("accepted", "adacopy@1",
                                              "same content as house@1"), reason
            assert "(same content as house@1)" in told

            # Nothing on her page names a path of the server, not even the build's log.
            wait_until(page, "!!document.querySelector('[data-bot=\"adacopy\"]')", 30)
            text = page.js("document.body.innerText")
            for secret in (str(league.root), "store/", ".incoming-"):
                assert secret not in text, secret
            log = page.js("fetch(document.querySelector('[data-bot=\"cbot\"] a.log').href)"
                          ".then(r => r.text())")
            assert re.search(r"error: .undeclared_thing. undeclared", log), log
            assert str(league.root) not in log and "store/" not in log, log
            page.screenshot(tmp_path / "author.png", full=True)

            # The rejected submission took no number; the accepted versions did.
            labels = [v.label for v in read_versions(league)]
            assert labels == ["adabot@1", "adacopy@1", "cbot#1", "house@1"], labels

            for _ in range(2):
                night = arena("league", "run", str(league.root), "--games", "4", "--plain",
                              "--no-report")
                assert night.returncode == 0, night.stdout + night.stderr
            nights = league.night_names()
            assert len(nights) == 2

            # Bob may not retire her version, through his page or hers.
            for path in ("/authors/bob/retire?version=adabot@1",
                         "/authors/ada/retire?version=adabot@1"):
                status, body = request(url, "POST", path, bearer(bob))
                assert status == 403, (path, status, body)
            status, body = request(url, "POST", "/authors/bob/retire?version=house@1",
                                   bearer(bob))
            assert (status, json.loads(body)) == (200, {"retired": ["house@1"]})

            # She retires hers with the button.
            page.open(url + "authors/ada")
            page.js("document.querySelector('[data-bot=\"adabot\"] tr[data-version="
                    "\"adabot@1\"] button.retire').click()")
            wait_until(page, "(document.querySelector('[data-bot=\"adabot\"] tr[data-version="
                       "\"adabot@1\"] td.state') || {}).textContent === 'retired'", 30)
            assert page.errors == []
        states = {v.label: v.state for v in read_versions(league)}
        assert states == {"adabot@1": "retired", "adacopy@1": "active", "cbot#1": "rejected",
                          "house@1": "retired"}

        # One JSON message per night, in order, each with the versions' nights.
        assert len(received) == 2, received
        messages = [msgspec.json.decode(body, type=NightClosed) for body in received]
        assert [m.digest.night for m in messages] == nights
        for m in messages:
            rows = {row.version: row for row in m.digest.versions}
            assert set(rows) == {"adabot@1", "adacopy@1", "house@1"}
            assert sum(row.games for row in rows.values()) == 2 * m.digest.games
            assert rows["adabot@1"].author == "ada"
            assert all(row.wins + row.draws + row.losses == row.games for row in rows.values())

        # Her feed lists both nights' results (no token needed: nothing private in it).
        with server(league, tmp_path / "serve2.log") as url:
            status, body = request(url, "GET", "/feeds/ada.atom")
            assert status == 200, body
            atom = "{http://www.w3.org/2005/Atom}"
            feed = ET.fromstring(body)
            entries = feed.findall(f"{atom}entry")
            assert [e.findtext(f"{atom}id", "").rsplit(":", 1)[-1] for e in entries] == \
                list(reversed(nights))
            content = entries[0].findtext(f"{atom}content", "")
            last = {row.version: row for row in messages[-1].digest.versions}
            row = last["adabot@1"]
            assert (f"adabot@1: {row.games} games ({row.wins} won, {row.draws} drawn, "
                    f"{row.losses} lost)") in content, content
            assert "house@1" not in content  # bob's bot is in bob's feed
            assert request(url, "GET", "/feeds/nobody.atom")[0] == 404
            for path in ("/feeds/..%2fauthors.atom", "/feeds/..%2f..%2fleague.toml.atom",
                         "/feeds/%2e%2e.atom"):
                status, body = request(url, "GET", path)
                assert status == 404 and b"token" not in body, (path, status, body[:200])

            # The public page of her bot: versions, history, results, games; no log, no source.
            status, body = request(url, "GET", "/bots/adabot")
            assert status == 200, body
            html = body.decode()
            assert 'data-version="adabot@1"' in html and "retired" in html
            assert "/league/nights/" in html and 'class="view"' in html
            for private in ("/authors/", "build.log", "check.log", "stderr", "transcript",
                            "store/", str(league.root), "bot.py"):
                assert private not in html, private
            assert request(url, "GET", "/bots/cbot")[0] == 404  # a rejected submission
            for path in ("/bots/adabot/../../store", "/bots/..%2fstore", "/bots/adabot/1",
                         "/bots/adabot%2f..%2f..%2fbots%2fadabot%2f1%2fcheck.log",
                         "/bots/..%2f..%2fleague.toml"):
                status, body = request(url, "GET", path)
                assert status == 404 and b"cmd" not in body and b"[arena]" not in body, \
                    (path, status, body[:200])


def test_a_webhook_that_is_down_costs_the_night_a_warning_only(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    league = make_league(tmp_path / "league", f'webhook = "http://127.0.0.1:{port}/hook"\n')
    for name, seed in (("one", 1), ("two", 2)):
        done = arena("league", "submit", str(league.root), name,
                     str(bot_folder(tmp_path / name, build=None, seed=seed)))
        assert done.returncode == 0, done.stdout + done.stderr
    night = arena("league", "run", str(league.root), "--games", "2", "--plain", "--no-report")
    assert night.returncode == 0, night.stdout + night.stderr
    out = night.stdout + night.stderr
    assert f"webhook http://127.0.0.1:{port}/hook: night {league.night_names()[0]} not " \
        "delivered" in out, out
    assert league.tally(league.night_names()[0]).is_file()  # the night is closed all the same
