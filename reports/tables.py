"""The report's tables as pandas frames: games, results per bot, crosstable, colours, faults, moves.

Everything here is plain counting over the journal summary; ratings (Elo, LOS) come from
:mod:`ratings` and are joined in by :mod:`reports.rating_tables`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from referee.record import BOT_FAULTS, P1_POINTS
from reports.journal_summary import JournalSummary

#: Results that count for standings (``*`` is an interrupted game, replayed on resume).
DECISIVE_OR_DRAWN = ("1-0", "0-1", "1/2-1/2")

GAME_COLUMNS = [
    "key", "id", "game", "round", "p1", "p2", "result", "winner", "termination", "reason",
    "plies", "time_control", "started_at", "ended_at", "duration_s", "opening",
    "start_position", "opening_source",
]


def games_frame(journal: JournalSummary) -> pd.DataFrame:
    """One row per journal line, in journal order (the CSV ``games.csv``)."""
    g = journal.games
    frame = pd.DataFrame(
        {
            "key": [x.key for x in g],
            "id": [x.id for x in g],
            "game": [x.game for x in g],
            "round": np.fromiter((x.round for x in g), dtype=np.int64, count=len(g)),
            "p1": [x.p1 for x in g],
            "p2": [x.p2 for x in g],
            "result": [x.result for x in g],
            "winner": pd.array([x.winner for x in g], dtype="Int64"),
            "termination": [x.termination for x in g],
            "reason": [x.reason for x in g],
            "plies": np.fromiter((x.plies for x in g), dtype=np.int64, count=len(g)),
            "time_control": [x.time_control for x in g],
            "started_at": np.fromiter((x.started_at for x in g), dtype=float, count=len(g)),
            "ended_at": np.fromiter((x.ended_at for x in g), dtype=float, count=len(g)),
            "opening": [x.opening for x in g],
            "start_position": [x.start_position for x in g],
            "opening_source": [x.opening_source for x in g],
        },
        columns=[c for c in GAME_COLUMNS if c != "duration_s"],
    )
    duration = frame["ended_at"] - frame["started_at"]
    frame.insert(
        GAME_COLUMNS.index("duration_s"),
        "duration_s",
        duration.where(frame["started_at"] > 0).round(3),
    )
    return frame


def finished(games: pd.DataFrame) -> pd.DataFrame:
    """Games with a result (interrupted ``*`` games left out)."""
    return games[games["result"].isin(DECISIVE_OR_DRAWN)]


def per_bot_results(games: pd.DataFrame) -> pd.DataFrame:
    """Long form: one row per (game, bot) with the opponent, colour and points scored."""
    done = finished(games)
    p1_points = done["result"].map(P1_POINTS)
    first = pd.DataFrame(
        {"bot": done["p1"], "opponent": done["p2"], "side": 0, "points": p1_points,
         "termination": done["termination"], "key": done["key"]}
    )
    second = pd.DataFrame(
        {"bot": done["p2"], "opponent": done["p1"], "side": 1, "points": 1.0 - p1_points,
         "termination": done["termination"], "key": done["key"]}
    )
    return pd.concat([first, second], ignore_index=True)


def wdl(games: pd.DataFrame, bots: list[str]) -> pd.DataFrame:
    """Games, wins, draws, losses, points and score % per bot (index: bot, in ``bots`` order)."""
    long = per_bot_results(games)
    grouped = long.groupby("bot")["points"]
    table = pd.DataFrame(
        {
            "games": grouped.size(),
            "wins": grouped.apply(lambda s: int((s == 1.0).sum())),
            "draws": grouped.apply(lambda s: int((s == 0.5).sum())),
            "losses": grouped.apply(lambda s: int((s == 0.0).sum())),
            "points": grouped.sum(),
        }
    ).reindex(bots, fill_value=0)
    table.index.name = "bot"
    table[["games", "wins", "draws", "losses"]] = table[
        ["games", "wins", "draws", "losses"]
    ].astype(int)
    table["points"] = table["points"].astype(float)  # no finished game: an empty object column
    with np.errstate(invalid="ignore", divide="ignore"):
        table["score_pct"] = (100.0 * table["points"] / table["games"]).round(1)
    return table


def crosstable(games: pd.DataFrame, order: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Points and games of the row bot against the column bot, both ``order`` x ``order``."""
    long = per_bot_results(games)
    points = long.pivot_table(
        index="bot", columns="opponent", values="points", aggfunc="sum", fill_value=0.0
    ).reindex(index=order, columns=order)
    count = long.pivot_table(
        index="bot", columns="opponent", values="points", aggfunc="size", fill_value=0
    ).reindex(index=order, columns=order)
    return points, count.fillna(0).astype(int)


