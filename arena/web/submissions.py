"""``arena serve LEAGUE_DIR --submissions``: authors log in, upload bots, follow their
submissions and read their own page (:mod:`arena.web.author_page`).

Who is asking: an author's token (``arena league author add``), sent as ``Authorization:
Bearer TOKEN`` or kept by the browser in an HttpOnly, ``SameSite=Strict`` cookie that
``POST /login`` sets (``Secure`` when the server is reached over https). Every request that
changes something (log in, log out, submit) also passes the app's guard
(:mod:`arena.web.guard`: its Origin is this server's, and it carries the page's token or a
valid Bearer token); an author reads and writes only under ``/authors/<their name>/``
(another author's pages and files answer 403).

An upload is the request's raw body (the page sends the file with ``fetch``; the file's
name and the bot's name are query parameters): no multipart parser, and the body streams
to a file of the submission's folder a chunk at a time, cut at ``[league] upload_mb`` by the
request-size limit (:mod:`arena.web.bodylimit`). Then the queue runs the submission
(:mod:`arena.web.queue`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote

import trio
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Route

from arena.league.authors import author_of_token, may_submit, owner_of
from arena.leaguedir.directory import BUILD_LOG, CHECK_LOG, NAME_PATTERN, LeagueDir
from arena.web.app import page as html_page
from arena.web.author_page import author_body, author_versions, own_file
from arena.web.bodylimit import DEFAULT_LIMIT, BodyTooLarge
from arena.web.guard import bearer_token
from arena.web.queue import QueueFull, SubmissionQueue
from arena.web.runfiles import file_response, not_found
from arena.web.served import served_exactly

COOKIE: Final = "arena_author"
COOKIE_DAYS: Final = 30
UPLOAD_SUFFIXES: Final = (".tar.gz", ".tgz", ".tar", ".zip")
"""What an upload's file name may end with besides a single source file's suffix."""
SAFE_FILENAME: Final = re.compile(r"[^A-Za-z0-9._-]+")
UPLOAD_PATH: Final = re.compile(r"^/authors/[^/]+/submit$")


@dataclass(frozen=True)
class Submissions:
    """What the submission routes need: the league, its queue and its limits."""

    league: LeagueDir
    queue: SubmissionQueue
    upload_bytes: int
    secure_cookie: bool
    """Send the cookie with ``Secure`` (the public origin is https)."""

    def limit_of(self, path: str) -> int:
        """The request-size limit of ``path``: uploads take ``upload_bytes``, the rest little."""
        return self.upload_bytes if UPLOAD_PATH.match(path) else DEFAULT_LIMIT


def safe_filename(name: str) -> str:
    """The upload's file name as stored: its last component, odd characters replaced."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = SAFE_FILENAME.sub("_", base).lstrip(".")[-100:]
    return cleaned or "upload"


