"""``/feeds/AUTHOR.atom``: an author's Atom feed (RFC 4287), one entry per closed night in
which a version of theirs was rated: its rating that morning, its results and faults that
night, its verdict against its parent.

Built from the nights' digests (:mod:`arena.leaguedir.digest`, what the closings stored, the
same message the webhook posts) with the standard library's ElementTree, which escapes every
text: nothing of a bot's reaches the XML unescaped. What a feed shows is what the league
report shows anyone (no log, no reason of a rejection), so it needs no token: a feed reader
sends none.
"""

from __future__ import annotations

import datetime
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from typing import Final

import trio
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from arena.league.authors import read_authors
from arena.leaguedir.digest import NightDigest, VersionNight, digests
from arena.leaguedir.directory import NAME_PATTERN, LeagueDir

ATOM: Final = "http://www.w3.org/2005/Atom"
MAX_ENTRIES: Final = 60
"""Nights in a feed (the newest)."""


def _stamp(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat(
        timespec="seconds").replace("+00:00", "Z")


def line(row: VersionNight) -> str:
    """One version's night in one line."""
    rating = "no rating yet" if row.rating is None else (
        f"rated {row.rating:+.0f}" + (f" ± {row.error:.0f}" if row.error is not None else ""))
    text = (f"{row.version}: {row.games} games ({row.wins} won, {row.draws} drawn, "
            f"{row.losses} lost), {rating} after {row.total_games} games")
    if row.faults:
        text += f"; {row.faults} lost on its own fault"
    if row.verdict:
        text += f"; against its parent: {row.verdict}"
    return text


def author_feed(league: LeagueDir, author: str, base_url: str) -> bytes | None:
    """The feed of ``author`` as XML bytes, None when the league has no such author."""
    if not NAME_PATTERN.fullmatch(author) or \
            not any(a.name == author for a in read_authors(league).authors):
        return None
    nights: list[tuple[NightDigest, list[VersionNight]]] = []
    for digest in digests(league):
        mine = [row for row in digest.versions if row.author == author]
        if mine:
            nights.append((digest, mine))
        if len(nights) >= MAX_ENTRIES:
            break
    name = league.root.resolve().name
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}id").text = f"tag:arena,league:{name}:{author}"
    ET.SubElement(feed, f"{{{ATOM}}}title").text = f"{name} league: {author}'s bots"
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = _stamp(
        nights[0][0].closed_at if nights else 0.0)
    ET.SubElement(ET.SubElement(feed, f"{{{ATOM}}}author"), f"{{{ATOM}}}name").text = author
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=f"{base_url}feeds/{author}.atom")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="alternate",
                  href=f"{base_url}league/report.html")
    for digest, mine in nights:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        ET.SubElement(entry, f"{{{ATOM}}}id").text = \
            f"tag:arena,league:{name}:{author}:{digest.night}"
        ET.SubElement(entry, f"{{{ATOM}}}title").text = (
            f"night {digest.night}: " + "; ".join(
                f"{row.version} {row.wins}-{row.draws}-{row.losses}" for row in mine))
        ET.SubElement(entry, f"{{{ATOM}}}updated").text = _stamp(digest.closed_at)
        ET.SubElement(entry, f"{{{ATOM}}}link", rel="alternate",
                      href=f"{base_url}league/nights/{digest.night}/report.html")
        ET.SubElement(entry, f"{{{ATOM}}}content", type="text").text = "\n".join(
            [f"night {digest.night}: {digest.games} games in the league"]
            + [line(row) for row in mine])
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8",
                                                                     xml_declaration=False)


def feed_route(league: LeagueDir) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``/feeds/{author}.atom``."""

    async def feed(request: Request) -> Response:
        author = request.path_params["author"]
        body = await trio.to_thread.run_sync(author_feed, league, author,
                                             str(request.base_url))
        if body is None:
            return PlainTextResponse(f"no author named {author!r} in this league",
                                     status_code=404)
        return Response(body, media_type="application/atom+xml",
                        headers={"Cache-Control": "no-cache"})

    return feed
