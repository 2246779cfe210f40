"""``arena serve LEAGUE_DIR --submissions`` and ``arena league author``: real servers, real
uploads, real child submissions (the sandboxed build and check-bot), real nights, and one
author in a real headless Chromium.

- an author logs in with a token, uploads a zip of the sample bot, watches it be built and
  checked, sees it accepted; after a night it is on the leaderboard and on their page with
  its games, each opening in the night's viewer;
- another author cannot submit to that bot's name nor read its logs (403), and a request
  without a token, with a foreign Origin or over the size limit changes nothing on disk;
- a build that loops is stopped at ``build_seconds``, rejected with its log, while the pages
  still load in under a second;
- a zip bomb (1 GiB unpacked) is refused while the server's memory stays under 200 MB.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_bounded_input import request
from test_live_browser import served_url, started, wait_until
from test_report_browser import browser, needs_chromium

from arena.league.authors import add_author, author_of_token, claim_bot, read_authors
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.versions import Version, read_versions

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]
LEAGUE_TOML = 'game = "dobutsu"\ntc = "2+0.02"\n\n[adjudication]\nmax_plies = 60\n'
COMPILE = '["{python}", "-m", "compileall", "-q", "."]'
"""A real build (it writes ``__pycache__`` in the stored folder), quick."""


# --------------------------------------------------------------------------- helpers
def make_league(root: Path, extra: str = "") -> LeagueDir:
    root.mkdir(parents=True)
    (root / "league.toml").write_text(LEAGUE_TOML + (f"\n[league]\n{extra}" if extra else ""))
    return LeagueDir(root)


def bot_folder(folder: Path, build: str | None = COMPILE, seed: int = 1) -> Path:
    """The random sample bot with the protocol package it imports, started by a ``bot.py``
    that first says hello on stderr (so that nights keep a stderr log of it): the folder an
    author zips."""
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "sample_bots" / "random_bot.py", folder / "random_bot.py")
    (folder / "bot.py").write_text(
        "import runpy, sys\nprint('hello from', sys.argv, file=sys.stderr, flush=True)\n"
        "runpy.run_path('random_bot.py', run_name='__main__')\n")
    shutil.copytree(ROOT / "protocol", folder / "protocol",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text(
        f'cmd = ["{{python}}", "bot.py", "--seed", "{seed}"]\n'
        + (f"build = {build}\n" if build else ""))
    return folder


def zipped(folder: Path, out: Path) -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            zf.write(path, path.relative_to(folder).as_posix())
    return out


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file of the league with its size and modification time."""
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


@contextmanager
def server(league: LeagueDir, log: Path) -> Iterator[str]:
    argv = [*ARENA, "serve", str(league.root), "--submissions", "--port", "0", "--no-report"]
    with started(argv, log) as proc:
        url = served_url(log, proc)
        yield url


def answer_before_the_body(url: str, path: str, headers: dict[str, str],
                           length: int) -> tuple[int, bytes]:
    """A POST that announces ``length`` bytes, and the server's answer read before any of them
    is sent: a body over the limit is refused by its announced length at once (sending it
    anyway races the server closing the connection: a broken pipe, not an answer)."""
    host = url.split("//", 1)[1].rstrip("/")
    conn = http.client.HTTPConnection(host, timeout=30)
    try:
        conn.putrequest("POST", path)
        for key, value in headers.items():
            conn.putheader(key, value)
        conn.putheader("Content-Length", str(length))
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def bearer(token: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **more}


def upload(url: str, token: str, author: str, bot: str, path: Path,
           **headers: str) -> tuple[int, bytes]:
    return request(url, "POST", f"/authors/{author}/submit?bot={bot}&filename={path.name}",
                   bearer(token, **headers), path.read_bytes())