def crosstable_display(points: pd.DataFrame, count: pd.DataFrame) -> pd.DataFrame:
    """The crosstable as text cells ``"7.5/12"``; the diagonal and unplayed pairs are blank."""
    shown = pd.DataFrame("", index=points.index, columns=points.columns, dtype=object)
    for row in points.index:
        for col in points.columns:
            n = int(count.at[row, col])
            if row != col and n:
                shown.at[row, col] = f"{points.at[row, col]:g}/{n}"
    shown.index.name = "bot"
    return shown


def colours(games: pd.DataFrame) -> pd.DataFrame:
    """Per game type: how often p1 (who moves first) won, drew, lost."""
    done = finished(games)
    rows = []
    for name, part in done.groupby("game", sort=True):
        n = len(part)
        p1 = int((part["result"] == "1-0").sum())
        p2 = int((part["result"] == "0-1").sum())
        draws = n - p1 - p2
        rows.append(
            {
                "game": name, "games": n, "p1 wins": p1, "draws": draws, "p2 wins": p2,
                "p1 score %": round(100.0 * (p1 + 0.5 * draws) / n, 1),
                "draw rate %": round(100.0 * draws / n, 1),
            }
        )
    return pd.DataFrame(rows, columns=[
        "game", "games", "p1 wins", "draws", "p2 wins", "p1 score %", "draw rate %",
    ])


OPENING_COLUMNS = [
    "opening", "source", "games", "p1 wins", "draws", "p2 wins", "p1 score", "p2 score",
    "p1 score %", "p1 low %", "p1 high %", "imbalance %", "favours",
]
OPENING_CONFIDENCE = 0.95
"""The confidence of the first mover's score interval in the openings table."""


def opening_name(moves: str, start_position: str) -> str:
    """An opening as a person reads it: its moves (``b2b3 b4a3``), the position it starts
    from when that is not the game's start (an EPD book's), both when it has both."""
    if start_position and moves:
        return f"{start_position}, then {moves}"
    return moves or start_position or "start position"


def _source(tag: str) -> str:
    """Where an opening came from, for its column: a book's ``FILE:LINE``, ``random``."""
    return "random" if tag.startswith("random:") else tag


def _natural(column: pd.Series) -> pd.Series:
    """A sort key that puts ``book.pgn:22`` before ``book.pgn:141`` (numbers by value)."""
    if pd.api.types.is_numeric_dtype(column):
        return column
    return column.map(lambda text: re.sub(r"\d+", lambda m: m[0].zfill(12), str(text)))


def openings(games: pd.DataFrame) -> pd.DataFrame:
    """Per opening played: its moves, where it came from (``book.pgn:12``), and how p1 (who
    moves first from the game's start) and p2 scored from it, most unbalanced first.

    Each opening is played by colour-swapped pairs, so a sound one gives each side about
    half the points whoever plays it. ``p1 low %``/``p1 high %`` bound p1's score % (the
    Wilson interval at :data:`OPENING_CONFIDENCE`, draws as half points, as ``arena
    openings prune`` counts them): with a handful of games even a sound opening can look
    lopsided, and the interval says how far that goes. ``imbalance %`` is the difference
    between the two sides' score % (0: even, 100: one side won every game), the user's way
    to spot a broken opening. Ties keep the better-sampled opening first.

    Openings are told apart by the runner's ``opening`` tag (a book's line, the random
    plies), else by their moves or start position."""
    from arena.openings.scoring import FirstMover

    done = finished(games)
    rows = []
    for tag, part in done.groupby("opening_source", sort=True):
        first = part.iloc[0]
        results = FirstMover(wins=int((part["result"] == "1-0").sum()),
                             draws=int((part["result"] == "1/2-1/2").sum()),
                             losses=int((part["result"] == "0-1").sum()))
        n = results.games
        share = 100.0 * results.points / n
        low, high = results.interval(OPENING_CONFIDENCE)
        name = opening_name(str(first["opening"]), str(first["start_position"]))
        source = _source(str(tag))
        rows.append({
            "opening": name, "source": "" if source == name else source, "games": n,
            "p1 wins": results.wins, "draws": results.draws, "p2 wins": results.losses,
            "p1 score": results.points, "p2 score": n - results.points,
            "p1 score %": round(share, 1), "p1 low %": round(100 * low, 1),
            "p1 high %": round(100 * high, 1),
            "imbalance %": round(abs(2 * share - 100.0), 1),
            "favours": "p1" if share > 50 else ("p2" if share < 50 else ""),
        })
    table = pd.DataFrame(rows, columns=OPENING_COLUMNS)
    if len(table):
        table = table.sort_values(["imbalance %", "games", "source", "opening"],
                                  ascending=[False, False, True, True], kind="stable",
                                  key=_natural)
    return table.reset_index(drop=True)


