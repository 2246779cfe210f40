"""Retiring versions: the league's owner retires any (``arena league retire``), an author only
their own (``--author`` on the command line, the retire button of their web page).

A retired version plays no more games; its games and rating stay in the history. What may be
retired is checked under the league's lock, against the versions as they are then, so two
retirements (or a retirement and an acceptance) never cross.
"""

from __future__ import annotations

import time

import msgspec

from arena.errors import UserError
from arena.league.authors import owner_of
from arena.league.lock import league_lock
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.versions import Version, parse_label, read_versions, write_version


class NotYours(UserError):
    """An author asked to retire a version that is not theirs (the web answers 403)."""


def retire(league: LeagueDir, label: str, reason: str = "",
           author: str | None = None) -> list[Version]:
    """Retire ``NAME@N``, or every active version of ``NAME``; ``author`` (None: the league's
    owner) may retire only versions of a bot they own that they submitted themselves, else
    :class:`NotYours`. An unknown name or number, or a version that is not active, is a
    :class:`UserError`."""
    try:
        name, number = parse_label(label)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    with league_lock(league):
        versions = [v for v in read_versions(league) if v.name == name]
        if not versions:
            known = sorted({v.name for v in read_versions(league)})
            raise UserError(f"no bot named {name!r} in the league"
                            + (f" (bots: {', '.join(known)})" if known else ""))
        if author is not None:
            owner = owner_of(league, name)
            if owner != author:
                whose = f"author {owner!r}" if owner else "the league's owner"
                raise NotYours(f"{label} belongs to {whose}, not to you ({author}): an author "
                               "retires only versions of their own bots")
        numbered = [v for v in versions if v.number]
        if number is None:
            chosen = [v for v in numbered if v.state == "active"]
            if not chosen:
                raise UserError(f"{name} has no active version to retire")
        else:
            chosen = [v for v in numbered if v.number == number]
            if not chosen:
                raise UserError(f"{name}@{number}: no such version (versions: "
                                f"{', '.join(str(v.number) for v in numbered) or 'none'})")
            if chosen[0].state != "active":
                raise UserError(f"{name}@{number} is {chosen[0].state}, not active: only an "
                                "active version can be retired")
        if author is not None:
            foreign = [v.label for v in chosen if v.author != author]
            if foreign:
                raise NotYours(f"{', '.join(foreign)}: not submitted by you ({author}): an "
                               "author retires only their own versions")
        done = [msgspec.structs.replace(v, state="retired", retired_at=time.time(),
                                        reason=reason) for v in chosen]
        for v in done:
            write_version(league, v)
    return done
