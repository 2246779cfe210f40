"""``arena serve LEAGUE_DIR``: the league's report, and the live page of its newest night.

``/`` is the league report (rebuilt by each night as it closes); ``/live`` follows the newest
night (the one being played, if any) exactly as ``arena serve`` follows a run: the same page,
the same events and the same files under ``/run/``. Only what the report shows is served from
the league directory (the report, its exports and the nights' reports and games), never the
stored bots' folders nor their build logs, nor the nights' bots' logs: the path a request
names is resolved before it is compared with these (:mod:`arena.web.served`). With
``--submissions`` (:mod:`arena.web.submissions`) authors log in, submit, and read their own
bots' logs on their own page, and only there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena.league.authors import author_of_token
from arena.leaguedir.directory import EXPORT_DIR, NIGHTS_DIR, LeagueDir
from arena.rundir.layout import CONFIG_COPY, REPORT_DIR, REPORT_PAGE
from arena.web.app import asset, guarded, live_routes
from arena.web.guard import new_token
from arena.web.runfiles import served_file
from arena.web.served import Served
from arena.web.submissions import Submissions, submission_routes
from arena.web.watch import RunWatcher

NIGHT_HIDDEN: Final = frozenset({"logs", "transcripts", "live", CONFIG_COPY})
"""A night's entries never served to everyone: the bots' stderr and protocol logs, and the
night's config (the versions' commands, store paths and environments)."""
SERVED: Final = Served((REPORT_PAGE, REPORT_DIR, EXPORT_DIR, NIGHTS_DIR),
                       tuple(f"{NIGHTS_DIR}/*/{name}" for name in sorted(NIGHT_HIDDEN)))
"""What a browser may read from the league directory under ``/league/``."""


def newest_night(league: LeagueDir) -> Path | None:
    names = league.night_names()
    return league.night(names[-1]).root if names else None


def league_app(league: LeagueDir, watcher: RunWatcher | None,
               submissions: Submissions | None = None,
               public_hosts: frozenset[str] = frozenset()) -> Starlette:
    """The app: the league's report and files, the newest night's live page and, with
    ``submissions``, the authors' pages (:mod:`arena.web.submissions`). ``public_hosts``: the
    names a reverse proxy in front of it is reached by (``--origin``)."""
    token = new_token()

    async def home(request: Request) -> Response:
        return RedirectResponse(f"/league/{REPORT_PAGE}")

    routes: list[BaseRoute] = [
        Route("/", home),
        Route("/league/{path:path}", served_file(league.root, SERVED)),
        Route("/assets/{name}", asset),
    ]
    if watcher is not None:
        routes += live_routes("/live", f"Arena live: night {watcher.run_dir.name}", watcher,
                              token, NIGHT_HIDDEN)
    if submissions is None:
        return guarded(routes, token, hosts=public_hosts)
    routes += submission_routes(submissions)
    return guarded(routes, token, hosts=public_hosts,
                   bearer=lambda sent: author_of_token(league, sent) is not None,
                   limit_of=submissions.limit_of)