def terminations(games: pd.DataFrame, bots: list[str]) -> pd.DataFrame:
    """Per bot: games lost by each fault (time forfeit, illegal move, crash...), plus how the
    bot's other games ended. The loser of a faulty game is its culprit."""
    long = per_bot_results(games)
    lost = long[long["points"] == 0.0]
    table = pd.DataFrame(index=pd.Index(bots, name="bot"))
    for fault in BOT_FAULTS:
        counts = lost[lost["termination"] == fault].groupby("bot").size()
        table[fault] = counts.reindex(bots, fill_value=0).astype(int)
    table["faults"] = table[list(BOT_FAULTS)].sum(axis=1)
    for kind in ("normal", "adjudication", "resignation"):
        counts = long[long["termination"] == kind].groupby("bot").size()
        if kind == "resignation" and counts.empty:
            continue  # only a human seat resigns: no column in a tournament of bots
        table[kind] = counts.reindex(bots, fill_value=0).astype(int)
    interrupted = games[games["result"] == "*"]
    counts = pd.concat([interrupted["p1"], interrupted["p2"]]).value_counts()
    table["interrupted"] = counts.reindex(bots, fill_value=0).astype(int)
    table["games"] = long.groupby("bot").size().reindex(bots, fill_value=0).astype(int)
    return table


@dataclass(frozen=True)
class BotMoves:
    """One bot's per-move columns (book moves left out); NaN where not reported."""

    ms: np.ndarray
    depth: np.ndarray
    """Only the moves that reported a depth."""
    nodes: np.ndarray
    """Only the moves that reported a node count."""


def moves_by_bot(journal: JournalSummary) -> dict[str, BotMoves]:
    """Split the flat per-move columns by bot with numpy masks (bots are few, moves many)."""
    m = journal.moves
    out: dict[str, BotMoves] = {}
    if not len(m.bot):
        return {b: BotMoves(np.empty(0), np.empty(0), np.empty(0)) for b in journal.bots}
    codes = np.frombuffer(m.bot, dtype=np.int16)
    ms = np.frombuffer(m.elapsed_ms, dtype=np.float32)
    depth = np.frombuffer(m.depth, dtype=np.float32)
    nodes = np.frombuffer(m.nodes, dtype=np.float32)
    for i, bot in enumerate(journal.bots):
        mask = codes == i
        d, n = depth[mask], nodes[mask]
        out[bot] = BotMoves(ms[mask], d[~np.isnan(d)], n[~np.isnan(n)])
    return out


def move_stats(by_bot: dict[str, BotMoves]) -> pd.DataFrame:
    """Per bot: moves made, time per move (mean, median, 95th percentile, max, ms), and the
    search depth and nodes where the bot reported them."""
    rows = []
    for bot, mv in by_bot.items():
        timed = len(mv.ms) > 0
        p50, p95 = np.percentile(mv.ms, [50, 95]) if timed else (math.nan, math.nan)
        rows.append(
            {
                "bot": bot,
                "moves": len(mv.ms),
                "mean ms": round(float(mv.ms.mean(dtype=np.float64)), 1) if timed else math.nan,
                "median ms": round(float(p50), 1),
                "p95 ms": round(float(p95), 1),
                "max ms": round(float(mv.ms.max()), 1) if timed else math.nan,
                "depth reported": len(mv.depth),
                "mean depth": round(float(mv.depth.mean(dtype=np.float64)), 1)
                if len(mv.depth) else math.nan,
                "max depth": int(mv.depth.max()) if len(mv.depth) else None,
                "mean nodes": int(round(float(mv.nodes.mean(dtype=np.float64))))
                if len(mv.nodes) else None,
            }
        )
    table = pd.DataFrame(rows, columns=[
        "bot", "moves", "mean ms", "median ms", "p95 ms", "max ms", "depth reported",
        "mean depth", "max depth", "mean nodes",
    ]).set_index("bot")
    for column in ("max depth", "mean nodes"):
        table[column] = table[column].astype("Int64")
    return table
