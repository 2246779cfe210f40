"""The league's webhook (``[league] webhook = URL``): one JSON POST after each night closes.

The message is the night's :class:`~arena.leaguedir.digest.NightDigest` (its ratings, each
version's results and faults that night, verdicts against parents), with ``"event":
"night-closed"``. It is sent once, from the command that closed the night, after the night's
files are safe: a receiver that is down, slow (more than :data:`TIMEOUT_S`) or answers an error
costs a warning line, never the night. Nothing is retried: a receiver that missed a night
finds it in the authors' feeds and the league's export.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Final

import msgspec

from arena.leaguedir.digest import NightDigest, night_digest
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import LeagueSettings
from arena.say import Say

TIMEOUT_S: Final = 10.0
EVENT: Final = "night-closed"


class NightClosed(msgspec.Struct, omit_defaults=True, tag_field="event", tag=EVENT):
    """The message: the night's digest under ``event``."""

    digest: NightDigest


def message(digest: NightDigest) -> bytes:
    return msgspec.json.encode(NightClosed(digest))


def notify_night(league: LeagueDir, settings: LeagueSettings, night: str, say: Say,
                 warn: Say) -> bool:
    """POST the digest of ``night`` to the league's webhook, if it has one; whether a
    message was delivered (2xx)."""
    url = settings.policy.webhook
    if not url:
        return False
    digest = night_digest(league, night)
    if digest is None:
        return False
    request = urllib.request.Request(url, data=message(digest), method="POST", headers={
        "Content-Type": "application/json", "User-Agent": "arena-league-webhook"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            status = answer.status
    except (urllib.error.URLError, OSError, ValueError) as exc:
        warn(f"webhook {url}: night {night} not delivered: {exc}")
        return False
    say(f"arena: webhook: night {night} sent to {url} ({status})")
    return True
