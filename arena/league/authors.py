"""The league's authors (``authors.json``): who may submit over the web, by token, and which
bot names each one owns.

A token is shown once, when the author is added, and only its SHA-256 is stored: tokens are
32 random bytes (:func:`secrets.token_urlsafe`), so a fast hash suffices (nobody guesses
2^256), and a stolen ``authors.json`` gives no way in. A lookup compares every stored hash in
constant time (:func:`hmac.compare_digest`).

A bot name belongs to the author who first submitted it (:func:`claim_bot`, called by
:func:`arena.league.submit.submit` under the league's lock, so two first submissions of one
name cannot both win). A bot the league's owner submitted without ``--author`` (or for a name
that is not a registered author's) has no owner: only the owner submits to it. A revoked
author can no longer log in; the bots stay theirs (their history is theirs too).

The file is small (one line per author and per bot) and rewritten whole, atomically, under
the league's lock.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time

import msgspec

from arena.errors import UserError
from arena.league.layout import NAME_PATTERN, LeagueDir
from arena.league.lock import league_lock
from arena.league.versions import next_number


class Author(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One author: a name and the hash of their token."""

    name: str
    token_sha256: str
    added_at: float
    revoked_at: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class AuthorsFile(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The whole of ``authors.json``."""

    authors: list[Author] = []
    bots: dict[str, str] = {}
    """Bot name -> the author who owns it."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def read_authors(league: LeagueDir) -> AuthorsFile:
    """The file, or an empty one when the league has no authors yet."""
    try:
        raw = league.authors.read_bytes()
    except FileNotFoundError:
        return AuthorsFile()
    try:
        return msgspec.json.decode(raw, type=AuthorsFile)
    except msgspec.DecodeError as exc:
        raise UserError(f"{league.authors}: not a valid authors file: {exc}") from None


def _write(league: LeagueDir, file: AuthorsFile) -> None:
    tmp = league.authors.with_name(league.authors.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(msgspec.json.format(msgspec.json.encode(file)) + b"\n")
    os.replace(tmp, league.authors)


def add_author(league: LeagueDir, name: str) -> str:
    """Register ``name`` and return their new token (shown once, never stored)."""
    if not NAME_PATTERN.fullmatch(name):
        raise UserError(f"author name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-', "
                        "starting with a letter or digit")
    token = secrets.token_urlsafe(32)
    with league_lock(league):
        file = read_authors(league)
        if any(a.name == name for a in file.authors):
            raise UserError(f"author {name!r} exists already (arena league author list); "
                            "revoke them first to give them a new token")
        file.authors.append(Author(name=name, token_sha256=token_hash(token),
                                   added_at=time.time()))
        _write(league, file)
    return token


def revoke_author(league: LeagueDir, name: str) -> Author:
    """Revoke ``name``'s token; their bots stay theirs. Revoking again is an error."""
    with league_lock(league):
        file = read_authors(league)
        found = next((a for a in file.authors if a.name == name), None)
        if found is None:
            known = ", ".join(a.name for a in file.authors) or "none"
            raise UserError(f"no author named {name!r} (authors: {known})")
        if not found.active:
            raise UserError(f"author {name!r} is revoked already")
        found.revoked_at = time.time()
        _write(league, file)
        return found


def author_of_token(league: LeagueDir, token: str) -> str | None:
    """The active author whose token this is, or None. Every stored hash is compared (in
    constant time), so the answer's timing says nothing about which one matched."""
    if not token:
        return None
    wanted = token_hash(token).encode()
    found = None
    for author in read_authors(league).authors:
        if hmac.compare_digest(author.token_sha256.encode(), wanted) and author.active:
            found = author.name
    return found


def owner_of(league: LeagueDir, bot: str) -> str | None:
    return read_authors(league).bots.get(bot)


def may_submit(league: LeagueDir, bot: str, author: str) -> str | None:
    """Why ``author`` may not submit a version of ``bot`` (one line), None when they may.
    Only a registered author is checked: an ``--author`` that names nobody registered is a
    label the league's owner gave a submission, not a claim."""
    file = read_authors(league)
    if not any(a.name == author for a in file.authors):
        return None
    owner = file.bots.get(bot)
    if owner == author:
        return None
    if owner is not None:
        return (f"bot {bot!r} belongs to author {owner!r}: an author submits versions of "
                "their own bots only; choose another name")
    if next_number(league, bot) > 1:
        return (f"bot {bot!r} was submitted by the league's owner, not by an author: choose "
                "another name")
    return None


def claim_bot(league: LeagueDir, bot: str, author: str) -> None:
    """Make ``author`` the owner of ``bot`` if nobody is, or raise :class:`UserError` saying
    whose it is (:func:`may_submit`). Call under the league's lock."""
    refused = may_submit(league, bot, author)
    if refused is not None:
        raise UserError(refused)
    file = read_authors(league)
    if any(a.name == author for a in file.authors) and bot not in file.bots:
        file.bots[bot] = author
        _write(league, file)


def bots_of(league: LeagueDir, author: str) -> list[str]:
    """The bot names ``author`` owns, sorted."""
    return sorted(bot for bot, owner in read_authors(league).bots.items() if owner == author)
