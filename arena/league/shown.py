"""What an author is shown of their submission: paths relative to their own folder, never the
server's.

A submission is built in ``store/.incoming-*/tree/`` and checked in ``store/<digest>/``, both
under the league directory; a compiler's error, a traceback in the check's stderr or a
sandbox's refusal names files by those absolute paths. Before a reason is stored, and before
the build and check logs are kept, each such prefix is cut (``/srv/league/store/ab12.../bot.py``
-> ``bot.py``), and what is left of the league's own path too (``bots/x/try-3/check.log`` ->
the name an author knows). Only the prefixes are rewritten, never the rest of a line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

from arena.bots.store import DIGEST_CHARS, INCOMING_PREFIX

_STORED: Final = re.compile(
    r"(?:[^\s'\"(\[=:]*/)?store/(?:[0-9a-f]{" + str(DIGEST_CHARS) + r"}|"
    + re.escape(INCOMING_PREFIX) + r"[^/\s'\"]+/tree)(?:/|(?=[\s'\":,)\]]|$))")
"""A path into a league's store, up to and including the stored folder (any league's: a
path the bot's sandbox shows is the same path)."""


def for_author(text: str, league_root: Path) -> str:
    """``text`` with every store path made relative to the bot's folder (``.`` for the folder
    itself) and the league's own path left out."""
    text = _STORED.sub(lambda m: "" if m.group(0).endswith("/") else ".", text)
    for root in sorted({str(league_root), os.path.abspath(league_root),
                        os.path.realpath(league_root)}, key=len, reverse=True):
        text = text.replace(root.rstrip("/") + "/", "").replace(root, ".")
    return text


def rewrite_for_author(path: Path, league_root: Path) -> None:
    """Rewrite the log at ``path`` (a build's or a check's, at most a few MB) as
    :func:`for_author` shows it; a missing log is left missing."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return
    text = raw.decode("utf-8", errors="surrogateescape")
    shown = for_author(text, league_root)
    if shown != text:
        path.write_bytes(shown.encode("utf-8", errors="surrogateescape"))
