"""``arena league author add|list|revoke``: who may submit bots to a league over the web.

``add`` prints the new author's token once (only its hash is kept, in ``authors.json``): give
it to them; they log in with it on ``arena serve DIR --submissions``. ``list`` shows each
author's bots (names a version of theirs was accepted for), the submissions still pending
that hold a name for them, and their rejected ones whose name is free for anyone
(:mod:`arena.league.authors`). ``revoke`` ends a token
(the author's bots stay theirs); to give an author a new token, revoke, then add them again
under a new name.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from arena.commands.league_bots import _league
from arena.league.authors import add_author, names_of, read_authors, revoke_author


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "author", help="add, list or revoke the authors who submit bots over the web",
        description="Who may submit bots to a league over the web (arena serve DIR "
        "--submissions): add prints an author's token once, list shows them, revoke ends a "
        "token.")
    inner = parser.add_subparsers(dest="author_command", metavar="ACTION", required=True)
    add = inner.add_parser("add", help="add an author and print their token (once)")
    add.add_argument("dir", type=Path, metavar="DIR")
    add.add_argument("name", metavar="NAME")
    add.set_defaults(func=run_add)
    listing = inner.add_parser("list", help="the authors, their state and their bots")
    listing.add_argument("dir", type=Path, metavar="DIR")
    listing.set_defaults(func=run_list)
    revoke = inner.add_parser("revoke", help="end an author's token (their bots stay theirs)")
    revoke.add_argument("dir", type=Path, metavar="DIR")
    revoke.add_argument("name", metavar="NAME")
    revoke.set_defaults(func=run_revoke)


def run_add(args: argparse.Namespace) -> int:
    token = add_author(_league(args.dir), args.name)
    print(f"author {args.name} added; their token (shown once, keep it secret):")
    print(token)
    return 0


def run_list(args: argparse.Namespace) -> int:
    league = _league(args.dir)
    authors = read_authors(league).authors
    if not authors:
        print("no authors yet: arena league author add DIR NAME")
        return 0
    for a in authors:
        added = datetime.datetime.fromtimestamp(a.added_at).strftime("%Y-%m-%d %H:%M")
        state = "active" if a.active else "revoked"
        owned, pending, rejected = names_of(league, a.name)
        line = f"{a.name}  {state}  added {added}  bots: {', '.join(owned) or '-'}"
        if pending:
            line += f"  pending: {', '.join(pending)}"
        if rejected:
            line += f"  rejected (the name is free): {', '.join(rejected)}"
        sys.stdout.write(line + "\n")
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    revoke_author(_league(args.dir), args.name)
    print(f"author {args.name}: token revoked")
    return 0
