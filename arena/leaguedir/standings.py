"""The league's ratings: one maximum-likelihood fit over every game of every night, each
version a player, and the snapshot of every rating stored after each night.

A closed night is read once: its games are folded into a :class:`NightSummary` (``tally.json``:
the counts the fit needs, the pentanomial pairs, faults and game lengths), which nothing can
change afterwards. The fit then costs the pairs that met, not the games ever played. The
snapshots (``history.jsonl``) are appended when a night closes and never recomputed: a chart of
history shows what the league said that morning.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

import msgspec

from arena.atomicfile import write_atomic
from arena.leaguedir.directory import LeagueDir
from arena.say import Say
from ratings.sources import GameResult, record_result
from ratings.tally import Tally, merge, tally
from referee.record import BOT_FAULTS, P1_POINTS, GameRecord

if TYPE_CHECKING:
    from ratings.model import RatingFit, SeparatedMethod

MAX_DURATIONS: Final = 1000
"""Game lengths a night keeps (an even sample when it played more): enough for the quantile
that keeps the deadline."""


class NightSummary(msgspec.Struct, omit_defaults=True):
    """What a night played, folded (``nights/<night>/tally.json``)."""

    night: str
    tally: Tally
    games: int
    faults: dict[str, int] = {}
    """Games lost on a bot's fault, by kind (``crash``, ``time-forfeit``...)."""
    faults_by_player: dict[str, int] = {}
    durations: list[float] = []
    """Wall-clock lengths of its games in seconds, sorted (a sample of at most
    :data:`MAX_DURATIONS`)."""
    started_at: float = 0.0
    ended_at: float = 0.0


class Rated(msgspec.Struct, array_like=True):
    """One version's line in a snapshot."""

    player: str
    rating: float | None
    error: float | None
    games: int
    points: float


class Snapshot(msgspec.Struct, omit_defaults=True):
    """The ratings of every version the morning after ``night`` (``history.jsonl``)."""

    night: str
    closed_at: float
    night_games: int
    total_games: int
    players: list[Rated]
    confidence: float = 0.95


class Played(Protocol):
    """A game as a night folds it: a journal's summary of one (:mod:`reports.journal_summary`,
    what the night's closing has read already), with the colour pair it belongs to."""

    id: str
    p1: str
    p2: str
    result: str
    termination: str
    winner: int | None
    started_at: float
    ended_at: float
    pair: str | None


def _result(game: GameRecord | Played) -> GameResult | None:
    if isinstance(game, GameRecord):
        return record_result(game, game.id)
    score = P1_POINTS.get(game.result)
    return None if score is None else GameResult(game.p1, game.p2, score, game.pair, game.id)


def summarise(night: str, records: Iterable[GameRecord] | Iterable[Played],
              players: Sequence[str] = ()) -> NightSummary:
    """Fold one night's games (its journal's records, or their summaries) into its summary."""
    results = []
    faults: Counter[str] = Counter()
    by_player: Counter[str] = Counter()
    durations: list[float] = []
    started, ended = math.inf, 0.0
    for record in records:
        result = _result(record)
        if result is None:
            continue
        results.append(result)
        if record.termination in BOT_FAULTS:
            faults[str(record.termination)] += 1
            loser = record.p2 if record.winner == 1 else record.p1
            by_player[loser] += 1
        if record.ended_at and record.started_at:
            durations.append(record.ended_at - record.started_at)
            started = min(started, record.started_at)
            ended = max(ended, record.ended_at)
    durations.sort()
    if len(durations) > MAX_DURATIONS:
        step = len(durations) / MAX_DURATIONS
        durations = [durations[int(i * step)] for i in range(MAX_DURATIONS)]
    return NightSummary(
        night, tally(results, players), len(results), dict(faults), dict(by_player),
        durations, 0.0 if started == math.inf else started, ended)


def write_summary(league: LeagueDir, summary: NightSummary) -> None:
    path = league.tally(summary.night)
    write_atomic(path, msgspec.json.encode(summary))


def read_summary(league: LeagueDir, night: str) -> NightSummary | None:
    """A closed night's summary, None for a night still open."""
    path = league.tally(night)
    if not path.is_file():
        return None
    return msgspec.json.decode(path.read_bytes(), type=NightSummary)


def fit_tally(all_games: Tally, separated: SeparatedMethod = "order") -> RatingFit:
    """The Ordo-style fit (:func:`ratings.fit_ratings`) over a merged tally. Results that
    only order the versions are shown as such (``"order"``, for snapshots and the report);
    the planner asks for ``"prior"``, a number for every version whatever the results."""
    from ratings import fit_ratings

    return fit_ratings(all_games.counts(), separated=separated)


def league_tally(summaries: Iterable[NightSummary]) -> Tally:
    return merge(s.tally for s in summaries)


def snapshot(night: str, fit: RatingFit | None, night_games: int, total: int) -> Snapshot:
    """Every rated version's rating, error, games and points after ``night``. A version the
    results only place in an order (no rating on the league's one scale) is kept without a
    rating: the history of ratings is one scale from night to night."""
    players: list[Rated] = []
    if fit is not None:
        for i in fit.order():
            r, e = float(fit.ratings[i]), float(fit.errors[i])
            if fit.group(i) is not None:  # results that only order: no rating on the scale
                r = e = math.nan
            players.append(Rated(fit.players[i], None if math.isnan(r) else round(r, 2),
                                 None if math.isnan(e) else round(e, 2), int(fit.played[i]),
                                 float(fit.points[i])))
    return Snapshot(night, time.time(), night_games, total, players,
                    fit.confidence if fit is not None else 0.95)


def append_snapshot(league: LeagueDir, snap: Snapshot) -> None:
    """Add a night's snapshot to ``history.jsonl`` (fsync'd: it is never recomputed)."""
    line = msgspec.json.encode(snap) + b"\n"
    fd = os.open(league.history, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_history(league: LeagueDir) -> list[Snapshot]:
    """Every night's snapshot, oldest first; a torn last line (a crash while appending) is
    left out."""
    return read_history_file(league.history)


def read_history_file(path: Path) -> list[Snapshot]:
    if not path.is_file():
        return []
    out: list[Snapshot] = []
    decoder = msgspec.json.Decoder(Snapshot)
    for line in path.read_bytes().split(b"\n"):
        if line.strip():
            try:
                out.append(decoder.decode(line))
            except msgspec.DecodeError:
                continue  # only a torn final line can be undecodable: it is re-appended
    return out


def all_games(league: LeagueDir, warn: Say | None = None) -> Tally:
    """Every game of the league: the closed nights' tallies and the open nights' journals
    (a night being played is read as far as it has gone)."""
    from arena.rundir.results import read_results

    parts: list[Tally] = []
    for name in league.night_names():
        summary = read_summary(league, name)
        if summary is not None:
            parts.append(summary.tally)
        elif league.night(name).journal.is_file():
            parts.append(tally(read_results(league.night(name).root, warn)))
    return merge(parts)
