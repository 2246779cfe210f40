"""The submission server's gates, called as ASGI in this process (no socket, no child): the
login cookie's attributes, the request-size limit with and without a declared length, the
public name of a reverse proxy, a revoked token, and a server restarted in the middle of a
submission. The same gates on a real server, with real uploads: test_league_submissions.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import trio

from arena.league.authors import add_author, revoke_author
from arena.league.submit import Building, Submitted, encode_event
from arena.leaguedir.directory import LeagueDir
from arena.web.leaguesite import league_app
from arena.web.queue import EVENTS_FILE, JOB_FILE, SubmissionQueue
from arena.web.submissions import Submissions

Response = tuple[int, dict[str, str], bytes]


def league(tmp_path: Path) -> LeagueDir:
    root = tmp_path / "league"
    root.mkdir()
    (root / "league.toml").write_text('game = "dobutsu"\ntc = "2+0.02"\n')
    return LeagueDir(root)


def app_of(lg: LeagueDir, secure: bool = False, hosts: frozenset[str] = frozenset()) -> Any:
    sub = Submissions(league=lg, queue=SubmissionQueue(lg, 3), upload_bytes=1 << 20,
                      secure_cookie=secure)
    return league_app(lg, None, sub, hosts)


async def call(app: Any, method: str, path: str, headers: dict[str, str] | None = None,
               chunks: list[bytes] | None = None, host: str = "127.0.0.1:8000") -> Response:
    """One request through the ASGI app; the body sent as ``chunks`` (no length declared
    unless the caller gives Content-Length)."""
    path, _, query = path.partition("?")
    sent = [(b"host", host.encode())] + [(k.lower().encode(), v.encode())
                                          for k, v in (headers or {}).items()]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "root_path": "", "headers": sent,
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}
    parts = list(chunks or [b""])
    messages = [{"type": "http.request", "body": c, "more_body": i < len(parts) - 1}
                for i, c in enumerate(parts)]
    out: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        out.append(message)

    with trio.fail_after(10):
        await app(scope, receive, send)
    start = next(m for m in out if m["type"] == "http.response.start")
    got: dict[str, str] = {}
    for k, v in start["headers"]:
        got[k.decode()] = (got[k.decode()] + "\n" if k.decode() in got else "") + v.decode()
    body = b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body")
    return start["status"], got, body


def leftovers(lg: LeagueDir) -> list[Path]:
    """What the submissions' folder holds."""
    return sorted(lg.submissions.rglob("*")) if lg.submissions.exists() else []


async def page_token(app: Any, host: str = "127.0.0.1:8000") -> str:
    status, _, body = await call(app, "GET", "/login", host=host)
    assert status == 200
    return body.split(b'name="arena-token" content="', 1)[1].split(b'"', 1)[0].decode()


async def test_login_sets_an_http_only_strict_cookie_secure_behind_https(
        tmp_path: Path) -> None:
    lg = league(tmp_path)
    token = add_author(lg, "ada")
    for secure in (False, True):
        app = app_of(lg, secure=secure)
        status, headers, body = await call(
            app, "POST", "/login", {"X-Arena-Token": await page_token(app),
                                    "Content-Type": "application/json"},
            [json.dumps({"token": token}).encode()])
        assert status == 200, body
        cookie = headers["set-cookie"].lower()
        assert f"arena_author={token.lower()}" in cookie
        assert "httponly" in cookie and "samesite=strict" in cookie
        assert ("secure" in cookie.replace("samesite", "")) == secure, cookie
        # The cookie opens ada's page, and only ada's.
        me = {"Cookie": f"arena_author={token}"}
        assert (await call(app, "GET", "/authors/ada", me))[0] == 200
        assert (await call(app, "GET", "/authors/bob", me))[0] == 403
    # A wrong token sets nothing.
    app = app_of(lg)
    status, headers, _ = await call(app, "POST", "/login", {"X-Arena-Token": await page_token(
        app)}, [json.dumps({"token": token + "x"}).encode()])
    assert status == 403 and "set-cookie" not in headers


async def test_every_body_is_limited_declared_or_not(tmp_path: Path) -> None:
    lg = league(tmp_path)
    token = add_author(lg, "ada")
    app = app_of(lg)
    auth = {"Authorization": f"Bearer {token}"}
    # Declared: refused before a byte is read.
    status, _, body = await call(app, "POST", "/login", {**auth, "Content-Length": "70000"},
                                 [b"{}"])
    assert status == 413 and b"/login takes at most 64 KB" in body
    # Not declared (chunked): cut where it passes the limit.
    status, _, body = await call(app, "POST", "/login", auth, [b"x" * 40000] * 3)
    assert status == 413 and b"at most 64 KB" in body
    status, _, body = await call(app, "POST", "/authors/ada/submit?bot=a&filename=a.zip", auth,
                                 [b"x" * (600 << 10)] * 2)
    assert status == 413 and b"at most 1 MB" in body
    # The refused upload left nothing: no job, no file.
    assert leftovers(lg) == []
    assert (await call(app, "GET", "/authors/ada/submissions", auth))[2] == b"[]"


async def test_a_proxy_s_public_name_is_accepted_only_when_given(tmp_path: Path) -> None:
    lg = league(tmp_path)
    public = "arena.example.org"
    assert (await call(app_of(lg), "GET", "/login", host=public))[0] == 403
    app = app_of(lg, secure=True, hosts=frozenset({public}))
    assert (await call(app, "GET", "/login", host=public))[0] == 200
    token = add_author(lg, "ada")
    ok = {"X-Arena-Token": await page_token(app, public), "Origin": f"https://{public}"}
    login = [json.dumps({"token": token}).encode()]
    assert (await call(app, "POST", "/login", ok, login, host=public))[0] == 200
    evil = {**ok, "Origin": "https://evil.example"}
    assert (await call(app, "POST", "/login", evil, login, host=public))[0] == 403


async def test_a_revoked_token_opens_nothing(tmp_path: Path) -> None:
    lg = league(tmp_path)
    token = add_author(lg, "ada")
    app = app_of(lg)
    auth = {"Authorization": f"Bearer {token}"}
    assert (await call(app, "GET", "/authors/ada/submissions", auth))[0] == 200
    revoke_author(lg, "ada")
    assert (await call(app, "GET", "/authors/ada/submissions", auth))[0] == 401
    status, _, body = await call(app, "POST", "/authors/ada/submit?bot=a&filename=a.zip", auth,
                                 [b"PK"])
    assert status == 403 and b"revoked" in body
    assert leftovers(lg) == []


def test_a_submission_cut_by_a_server_stop_is_failed_at_the_next_start(tmp_path: Path) -> None:
    lg = league(tmp_path)
    queue = SubmissionQueue(lg, 3)
    job = queue.reserve("ada", "adabot", "adabot.zip")
    queue.upload_path(job).write_bytes(b"PK")
    (queue.folder(job) / EVENTS_FILE).write_bytes(  # the child's events when it was cut
        encode_event(Submitted("adabot@1")) + encode_event(Building("adabot@1", ["make"])))
    job.state = "running"
    (queue.folder(job) / JOB_FILE).write_bytes(msgspec.json.encode(job))
    again = SubmissionQueue(lg, 3)
    (found,) = again.of_author("ada")
    assert found.state == "failed" and "submit again" in found.note
    assert not queue.upload_path(job).exists()
    status = again.status(found)
    assert status["stage"] == "failed" and "submit again" in status["reason"]
    assert status["seen"] == ["submitted", "building"]
    assert again.pending("ada") == 0
