"""The per-game viewer files ``report/games/<key>.<checksum>.js``: which to render, and caching.

A page opened from ``file://`` cannot fetch JSON, but it can add a ``<script>`` tag: each
file calls ``arenaGame(key, doc)``. The journal line's checksum is part of the file name, so a
refresh during a run renders only games it has not rendered before (or whose record changed,
e.g. an interrupted game replayed on resume) and deletes files no game points to any more.

Replaying costs the rules' ``play`` and ``board_view`` per ply (about 6 ms per 90-ply draughts
game), so a huge run gets viewers for at most
``limit`` games: first every game that ended by a bot's fault (what bot authors look at),
then the most recent games. Files rendered by earlier refreshes are kept while they match.
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.atomicfile import write_atomic
from referee.games import GameError
from referee.record import BOT_FAULTS
from reports.journal_summary import GameSummary, JournalSummary, read_records
from reports.replay import replay

GAMES_DIR = "games"

DEFAULT_VIEWER_LIMIT = 2000
"""Most games that get a viewer file; every game of a run up to this size gets one."""


def file_name(game: GameSummary) -> str:
    return f"{game.key}.{game.fingerprint}.js"


def choose(games: list[GameSummary], limit: int | None, cached: set[str]) -> list[GameSummary]:
    """The games that get a viewer: all of them when ``limit`` is None or not reached;
    otherwise those already rendered, faulty games, then the most recent ones."""
    if limit is None or len(games) <= limit:
        return list(games)
    chosen: dict[int, GameSummary] = {}
    for g in games:
        if file_name(g) in cached:
            chosen[g.index] = g
    for g in games:
        if len(chosen) >= limit:
            break
        if g.termination in BOT_FAULTS:
            chosen.setdefault(g.index, g)
    for g in reversed(games):
        if len(chosen) >= limit:
            break
        chosen.setdefault(g.index, g)
    return sorted(chosen.values(), key=lambda g: g.index)


def render_viewers(
    journal: JournalSummary, out_dir: Path, limit: int | None = DEFAULT_VIEWER_LIMIT
) -> dict[str, str]:
    """Bring ``out_dir/games`` up to date; return game key -> file name (relative to out_dir)
    for every game that has a viewer."""
    games_dir = out_dir / GAMES_DIR
    games_dir.mkdir(parents=True, exist_ok=True)
    cached = {p.name for p in games_dir.iterdir() if p.suffix == ".js"}
    chosen = choose(journal.games, limit, cached)
    todo = [g for g in chosen if file_name(g) not in cached]
    for game, rec in zip(todo, read_records(journal, todo), strict=True):
        try:
            doc = replay(rec).doc
        except (GameError, ValueError, TypeError) as exc:  # rules cannot even start from it
            doc = {"game": rec.game, "error": f"cannot replay: {exc}", "frames": [], "moves": []}
        doc["key"] = game.key
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        write_atomic(games_dir / file_name(game), f"arenaGame({json.dumps(game.key)},{text});\n")
    wanted = {file_name(g) for g in chosen}
    for name in cached - wanted:
        (games_dir / name).unlink(missing_ok=True)
    return {g.key: f"{GAMES_DIR}/{file_name(g)}" for g in chosen}