def wait_done(url: str, token: str, author: str, timeout: float = 180.0) -> dict[str, Any]:
    """The author's newest submission once it is finished."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, body = request(url, "GET", f"/authors/{author}/submissions", bearer(token))
        assert status == 200, body
        jobs = json.loads(body)
        if jobs and jobs[0]["state"] in ("done", "failed"):
            return dict(jobs[0])
        time.sleep(0.3)
    raise TimeoutError(f"{author}'s submission never finished: {body!r}")


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


# --------------------------------------------------------------------------- authors
def test_author_commands_print_a_token_once_and_store_only_its_hash(tmp_path: Path) -> None:
    league = make_league(tmp_path / "league")
    added = arena("league", "author", "add", str(league.root), "ada")
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip().splitlines()[-1]
    assert len(token) >= 40
    stored = league.authors.read_text()
    assert token not in stored and "ada" in stored
    assert os.stat(league.authors).st_mode & 0o077 == 0  # readable by the owner only
    assert author_of_token(league, token) == "ada"
    assert author_of_token(league, token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    again = arena("league", "author", "add", str(league.root), "ada")
    assert again.returncode == 2 and "exists already" in again.stderr
    listed = arena("league", "author", "list", str(league.root))
    assert re.search(r"^ada\s+active", listed.stdout, re.M), listed.stdout
    revoked = arena("league", "author", "revoke", str(league.root), "ada")
    assert revoked.returncode == 0, revoked.stderr
    assert author_of_token(league, token) is None
    assert re.search(r"^ada\s+revoked", arena("league", "author", "list",
                                              str(league.root)).stdout, re.M)


def test_a_bot_name_belongs_to_the_author_who_first_submitted_it(tmp_path: Path) -> None:
    league = make_league(tmp_path / "league")
    add_author(league, "ada")
    add_author(league, "bob")
    folder = bot_folder(tmp_path / "bot", build=None)
    first = arena("league", "submit", str(league.root), "adabot", str(folder), "--author", "ada")
    assert first.returncode == 0, first.stdout + first.stderr
    assert read_authors(league).bots == {"adabot": "ada"}
    stolen = arena("league", "submit", str(league.root), "adabot", str(folder), "--author", "bob")
    assert stolen.returncode == 2
    assert "belongs to author 'ada'" in stolen.stderr
    assert [v.label for v in read_versions(league)] == ["adabot@1"]  # no number taken
    # The league's owner (no --author) submits an unowned bot; no author may take its name.
    house = arena("league", "submit", str(league.root), "house", str(folder))
    assert house.returncode == 0, house.stdout + house.stderr
    with pytest.raises(Exception, match="submitted by the league's owner"):
        claim_bot(league, Version("house", 0, ["./bot"], 0.0, attempt=2), "bob")
    assert read_authors(league).bots == {"adabot": "ada"}


# --------------------------------------------------------------------------- the browser
@needs_chromium
@pytest.mark.slow
def test_an_author_submits_in_the_browser_and_finds_the_bot_after_a_night(
        tmp_path: Path) -> None:
    league = make_league(tmp_path / "league")
    token = add_author(league, "ada")
    house = arena("league", "submit", str(league.root), "house",
                  str(bot_folder(tmp_path / "house", build=None, seed=7)))
    assert house.returncode == 0, house.stdout + house.stderr
    archive = zipped(bot_folder(tmp_path / "adabot"), tmp_path / "adabot.zip")
    with server(league, tmp_path / "serve.log") as url, browser() as page:
        page.open(url + "login")
        page.js(f"document.getElementById('token').value = {json.dumps(token)};"
                "document.getElementById('login-button').click()")
        wait_until(page, "location.pathname === '/authors/ada' && !!document.body && "
                   "document.body.getAttribute('data-ready') === '1'", 30)
        page.set_file_input("#bot-file", [str(archive)])
        page.js("document.getElementById('bot-name').value = 'adabot';"
                "document.getElementById('submit-button').click()")
        try:
            wait_until(page, "!!document.querySelector('#jobs tr[data-job]')", 30)
        except TimeoutError:
            raise AssertionError(page.js("document.getElementById('submit-message')"
                                         ".textContent") + page.state()) from None
        stages = set()
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            stage = page.js("document.querySelector('#jobs tr[data-job]').dataset.stage")
            stages.add(stage)
            if stage in ("accepted", "rejected", "failed"):
                break
            time.sleep(0.1)
        row = page.js("(() => { const tr = document.querySelector('#jobs tr[data-job]');"
                      " return [tr.dataset.stage, tr.dataset.seen,"
                      " tr.querySelector('td.reason').textContent,"
                      " [...tr.querySelectorAll('a.log')].map(a => a.textContent)]; })()")
        assert row[0] == "accepted", (row, stages)
        assert row[1].split() == ["submitted", "building", "checking", "accepted"], row
        assert "build.log" in row[3] and "check.log" in row[3]
        # The new version shows among her bots without a reload.
        wait_until(page, "(document.querySelector('[data-bot=\"adabot\"] "
                   "tr[data-version=\"adabot@1\"] td.state') || {}).textContent === 'active'",
                   30)
        page.screenshot(tmp_path / "submitted.png", full=True)
        assert page.errors == []

        night = arena("league", "run", str(league.root), "--games", "4", "--plain")
        assert night.returncode == 0, night.stdout + night.stderr

        page.open(url + "league/report.html")
        assert page.js("!!document.querySelector('#leaderboard tr[data-version=\"adabot@1\"]')")
        page.open(url + "authors/ada")
        games = page.js("[...document.querySelectorAll('[data-bot=\"adabot\"] table.games "
                        "tr[data-game]')].length")
        assert games >= 2
        assert page.js("document.querySelector('[data-bot=\"adabot\"] tr[data-version="
                       "\"adabot@1\"] td.state').textContent") == "active"
        assert page.js("document.querySelectorAll('[data-bot=\"adabot\"] table.results "
                       "tr[data-pair]').length") >= 1
        assert page.js("document.querySelectorAll('[data-bot=\"adabot\"] table.history "
                       "tbody tr').length") >= 1
        stderr = page.js("document.querySelector('[data-bot=\"adabot\"] a.stderr').href")
        page.screenshot(tmp_path / "author.png", full=True)
        assert page.errors == []
        view = page.js("document.querySelector('[data-bot=\"adabot\"] a.view').href")
        page.open(view)  # the night's report, its viewer on the game
        page.wait_for("ARENA.index !== null")
        assert page.errors == []
        # Her bot's stderr log is hers to read, through the cookie the login set.
        text = page.js(f"fetch({json.dumps(stderr)}).then(r => r.status + ' ' + "
                       "r.headers.get('content-type'))")
        assert text.startswith("200 text/plain"), text


# --------------------------------------------------------------------------- who may do what
@pytest.mark.slow
def test_other_authors_and_foreign_requests_change_nothing_and_read_nothing(
        tmp_path: Path) -> None:
    league = make_league(tmp_path / "league", "upload_mb = 1\n")
    ada, bob = add_author(league, "ada"), add_author(league, "bob")
    house = arena("league", "submit", str(league.root), "house",
                  str(bot_folder(tmp_path / "house", build=None, seed=7)))
    assert house.returncode == 0, house.stdout + house.stderr
    archive = zipped(bot_folder(tmp_path / "adabot"), tmp_path / "adabot.zip")
    with server(league, tmp_path / "serve.log") as url:
        status, body = upload(url, ada, "ada", "adabot", archive)
        assert status == 202, body
        assert wait_done(url, ada, "ada")["stage"] == "accepted"
        night = arena("league", "run", str(league.root), "--games", "2", "--plain",
                      "--no-report")
        assert night.returncode == 0, night.stdout + night.stderr
        night_name = league.night_names()[-1]
        night_logs = league.night(night_name).logs
        logs = sorted(p.relative_to(night_logs).as_posix()
                      for p in night_logs.rglob("*.stderr.log")
                      if p.relative_to(night_logs).as_posix().startswith("adabot_1"))
        assert logs, "the night left no stderr log of adabot"
        own = ["/authors/ada/logs/adabot/1/check.log", "/authors/ada/logs/adabot/1/build.log",
               f"/authors/ada/nights/{night_name}/logs/{logs[0]}"]
        for path in own:  # ada reads her own files...
            assert request(url, "GET", path, bearer(ada))[0] == 200, path
        for path in [*own, "/authors/ada", "/authors/ada/submissions",
                     "/authors/bob/logs/adabot/1/check.log",
                     f"/authors/bob/nights/{night_name}/logs/{logs[0]}",
                     f"/authors/bob/nights/{night_name}/transcripts/r1-p1-g1.log"]:
            status, body = request(url, "GET", path, bearer(bob))
            assert status == 403, (path, status, body)  # ...bob none of them
        for path in own:  # nor anyone without a token; nor the league's plain files
            assert request(url, "GET", path)[0] in (401, 403), path
        job = json.loads(request(url, "GET", "/authors/ada/submissions", bearer(ada))[1])[0]
        for path in (f"/league/nights/{night_name}/logs/{logs[0]}", "/league/authors.json",
                     f"/league/submissions/{job['id']}/progress.log", "/league/league.toml",
                     "/league/bots/adabot/1/build.log"):
            assert request(url, "GET", path, bearer(ada))[0] == 404, path

        before = snapshot(league.root)
        small = zipped(bot_folder(tmp_path / "bobbot"), tmp_path / "bobbot.zip")
        big = tmp_path / "big.zip"
        big.write_bytes(os.urandom((1 << 20) + 1))
        refused: list[tuple[dict[str, str], str, str, Path, int, str]] = [
            # bob submits to ada's bot
            (bearer(bob), "bob", "adabot", small, 403, "belongs to author 'ada'"),
            # bob submits as ada
            (bearer(bob), "ada", "bobbot", small, 403, "ada's page"),
            # no token at all: neither the page's nor an author's
            ({}, "ada", "adabot", small, 403, "X-Arena-Token"),
            # a page of another site, with ada's credentials
            (bearer(ada, Origin="http://evil.example"), "ada", "adabot", small, 403,
             "cross-origin"),
            (bearer(ada, **{"Sec-Fetch-Site": "cross-site"}), "ada", "adabot", small, 403,
             "cross-site"),
            # a revoked or made-up token
            (bearer(ada[::-1]), "ada", "adabot", small, 403, "Bearer"),
            # over upload_mb
            (bearer(ada), "ada", "adabot", big, 413, "at most 1 MB"),
        ]
        for headers, author, bot, sent, code, message in refused:
            path = f"/authors/{author}/submit?bot={bot}&filename={sent.name}"
            if code == 413:  # refused by its announced length, before any byte of the body
                status, body = answer_before_the_body(url, path, headers, sent.stat().st_size)
            else:
                status, body = request(url, "POST", path, headers, sent.read_bytes())
            assert (status, message in body.decode()) == (code, True), (headers, status, body)
        # over upload_mb, sent in chunks with no length announced: cut at the limit
        host = url.split("//", 1)[1].rstrip("/")
        conn = http.client.HTTPConnection(host, timeout=30)
        try:
            # cut at the limit: the server may answer and close before the last chunk is sent
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                conn.request("POST", "/authors/ada/submit?bot=adabot&filename=big.zip",
                             body=iter([big.read_bytes()[i:i + 65536]
                                        for i in range(0, big.stat().st_size, 65536)]),
                             headers=bearer(ada))
            response = conn.getresponse()
            assert (response.status, b"at most 1 MB" in response.read()) == (413, True)
        finally:
            conn.close()
        # a login from another site, and a form post to log in without the page's token
        status, _ = request(url, "POST", "/login", {"Origin": "http://evil.example",
                                                     "Content-Type": "application/json"},
                            json.dumps({"token": ada}).encode())
        assert status == 403
        assert request(url, "POST", "/login", {"Content-Type": "application/json"},
                       json.dumps({"token": ada}).encode())[0] == 403
        time.sleep(1.0)  # a queued job would have begun writing by now
        assert snapshot(league.root) == before
        assert [v.label for v in read_versions(league)] == ["adabot@1", "house@1"]


# --------------------------------------------------------------------------- hostile uploads
LOOP = '["sh", "-c", "while :; do :; done"]'


@pytest.mark.slow
def test_a_looping_build_is_stopped_at_its_limit_while_pages_stay_fast(tmp_path: Path) -> None:
    limit = 4.0
    league = make_league(tmp_path / "league",
                         f"build_seconds = {limit}\npending_per_author = 2\n")
    ada = add_author(league, "ada")
    archive = zipped(bot_folder(tmp_path / "loop", build=LOOP), tmp_path / "loop.zip")
    with server(league, tmp_path / "serve.log") as url:
        started_at = time.monotonic()
        for bot in ("looper", "looper2"):
            status, body = upload(url, ada, "ada", bot, archive)
            assert status == 202, body
        status, body = upload(url, ada, "ada", "looper3", archive)  # two wait already
        assert status == 429 and b"at most 2" in body, (status, body)
        loads: list[float] = []
        overlap = False
        while time.monotonic() - started_at < 2 * limit + 120:
            _, answer = request(url, "GET", "/authors/ada/submissions", bearer(ada))
            jobs = {job["bot"]: job for job in json.loads(answer)}
            first, second = jobs["looper"], jobs["looper2"]
            if all(job["state"] in ("done", "failed") for job in (first, second)):
                break
            # One build at a time per author: the second waits while the first builds.
            overlap = overlap or (first["state"] == "running" and second["state"] != "queued")
            if "building" in (first["stage"], second["stage"]):  # a loop spins: pages?
                for path in ("/league/report.html", "/authors/ada"):
                    t0 = time.monotonic()
                    status, _ = request(url, "GET", path, bearer(ada))
                    loads.append(time.monotonic() - t0)
                    assert status == 200, path
            time.sleep(0.2)
        took = time.monotonic() - started_at
        assert loads, "never saw a build running"
        print(f"page loads during the looping builds: {len(loads)}, slowest "
              f"{max(loads):.3f} s; both rejected after {took:.1f} s")
        assert max(loads) < 1.0, loads
        assert not overlap, "the author's two submissions ran at once"
        for job in (first, second):
            assert job["stage"] == "rejected" and job["step"] == "build", job
            assert "build.log" in job["logs"], job
            assert request(url, "GET", job["logs"]["build.log"], bearer(ada))[0] == 200
        assert took < 2 * limit + 90, took
        versions = read_versions(league)
        assert [v.label for v in versions] == ["looper#1", "looper2#1"]  # no numbers used
        for version in versions:
            assert version.state == "rejected" and version.step == "build"
            assert "time" in version.reason or str(int(limit)) in version.reason, version.reason


def zip_bomb(path: Path, gib: int = 1) -> Path:
    """A zip of ``gib`` GiB of zeros in one member (about 1 MB on disk)."""
    chunk = bytes(1 << 20)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        (path.parent / "bot.toml").write_text('cmd = ["{python}", "bot.py"]\n')
        zf.write(path.parent / "bot.toml", "bot.toml")
        with zf.open("bot.py", "w", force_zip64=True) as member:
            for _ in range(gib << 10):
                member.write(chunk)
    return path


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmHWM, VmRSS) of a process in MB: its peak and its present resident memory."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text()
                  .splitlines() if ":" in line)
    return (int(fields["VmHWM"].split()[0]) / 1024, int(fields["VmRSS"].split()[0]) / 1024)


@pytest.mark.slow
def test_a_zip_bomb_is_refused_while_the_server_stays_small(tmp_path: Path) -> None:
    league = make_league(tmp_path / "league")
    ada = add_author(league, "ada")
    bomb = zip_bomb(tmp_path / "bomb" / "bomb.zip")
    assert bomb.stat().st_size < 8 << 20
    argv = [*ARENA, "serve", str(league.root), "--submissions", "--port", "0", "--no-report"]
    log = tmp_path / "serve.log"
    with started(argv, log) as proc:
        url = served_url(log, proc)
        status, body = upload(url, ada, "ada", "bomb", bomb)
        assert status == 202, body
        peak = 0.0
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            peak = max(peak, rss_mb(proc.pid)[1])
            status, jobs = request(url, "GET", "/authors/ada/submissions", bearer(ada))
            job = json.loads(jobs)[0]
            if job["state"] in ("done", "failed"):
                break
            time.sleep(0.1)
        hwm, rss = rss_mb(proc.pid)
        assert (job["stage"], job["step"]) == ("rejected", "upload"), job
        assert "bot.py" in job["reason"] and "limit" in job["reason"], job
        assert "\n" not in job["reason"]
        print(f"server memory while the bomb was refused: VmHWM {hwm:.0f} MB, VmRSS peak "
              f"{peak:.0f} MB; reason: {job['reason']}")
        assert max(hwm, peak) < 200, (hwm, peak, rss)
    stored = sum(p.stat().st_size for p in league.root.rglob("*") if p.is_file())
    assert stored < 16 << 20, stored  # nothing of the bomb unpacked into the league