def submission_routes(sub: Submissions) -> list[BaseRoute]:
    """The routes of logging in, submitting, and the authors' pages."""
    league = sub.league

    def me(request: Request) -> str | None:
        token = bearer_token(request.headers) or request.cookies.get(COOKIE, "")
        return author_of_token(league, token)

    def who(request: Request) -> str | Response:
        """The author asking for ``/authors/{author}/...``, or the response refusing them."""
        author = me(request)
        if author is None:
            if request.method == "GET" and "text/html" in request.headers.get("accept", ""):
                return RedirectResponse("/login", status_code=303)
            return PlainTextResponse("log in first: /login (or send Authorization: Bearer "
                                     "TOKEN)", status_code=401)
        if request.path_params.get("author") != author:
            return PlainTextResponse(f"forbidden: this is {request.path_params.get('author')}'s"
                                     f" page, and you are {author}", status_code=403)
        return author

    async def login_page(request: Request) -> Response:
        token = request.app.state.page_token
        return HTMLResponse(html_page("Arena league: log in", "submit.js", LOGIN_BODY, token))

    async def login(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
            token = str(body["token"]).strip()
        except BodyTooLarge:
            raise
        except (ValueError, KeyError, TypeError):
            return PlainTextResponse('send JSON {"token": "..."}', status_code=400)
        author = author_of_token(league, token)
        if author is None:
            return PlainTextResponse("unknown or revoked token", status_code=403)
        response = JSONResponse({"author": author, "page": f"/authors/{quote(author)}"})
        response.set_cookie(COOKIE, token, max_age=COOKIE_DAYS * 86400, httponly=True,
                            samesite="strict", path="/",
                            secure=sub.secure_cookie or request.url.scheme == "https")
        return response

    async def logout(request: Request) -> Response:
        response = JSONResponse({"page": "/login"})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
        return response

    async def my_page(request: Request) -> Response:
        author = me(request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        return RedirectResponse(f"/authors/{quote(author)}", status_code=303)

    async def author_home(request: Request) -> Response:
        author = who(request)
        if isinstance(author, Response):
            return author
        # The fit and the journals are read in a thread: the event loop keeps serving.
        body = await trio.to_thread.run_sync(author_body, league, author,
                                             sub.queue.pending_per_author,
                                             sub.upload_bytes / (1 << 20))
        return HTMLResponse(html_page(f"Arena league: {author}", "submit.js", body,
                                      request.app.state.page_token))

    async def upload(request: Request) -> Response:
        author = who(request)
        if isinstance(author, Response):
            return author
        bot = request.query_params.get("bot", "")
        filename = safe_filename(request.query_params.get("filename", ""))
        if not NAME_PATTERN.fullmatch(bot):
            return PlainTextResponse(f"bot name {bot!r}: use 1 to 64 letters, digits, '.', "
                                     "'_' or '-', starting with a letter or digit",
                                     status_code=400)
        if "." not in filename:
            return PlainTextResponse(f"{filename}: name the file with its suffix (.zip, "
                                     ".tar.gz, .tar, or a source file's)", status_code=400)
        refused = may_submit(league, bot, author)
        if refused is not None:
            return PlainTextResponse(f"forbidden: {refused}", status_code=403)
        try:
            job = sub.queue.reserve(author, bot, filename)
        except QueueFull as exc:
            return PlainTextResponse(str(exc), status_code=429)
        try:
            with open(sub.queue.upload_path(job), "wb") as out:
                async for chunk in request.stream():
                    out.write(chunk)
        except BaseException:
            sub.queue.drop(job)
            raise
        sub.queue.start(job)
        return JSONResponse(sub.queue.status(job), status_code=202)

    async def jobs(request: Request) -> Response:
        author = who(request)
        if isinstance(author, Response):
            return author
        return JSONResponse([sub.queue.status(j) for j in sub.queue.of_author(author)[:30]])

    async def version_log(request: Request) -> Response:
        author = who(request)
        if isinstance(author, Response):
            return author
        bot, number, log = (request.path_params[k] for k in ("bot", "number", "log"))
        if log not in (BUILD_LOG, CHECK_LOG) or not NAME_PATTERN.fullmatch(bot):
            return PlainTextResponse("not found", status_code=404)
        if owner_of(league, bot) != author:
            return PlainTextResponse(f"forbidden: bot {bot!r} is not yours", status_code=403)
        if not any(v.name == bot and v.number == number
                   for v in author_versions(league, author)):  # a freed name's old version
            return PlainTextResponse(f"forbidden: {bot}@{number} is not yours",
                                     status_code=403)
        return _own(league.version_dir(bot, number) / log)

    async def night_file(request: Request) -> Response:
        author = who(request)
        if isinstance(author, Response):
            return author
        night, kind, rel = (request.path_params[k] for k in ("night", "kind", "path"))
        if ".." in rel.split("/") or rel.startswith("/"):
            return PlainTextResponse("not found", status_code=404)
        path = own_file(league, author, night, kind, rel)
        if path is None:
            return PlainTextResponse("forbidden: not a log or transcript of your bots",
                                     status_code=403)
        return _own(path)

    def _own(path: Path) -> Response:
        """The author's file at ``path``, found there once resolved (not through a link)."""
        resolved = served_exactly(league.root, path)
        return not_found() if resolved is None else _text(file_response(resolved))

    return [
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/author", my_page),
        Route("/authors/{author}", author_home),
        Route("/authors/{author}/submit", upload, methods=["POST"]),
        Route("/authors/{author}/submissions", jobs),
        Route("/authors/{author}/logs/{bot}/{number:int}/{log}", version_log),
        Route("/authors/{author}/nights/{night}/{kind}/{path:path}", night_file),
    ]


def _text(response: Response) -> Response:
    """A log served as plain text (never rendered as a page of this origin)."""
    if response.status_code == 200:
        response.headers["content-type"] = "text/plain; charset=utf-8"
        response.headers["x-content-type-options"] = "nosniff"
    return response


LOGIN_BODY: Final = """
<header><h1>Arena league: log in</h1>
<div class="meta"><a href="/league/report.html">league report</a></div></header>
<main><section id="login"><p class="hint">Log in with the token the league's owner gave you
(<code>arena league author add</code> printed it).</p>
<form id="login-form"><label>token <input id="token" name="token" type="password"
autocomplete="current-password" required size="50"></label>
<button type="submit" id="login-button">log in</button></form>
<p id="login-message" class="hint"></p></section></main>
"""
