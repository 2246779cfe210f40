"""What keeps other web pages from acting through ``arena serve``: its state-changing requests
must come from its own page.

The server listens on the person's own machine, and any page they visit may send it a
``POST`` (a form or a ``fetch`` needs no permission to be *sent*; CORS only hides the answer).
So every request that is not ``GET``/``HEAD``/``OPTIONS`` must pass two checks, or gets 403:

- its ``Origin`` (when the browser sends one, as every browser does on a ``POST``) names this
  server's ``Host``, and its ``Sec-Fetch-Site`` (where sent) is ``same-origin``;
- it carries the token of this server start in ``X-Arena-Token``. The token is made with
  :mod:`secrets` when the app is built, written into the page, and sent back by the page's
  script; another origin cannot read the page, so it cannot know the token (and a request
  with a custom header is not one a form can send). It is compared in constant time.

And every request, reads too, must name this machine in its ``Host``: an IP address,
``localhost`` or the machine's own name. Otherwise a page of another site whose name its owner
points at 127.0.0.1 (DNS rebinding) would be same-origin with this server, read the page and
its token, and send them back.

A server that authors log in to (``arena serve LEAGUE_DIR --submissions``) also takes an
``Authorization: Bearer`` token that names an author instead of the page's token: a browser
never adds that header by itself, so a page of another site cannot send it. Behind a reverse
proxy, the proxy's public name (``--origin``) counts as this machine's.

Starlette has no such middleware (its ``CORSMiddleware`` only sets response headers), and the
CSRF packages for ASGI rest on cookies and forms; a header token fits a single page that
talks ``fetch`` to a server of its own. The guard is plain ASGI, so streamed responses
(server-sent events) pass through untouched.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from collections.abc import Callable
from functools import cache
from typing import Final
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_HEADER: Final = "X-Arena-Token"
"""The request header that carries the page's token."""
TOKEN_META: Final = "arena-token"
"""The ``<meta name=...>`` that holds the token in the page."""
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing on this server, hence need no check."""


def new_token() -> str:
    """A fresh token for one server start."""
    return secrets.token_urlsafe(32)


@cache
def machine_names() -> frozenset[str]:
    """The names by which this machine may be asked for its pages, besides IP addresses."""
    return frozenset(name.lower() for name in ("localhost", socket.gethostname(),
                                               socket.getfqdn()) if name)


def names_this_machine(host: str, also: frozenset[str] = frozenset()) -> bool:
    """Whether a ``Host`` header (``name[:port]``, ``[v6]:port``) names this machine, or one
    of the names ``also`` (the public name of a reverse proxy in front of it)."""
    name = urlsplit(f"//{host}").hostname or ""
    if name in also:
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return name in machine_names() or name.endswith(".localhost")


def bearer_token(headers: Headers) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, None without one."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def refusal(method: str, headers: Headers, token: str, *,
            bearer: Callable[[str], bool] | None = None,
            hosts: frozenset[str] = frozenset()) -> str | None:
    """Why a request must be refused (a short reason for the 403), None when it may pass.
    ``bearer`` accepts an ``Authorization: Bearer`` token instead of the page's token (a
    browser never adds that header on its own, so another site cannot make it send one);
    ``hosts`` are public names this server is also reached by (behind a reverse proxy)."""
    host_header = headers.get("host", "")
    if host_header and not names_this_machine(host_header, hosts):
        return (f"Host {host_header!r} is not this machine's address or name (a guard "
                "against DNS rebinding): open the page by IP address or as localhost")
    if method in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    host = headers.get("host", "").lower()
    if origin is not None and (not host or urlsplit(origin.lower()).netloc != host):
        return f"cross-origin request (Origin {origin!r}, Host {host!r})"
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"cross-site request (Sec-Fetch-Site {site!r})"
    sent_bearer = bearer_token(headers)
    if bearer is not None and sent_bearer is not None:
        return None if bearer(sent_bearer) else "unknown or revoked Authorization: Bearer token"
    sent = headers.get(TOKEN_HEADER, "")
    if not hmac.compare_digest(sent.encode(), token.encode()):
        return f"missing or wrong {TOKEN_HEADER} (send it from this server's page)"
    return None


class SameOriginGuard:
    """ASGI middleware: answers 403 to a state-changing request that fails :func:`refusal`."""

    def __init__(self, app: ASGIApp, token: str, *,
                 bearer: Callable[[str], bool] | None = None,
                 hosts: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.token = token
        self.bearer = bearer
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            why = refusal(scope["method"], Headers(scope=scope), self.token,
                          bearer=self.bearer, hosts=self.hosts)
            if why is not None:
                response = PlainTextResponse(f"forbidden: {why}", status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
