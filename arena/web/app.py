"""The Starlette app of ``arena serve RUN_DIR``: the live page, its events and the run's files.

Routes: ``/`` the live page (its first response drawn from the current snapshot:
:mod:`arena.web.livepage`); ``/events`` server-sent events, one ``state`` event per new
snapshot of the run (plus a comment every few seconds to keep proxies from closing the
stream); ``/state`` the current snapshot as JSON; ``/assets/...`` the page's script and style
(shared with the report); ``/run/...`` the run directory's report and its files, so a finished
game opens in the report's own viewer (each file sent whole while the runner rewrites it:
:mod:`arena.web.runfiles`); ``/game/KEY.pgn`` a finished game's PGN from the journal, there as
soon as the game is (the report's viewer has it only after the next rebuild). Every app is
:func:`guarded`: a request that changes something must come from the app's own page
(:mod:`arena.web.guard`).
"""

from __future__ import annotations

import json
import signal
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any, Final

import trio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import BaseRoute, Route

from arena.web.bodylimit import DEFAULT_LIMIT, BodyLimit, BodyTooLarge, too_large
from arena.web.guard import TOKEN_META, SameOriginGuard, new_token
from arena.web.livepage import live_body, no_script_head
from arena.web.runfiles import run_files
from arena.web.watch import RunWatcher
from reports.htmlkit import Html, document, escape

KEEPALIVE_SECONDS: Final = 10.0
FIRST_PAINT_WAIT_SECONDS: Final = 10.0
"""The live page's first response waits this long at most for the watcher's first snapshot
(a server just started; a long journal), then is sent with what there is."""
ASSETS: Final = {
    "board.js": ("reports", "application/javascript"),
    "report.css": ("reports", "text/css"),
    "live.js": ("arena.web", "application/javascript"),
    "play.js": ("arena.web", "application/javascript"),
    "live.css": ("arena.web", "text/css"),
    "submit.js": ("arena.web", "application/javascript"),
}


def asset_text(name: str) -> str:
    package, _ = ASSETS[name]
    return resources.files(package).joinpath("assets", name).read_text(encoding="utf-8")


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ASSETS:
        return Response("no such asset", status_code=404, media_type="text/plain")
    return Response(asset_text(name), media_type=ASSETS[name][1],
                    headers={"Cache-Control": "no-cache"})


def sse(data: dict[str, Any], event: str = "state") -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def event_stream(wait: Callable[[int, float], Awaitable[dict[str, Any] | None]],
                 current: Callable[[], dict[str, Any]]) -> StreamingResponse:
    """An SSE response: the current snapshot at once, then every newer one."""

    async def stream() -> AsyncIterator[str]:
        snap = current()
        version = int(snap.get("version", 0))
        yield sse(snap)
        while True:
            newer = await wait(version, KEEPALIVE_SECONDS)
            if newer is None:
                yield ": keep-alive\n\n"
                continue
            version = int(newer["version"])
            yield sse(newer)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def page(title: str, script: str, body: str, token: str, head: str = "") -> str:
    """The HTML of a page (:func:`reports.htmlkit.document`, with the web's stylesheets and
    scripts): ``token`` is this server start's (:mod:`arena.web.guard`), which the page's
    script sends back with every request that changes something; ``head`` (markup) goes into
    the head as it is, ``body`` (markup) into the body."""
    return document(title, Html(f"""{body}
<script src="/assets/board.js"></script><script src="/assets/{escape(script)}"></script>
"""), head=Html(
        f'\n<meta name="{TOKEN_META}" content="{escape(token)}">{head}\n'
        '<link rel="stylesheet" href="/assets/report.css">'
        '<link rel="stylesheet" href="/assets/live.css">'))


def guarded(routes: list[BaseRoute], token: str, *,
            bearer: Callable[[str], bool] | None = None, hosts: frozenset[str] = frozenset(),
            limit_of: Callable[[str], int] = lambda path: DEFAULT_LIMIT) -> Starlette:
    """An app of ``routes`` whose state-changing requests must come from its own page (or
    carry a Bearer token ``bearer`` accepts), reached by this machine's names or ``hosts``,
    and whose request bodies are at most ``limit_of(path)`` bytes (:mod:`.bodylimit`)."""
    app = Starlette(routes=routes, middleware=[
        Middleware(BodyLimit, limit_of=limit_of),
        Middleware(SameOriginGuard, token=token, bearer=bearer, hosts=hosts)],
        exception_handlers={BodyTooLarge: too_large})
    app.state.page_token = token
    return app


def live_routes(path: str, title: str, watcher: RunWatcher, token: str,
                hidden: frozenset[str] = frozenset()) -> list[BaseRoute]:
    """The live page of ``watcher``'s run at ``path`` and what it reads: its events, its
    state, the run's files but its ``hidden`` entries, and its finished games' PGN (``arena
    serve RUN_DIR`` and a league's newest night)."""

    async def live_page(request: Request) -> Response:
        snap = await watcher.first_snapshot(FIRST_PAINT_WAIT_SECONDS)
        return HTMLResponse(page(title, "live.js", live_body(snap), token,
                                 head=no_script_head()))

    async def events(request: Request) -> Response:
        return event_stream(watcher.wait_newer, lambda: watcher.snapshot)

    async def state(request: Request) -> Response:
        return JSONResponse(watcher.snapshot)

    async def game_pgn(request: Request) -> Response:
        pgn = await trio.to_thread.run_sync(watcher.pgn, request.path_params["key"])
        if pgn is None:
            return PlainTextResponse("no such finished game", status_code=404)
        return PlainTextResponse(pgn, headers={"Cache-Control": "no-cache"})

    return [
        Route(path, live_page),
        Route("/events", events),
        Route("/state", state),
        Route("/game/{key}.pgn", game_pgn),
        Route("/run/{path:path}", run_files(watcher.run_dir, hidden)),
    ]


def live_app(run_dir: Path, watcher: RunWatcher) -> Starlette:
    token = new_token()
    return guarded([
        *live_routes("/", f"Arena live: {run_dir.name}", watcher, token),
        Route("/assets/{name}", asset),
    ], token)


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound, listening socket (port 0: any free one), handed to Hypercorn by descriptor so
    the caller knows the port before the server starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(100)
    sock.set_inheritable(True)
    return sock


async def serve(app: Starlette, sock: socket.socket,
                background: Callable[[], Awaitable[None]] | None = None) -> None:
    """Run ``app`` on Hypercorn's trio worker (and ``background`` beside it) until cancelled."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.accesslog = None
    config.errorlog = "-"
    config.graceful_timeout = 1.0
    async with trio.open_nursery() as nursery:
        if background is not None:
            nursery.start_soon(background)
        await hypercorn_serve(app, config,  # type: ignore[arg-type]
                              shutdown_trigger=terminated if on_main_thread() else None)
        nursery.cancel_scope.cancel()


async def terminated() -> None:
    """Returns when the process is sent SIGTERM (``kill``, a service manager stopping it): the
    server then stops as on Ctrl-C, its background cleaned up (a game in progress written
    unfinished, a submission's child stopped); without this, SIGTERM ended the process on the
    spot and lost both."""
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            print("arena: SIGTERM: stopping", flush=True)
            return


def on_main_thread() -> bool:
    """Signals can be received on the main thread only (a test may serve from another)."""
    return threading.current_thread() is threading.main_thread()
