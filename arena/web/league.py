"""``arena serve LEAGUE_DIR``: the league's report, and the live page of its newest night.

``/`` is the league report (rebuilt by each night as it closes); ``/live`` follows the newest
night (the one being played, if any) exactly as ``arena serve`` follows a run: the same page,
the same events and the same files under ``/run/``. Only what the report shows is served from
the league directory (the report, its exports and the nights' reports and games), never the
stored bots' folders nor their build logs. With ``--submissions`` (:mod:`arena.web.submissions`)
authors log in, submit, and read their own bots' logs on their own page, and only there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena.league.authors import author_of_token
from arena.league.layout import EXPORT_DIR, NIGHTS_DIR, REPORT_DIR, REPORT_PAGE, LeagueDir
from arena.web.app import asset, guarded, live_routes
from arena.web.guard import new_token
from arena.web.runfiles import file_response, resolve
from arena.web.submissions import Submissions, submission_routes
from arena.web.watch import RunWatcher

SERVED: Final = (REPORT_PAGE, REPORT_DIR, EXPORT_DIR, NIGHTS_DIR)
"""The league directory's entries a browser may read (the first part of the path)."""
NIGHT_HIDDEN: Final = frozenset({"logs", "transcripts", "live"})
"""A night's entries not served from ``/league/``: the bots' stderr and protocol logs."""


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

    async def league_files(request: Request) -> Response:
        relative = request.path_params["path"]
        parts = Path(relative).parts
        path = resolve(league.root, relative)
        if (path is None or not parts or parts[0] not in SERVED
                or (parts[0] == NIGHTS_DIR and len(parts) > 2 and parts[2] in NIGHT_HIDDEN)):
            return Response("not found", status_code=404, media_type="text/plain")
        return file_response(path)

    routes: list[BaseRoute] = [
        Route("/", home),
        Route("/league/{path:path}", league_files),
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
