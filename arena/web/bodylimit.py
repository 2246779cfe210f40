"""The request-size limit of every route: a body longer than its route allows gets 413.

Plain ASGI around the app: a declared ``Content-Length`` over the limit is answered at once,
before a byte of the body is read; a body sent without one (chunked) is counted as it arrives
and cut at the limit (the app's read raises :class:`BodyTooLarge`, which the app answers with
413: :func:`too_large`). So no handler ever reads
more than its route's limit, whatever the client sends, and an upload handler that streams
the body to a file holds one chunk in memory at a time.

Starlette has no such limit of its own (its form parser caps parts, not bodies), and
Hypercorn's ``h11_max_incomplete_size`` bounds headers only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULT_LIMIT: Final = 64 << 10
"""Bytes of body a route takes unless it says otherwise: forms and JSON, never files."""


class BodyTooLarge(Exception):
    """Raised inside the app's ``receive`` when the body passes the limit."""


def _mb(limit: int) -> str:
    return f"{limit / (1 << 20):.3g} MB" if limit >= 1 << 20 else f"{limit >> 10} KB"


async def too_large(request: Request, exc: Exception) -> Response:
    """The app's handler of :class:`BodyTooLarge` (raised while a handler reads the body)."""
    return PlainTextResponse(str(exc), status_code=413)


class BodyLimit:
    """ASGI middleware: ``limit_of(path)`` is the most bytes a request to ``path`` may send."""

    def __init__(self, app: ASGIApp, limit_of: Callable[[str], int]) -> None:
        self.app = app
        self.limit_of = limit_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_of(scope["path"])
        message = (f"request body too large: {scope['path']} takes at most {_mb(limit)} "
                   f"({limit} bytes)")
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await PlainTextResponse(message, status_code=413)(scope, receive, send)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            got = await receive()
            if got["type"] == "http.request":
                seen += len(got.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(message)
            return got

        async def tracked(out: Message) -> None:
            nonlocal started
            if out["type"] == "http.response.start":
                started = True
            await send(out)

        try:
            await self.app(scope, counted, tracked)
        except BodyTooLarge:
            if started:
                raise
            await PlainTextResponse(message, status_code=413)(scope, receive, send)
