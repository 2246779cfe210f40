"""The referee's and the bots' delays per move (:mod:`referee.latency`), per bot and per
referee process, for the report.

A game keeps each side's median, 99th percentile and maximum; over many games a table shows,
per bot, the median of the games' medians, the highest of their 99th percentiles and the
highest maximum (percentiles of percentiles are no exact percentile of all moves, but they
show a slow bot or a busy referee as plainly). Per referee process it is the same over both
sides of its games. Journals from before the delays were measured give no table. The wait for
a thinking slot (:mod:`referee.thinkslots`) has its columns only when some game waited for one,
and the time bots waited for a CPU, credited to their clocks (:mod:`referee.process.schedstat`),
only when some game measured it (a game on a clock).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from referee.latency import Spread

if TYPE_CHECKING:
    import pandas as pd

    from reports.journal_summary import JournalSummary

KINDS = ("turnaround", "first_line", "unreported", "slot_wait", "cpu_wait")
"""The delays, in the order of the columns."""
HEADERS = {"turnaround": "referee", "first_line": "to first line", "unreported": "unreported",
           "slot_wait": "slot wait", "cpu_wait": "CPU wait"}
"""Column headings (``referee``: the referee's own time before the ``go``; ``slot wait``: the
game's wait for a thinking slot before it; ``CPU wait``: the bot's wait for a CPU during the
move, not charged to its clock)."""
OPTIONAL = ("slot_wait", "cpu_wait")
"""Delays shown only when some game of the journal has them (a run without think slots
gating its moves has no wait to show)."""
MAIN = "main"
"""The runner's own process, which referees the games of a run without ``--referees`` or
a cluster (a game's ``worker`` names the others)."""


def _columns(spreads: dict[str, list[Spread]], kinds: Iterable[str]) -> dict[str, object]:
    row: dict[str, object] = {}
    for kind in kinds:
        found = spreads.get(kind, [])
        head = HEADERS[kind]
        row[f"{head} p50 ms"] = (round(statistics.median(s.p50_ms for s in found), 2)
                                 if found else None)
        row[f"{head} p99 ms"] = round(max(s.p99_ms for s in found), 2) if found else None
        row[f"{head} max ms"] = round(max(s.max_ms for s in found), 2) if found else None
    return row


def _table(groups: dict[str, dict[str, list[Spread]]], games: dict[str, int], label: str
           ) -> pd.DataFrame:
    import pandas as pd

    kinds = [kind for kind in KINDS
             if kind not in OPTIONAL or any(group.get(kind) for group in groups.values())]
    rows = [{label: name, "games": games[name], **_columns(groups[name], kinds)}
            for name in sorted(groups)]
    return pd.DataFrame(rows).set_index(label)


def latency_tables(journal: JournalSummary) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Per bot and per referee process: games and each delay's p50/p99/max (ms); None when no
    game of the journal measured any."""
    by_bot: dict[str, dict[str, list[Spread]]] = defaultdict(lambda: defaultdict(list))
    by_referee: dict[str, dict[str, list[Spread]]] = defaultdict(lambda: defaultdict(list))
    bot_games: dict[str, int] = defaultdict(int)
    referee_games: dict[str, int] = defaultdict(int)
    for game in journal.games:
        latency = game.latency
        if latency is None:
            continue
        referee = game.worker or MAIN
        referee_games[referee] += 1
        for name, side in zip((game.p1, game.p2), latency.sides, strict=False):
            bot_games[name] += 1
            for kind, found in _spreads(side):
                by_bot[name][kind].append(found)
                by_referee[referee][kind].append(found)
    if not referee_games:
        return None
    return _table(by_bot, bot_games, "bot"), _table(by_referee, referee_games, "referee")


def _spreads(side: object) -> Iterable[tuple[str, Spread]]:
    for kind in KINDS:
        found = getattr(side, kind)
        if found is not None:
            yield kind, found
