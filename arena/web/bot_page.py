"""``/bots/NAME``: a bot's public page, for anyone who can read the league report.

What the league report knows of one bot, gathered: its versions with their state (pending,
active, retired; a rejected submission has no version and is its author's business), its
rating over the nights, its results against each opponent and its recent games, each opening
in its night's viewer. The numbers are the report's (:func:`reports.league_data.read_league`)
and the games the nights' journals', as on the author's own page (the same section:
:func:`arena.web.author_page.bot_section`, without the author's part).

Never a log, a transcript or a source: the page links to no file under ``bots/``,
``store/`` or a night's ``logs/``/``transcripts/``, and shows no command, store hash or
reason of a rejection. The name in the URL is checked against the bot names' pattern before
anything is read; an unknown bot is a 404.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

import trio
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from arena.leaguedir.directory import NAME_PATTERN, LeagueDir
from arena.leaguedir.versions import read_versions
from arena.web.app import page
from arena.web.author_page import bot_section, own_games
from reports.htmlkit import escape, link
from reports.league_data import read_league

MAX_GAMES: Final = 100
"""Recent games listed (the newest): the nights' reports hold them all."""


def bot_body(league: LeagueDir, name: str) -> str | None:
    """The page's HTML body, or None when the league has no version of ``name``."""
    if not NAME_PATTERN.fullmatch(name):
        return None
    mine = [v for v in read_versions(league) if v.name == name and v.number]
    if not mine:
        return None
    data = read_league(league.root)
    games = own_games(league, {v.label for v in mine}, limit=MAX_GAMES)
    authors = sorted({v.author for v in mine if v.author})
    by = f" by {escape(', '.join(authors))}" if authors else ""
    return f"""<header><h1>Arena league: {escape(name)}</h1>
<div class="meta">{link("/league/report.html", "league report")}{by}</div></header>
<main>{bot_section(league, data, name, mine, games, None)}</main>"""


def bot_route(league: LeagueDir, token: str) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``/bots/{name}`` (the page read in a thread: the journals are read)."""

    async def bot_page(request: Request) -> Response:
        name = request.path_params["name"]
        body = await trio.to_thread.run_sync(bot_body, league, name)
        if body is None:
            return PlainTextResponse(f"no bot named {name!r} in this league", status_code=404)
        return HTMLResponse(page(f"Arena league: {name}", "submit.js", body, token))

    return bot_page
