"""The caps on what the referee keeps of a bot's words, so that its memory and the journal stay
bounded whatever a bot prints.

A line may be up to 1 MiB (:data:`protocol.lines.MAX_LINE_BYTES`), and a bot may send one on
every move: kept whole, a 200,000-move ``pv`` on each move of ten games is hundreds of MB of
journal and GBs of referee memory. Everything a bot says that outlives the line it came in
(search info, identity, option declarations, text quoted in a game's reason) is cut to the caps
below when it is parsed or recorded, and the cut is noted (``... (N more chars)``, a count of
the ``pv`` moves left out, a count of the option declarations ignored). SPEC.md lists the caps
for bot authors; they are generous for any honest bot.
"""

from __future__ import annotations

from typing import Final

MAX_PV_MOVES: Final = 32
"""``pv`` moves kept of one ``info`` line; the others are counted (``Info.pv_more``)."""
MAX_MOVE_CHARS: Final = 64
"""Longest move text kept in a ``pv`` (a longer one ends the kept pv) or quoted in a reason."""
MAX_INFO_STRING_CHARS: Final = 256
"""Characters kept of an ``info string``."""
MAX_ID_CHARS: Final = 128
"""Characters kept of ``id name`` and ``id author``."""
MAX_OPTIONS: Final = 256
"""Option declarations kept per bot; later new names are counted and ignored."""
MAX_OPTION_NAME_CHARS: Final = 128
"""Longest option name; a declaration with a longer one is malformed."""
MAX_OPTION_VALUE_CHARS: Final = 256
"""Characters kept of an option's ``default`` and of each ``var``."""
MAX_OPTION_VARS: Final = 64
"""``var`` values kept of one combo option."""
MAX_REASON_CHARS: Final = 1000
"""Characters kept of a game record's ``reason`` (it may quote bot output or an argv)."""
MAX_TRANSCRIPT_LINE_CHARS: Final = 1000
"""Characters of one line written to a debug transcript (``debug = true``)."""
MAX_TRANSCRIPT_BYTES: Final = 16 << 20
"""Bytes one bot's lines may take in one debug transcript file; later lines are counted."""
MAX_STDERR_LOG_BYTES: Final = 1 << 20
"""Bytes of a bot's stderr written to its log per process; the rest is counted, not kept."""


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters plus a note of how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more chars)"
