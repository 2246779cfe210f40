"""The league's authors (``authors.json``): who may submit over the web, by token, and which
bot names each one owns.

A token is shown once, when the author is added, and only its SHA-256 is stored: tokens are
32 random bytes (:func:`secrets.token_urlsafe`), so a fast hash suffices (nobody guesses
2^256), and a stolen ``authors.json`` gives no way in. A lookup compares every stored hash in
constant time (:func:`hmac.compare_digest`).

A bot name belongs to the author whose version of it was accepted first. An author's
submission of a name not theirs leaves a claim in the file (taken by :func:`claim_bot`,
called by :func:`arena.league.submit.submit` under the league's lock, so two first
submissions of one name cannot both win). While its version is pending the claim holds the
name for them; accepted, the name becomes theirs; rejected, the name is free again: a
rejected upload takes no name from anybody. The claim of a rejected version is kept only
while it is the newest version of a free name, so that its author still finds it on their
page (and reads its logs) until another author takes the name.

A name whose versions are all rejected (garbage uploads to an earlier arena, which gave the
name at once) belongs to nobody: every reader here sees the file settled against the versions
(:func:`settled`), and every write of it (a claim, a submission's end, an author added or
revoked) stores it so. A bot the league's owner submitted without ``--author`` (or for a name
that is not a registered author's) has no owner: only the owner submits to it, until its
versions are all rejected. A revoked author can no longer log in; the bots stay theirs (their
history is theirs too).

The file is small (one line per author and per bot) and rewritten whole, atomically, under
the league's lock.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

import msgspec

from arena.atomicfile import write_atomic
from arena.errors import UserError
from arena.league.lock import league_lock
from arena.leaguedir.directory import NAME_PATTERN, LeagueDir
from arena.leaguedir.versions import Version, parse_label, read_versions


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
    """Bot name -> the author who owns it (a version of theirs was accepted)."""
    claims: dict[str, str] = {}
    """Version (``NAME@N``) -> the author who submitted it, for a name not theirs: while the
    version is pending, it holds the name for them; rejected, it holds nothing and is kept
    only while it is the newest version of a free name."""


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


def settled(file: AuthorsFile, versions: list[Version]) -> AuthorsFile:
    """``file`` as the versions make it now. A name none of whose versions is alive
    (pending, active or retired) is owned by nobody. A claim whose version was accepted makes
    the name its author's; one still pending is kept; one whose version was rejected is kept
    only while that version is the newest of a name nobody holds; one whose version was never
    written (a crash between the two) is dropped."""
    by_label = {v.label: v for v in versions}
    alive = {v.name for v in versions if v.state != "rejected"}
    newest = {v.name: v.label for v in versions}  # read in order of number
    bots = {bot: author for bot, author in file.bots.items() if bot in alive}
    claims: dict[str, str] = {}
    for label, author in file.claims.items():
        version = by_label.get(label)
        if version is None:
            continue
        if version.state == "pending":
            claims[label] = author
        elif version.state != "rejected":
            bots.setdefault(version.name, author)
    held = {parse_label(label)[0] for label in claims} | set(bots)
    for label, author in file.claims.items():
        version = by_label.get(label)
        if version is not None and version.state == "rejected" and version.name not in held \
                and newest[version.name] == label:
            claims[label] = author
    return AuthorsFile(authors=file.authors, bots=bots, claims=claims)


def _holders(file: AuthorsFile, versions: list[Version]) -> dict[str, str]:
    """Bot name -> the author who holds it, owned or claimed by a pending version (``file``
    settled: two authors never hold one name)."""
    pending = {v.label for v in versions if v.state == "pending"}
    held = {parse_label(label)[0]: author for label, author in file.claims.items()
            if label in pending}
    return {**held, **file.bots}


def _owners(file: AuthorsFile, versions: list[Version]) -> dict[str, str]:
    """Bot name -> the author whose bot it is on their page: its holder, else the author
    whose rejected version is the newest of the free name."""
    tried = {parse_label(label)[0]: author for label, author in file.claims.items()}
    return {**tried, **_holders(file, versions)}


def _write(league: LeagueDir, file: AuthorsFile) -> None:
    """Write the file, settled (call under the league's lock)."""
    _store(league, settled(file, read_versions(league)))


def _store(league: LeagueDir, file: AuthorsFile) -> None:
    write_atomic(league.authors, msgspec.json.format(msgspec.json.encode(file)) + b"\n",
                 mode=0o600)  # token hashes: the league's owner's only


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
    """The author whose bot ``bot`` is (:func:`_owners`): who reads its logs, or None."""
    versions = read_versions(league)
    return _owners(settled(read_authors(league), versions), versions).get(bot)


def may_submit(league: LeagueDir, bot: str, author: str) -> str | None:
    """Why ``author`` may not submit a version of ``bot`` (one line), None when they may.
    Only a registered author is checked: an ``--author`` that names nobody registered is a
    label the league's owner gave a submission, not a claim."""
    versions = read_versions(league)
    return _refusal(settled(read_authors(league), versions), versions, bot, author)


def _refusal(file: AuthorsFile, versions: list[Version], bot: str, author: str) -> str | None:
    if not any(a.name == author for a in file.authors):
        return None
    holder = _holders(file, versions).get(bot)
    if holder == author:
        return None
    if holder is not None:
        how = "" if bot in file.bots else " (a submission of theirs is pending)"
        return (f"bot {bot!r} belongs to author {holder!r}{how}: an author submits versions "
                "of their own bots only; choose another name")
    if any(v.name == bot and v.state != "rejected" for v in versions):
        return (f"bot {bot!r} was submitted by the league's owner, not by an author: choose "
                "another name")
    return None


def claim_bot(league: LeagueDir, bot: str, number: int, author: str | None) -> None:
    """Note that ``author`` submits version ``number`` of ``bot`` (a claim, when the name is
    not theirs yet), or raise :class:`UserError` saying whose it is (:func:`may_submit`);
    ``author`` None (the league's owner submits) claims nothing. Settles the file either
    way, before the version is written: a pending version of the owner's must not hand a
    name back to an author whose versions of it were all rejected. Call under the league's
    lock, just before the version is written."""
    versions = read_versions(league)
    file = read_authors(league)
    now = settled(file, versions)
    if author is not None:
        refused = _refusal(now, versions, bot, author)
        if refused is not None:
            raise UserError(refused)
        if any(a.name == author for a in now.authors) and now.bots.get(bot) != author:
            now.claims[f"{bot}@{number}"] = author
    if now != file:
        _store(league, now)  # as it is: the claimed version is not written yet


def settle_claims(league: LeagueDir) -> None:
    """Store the file as the versions make it now (a version was just accepted or
    rejected). Call under the league's lock."""
    file = read_authors(league)
    now = settled(file, read_versions(league))
    if now != file:
        _store(league, now)


def bots_of(league: LeagueDir, author: str) -> list[str]:
    """The bot names on ``author``'s page (:func:`owner_of` is them), sorted."""
    versions = read_versions(league)
    owners = _owners(settled(read_authors(league), versions), versions)
    return sorted(bot for bot, owner in owners.items() if owner == author)


def names_of(league: LeagueDir, author: str) -> tuple[list[str], list[str], list[str]]:
    """``author``'s names by what they hold: (owned, held by a pending version ``NAME@N``,
    free: the newest version ``NAME@N`` theirs and rejected), each sorted."""
    versions = read_versions(league)
    file = settled(read_authors(league), versions)
    pending = {v.label for v in versions if v.state == "pending"}
    owned = sorted(bot for bot, owner in file.bots.items() if owner == author)
    mine = sorted(label for label, owner in file.claims.items() if owner == author)
    return owned, [c for c in mine if c in pending], [c for c in mine if c not in pending]
