"""The league report's numbers: read from a league directory's small files, laid out as rows.

Only what a closed night left behind is read (``tally.json`` per night, ``history.jsonl``,
``version.json`` per version): never a night's journal, so the cost grows with the nights and
the pairs that met, not with the games ever played. The leaderboard is a fresh fit over the
merged tallies of the closed nights: the same games, so the same numbers, as the last
snapshot; the night still being played counts once it closes (its own report shows it live).

Everything here is plain rows (dataclasses) so the page (:mod:`reports.league_html`) and the
exports write the same values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.standings import (
    NightSummary,
    Snapshot,
    fit_tally,
    league_tally,
    read_history,
    read_summary,
)
from arena.leaguedir.versions import Version, label_sort_key, read_versions
from ratings.model import ALL_LOSSES, ALL_WINS, RatingFit
from ratings.pairwise import PairStats
from ratings.tally import Tally

CROSSTABLE_CAP: Final = 40
"""Active versions shown in the crosstable and the pentanomial table (the best rated): a
table of a hundred columns is read by nobody, and the exports hold every pair."""

MOVERS: Final = 3
"""Biggest rating changes named per night."""

BOUND_OF: Final = {ALL_WINS: "lower", ALL_LOSSES: "upper"}


@dataclass(frozen=True)
class Standing:
    """One version's line on the leaderboard (or in the retired table)."""

    rank: int
    version: str
    name: str
    number: int
    state: str
    rating: float
    error: float
    games: int
    points: float
    los_next: float
    """Likelihood (0..1) that it is stronger than the next version listed below; NaN for
    the last one or an unrated version."""
    change: float
    """Rating now minus rating in the previous snapshot; NaN when it had none there."""
    new: bool
    """No line in the previous snapshot: its first night (or it has not played yet)."""
    bound: str = ""
    """``lower``/``upper`` when the rating is only a bound (a perfect or a zero score)."""
    group: int | None = None
    """Its group (1 = best) when the results only order the versions (no common scale):
    ``rating`` is then NaN (order only) or relative to the group."""

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else math.nan


@dataclass(frozen=True)
class VersionStep:
    """A bot's later version against its previous one: is ``newer`` better than ``older``?"""

    newer: str
    older: str
    meeting: PairStats | None
    """Their games against each other, from ``newer``'s side; None if they never met."""
    fit_los: float
    """Likelihood that ``newer`` is stronger, from the fit over every game (NaN if either is
    unrated): it uses their games against everyone else too."""
    fit_diff: float
    """Rating difference in the fit (``newer`` minus ``older``)."""


@dataclass(frozen=True)
class BotVersions:
    """Every played version of one bot, side by side."""

    name: str
    versions: list[Standing]
    steps: list[VersionStep]


@dataclass(frozen=True)
class NightRow:
    """One night in the per-night table."""

    night: str
    closed: bool
    games: int
    faults: dict[str, int]
    movers: list[tuple[str, float]]
    """(version, change vs the previous snapshot), biggest first."""
    new_versions: list[str]
    report: Path | None
    """The night's own report, relative to the league directory, when it was built."""
    pgn: Path | None


@dataclass(frozen=True)
class HistoryPoint:
    """One version's rating after one night (one row of ``history.csv``)."""

    night: str
    version: str
    rating: float | None
    error: float | None
    games: int


@dataclass
class LeagueData:
    """Everything the league report shows, read once."""

    league: LeagueDir
    versions: list[Version]
    history: list[Snapshot]
    summaries: list[NightSummary]
    nights: list[str]
    tally: Tally
    fit: RatingFit | None
    leaderboard: list[Standing]
    retired: list[Standing]
    bots: list[BotVersions]
    night_rows: list[NightRow]
    points: list[HistoryPoint]
    head_to_head: dict[tuple[str, str], PairStats]
    notes: list[str] = field(default_factory=list)

    @property
    def closed_games(self) -> int:
        return sum(s.games for s in self.summaries)

    def pair(self, a: str, b: str) -> PairStats | None:
        """``a``'s record against ``b`` over every closed night, None if they never met."""
        stats = self.head_to_head.get((a, b))
        if stats is not None:
            return stats
        stats = self.head_to_head.get((b, a))
        return stats.flipped() if stats is not None else None

    def rejected(self) -> list[Version]:
        return [v for v in self.versions if v.state == "rejected"]

    def pending(self) -> list[Version]:
        return [v for v in self.versions if v.state == "pending"]

    def crosstable_players(self) -> list[str]:
        """The active versions with games, best first, at most :data:`CROSSTABLE_CAP`."""
        return [s.version for s in self.leaderboard if s.games][:CROSSTABLE_CAP]

    def pairs(self, players: list[str]) -> list[PairStats]:
        """Every pair of ``players`` that met, from the better-ranked side, in rank order."""
        out = []
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                stats = self.pair(a, b)
                if stats is not None:
                    out.append(stats)
        return out


def read_league(root: Path, fit: RatingFit | None = None) -> LeagueData:
    """Read the league at ``root`` and compute every table of its report; ``fit`` is the fit
    over every closed night when the caller made it already (it is made here otherwise)."""
    league = LeagueDir(Path(root))
    versions = read_versions(league)
    history = read_history(league)
    nights = league.night_names()
    summaries = [s for s in (read_summary(league, n) for n in nights) if s is not None]
    merged = league_tally(summaries)
    if fit is None and merged.games:
        fit = fit_tally(merged)
    last_closed = summaries[-1].night if summaries else None
    previous = _previous_snapshot(history, last_closed)
    by_label = {v.label: v for v in versions}

    ranked = _standings(fit, previous)
    played = {s.version for s in ranked}
    # Versions in the fit but not in the registry (a hand-made league) count as active.
    active = [s for s in ranked if by_label.get(s.version) is None
              or by_label[s.version].state == "active"]
    waiting = [v for v in versions if v.state == "active" and v.label not in played]
    leaderboard = _with_los(active, fit) + [
        _unplayed(v, len(active) + k + 1) for k, v in enumerate(waiting)]
    retired = [replace(s, rank=k, state="retired") for k, s in enumerate(
        (s for s in ranked if s.version in by_label and by_label[s.version].state == "retired"),
        start=1)]

    data = LeagueData(
        league=league, versions=versions, history=history, summaries=summaries, nights=nights,
        tally=merged, fit=fit, leaderboard=leaderboard, retired=retired, bots=[],
        night_rows=[], points=_points(history), head_to_head=merged.head_to_head(),
    )
    data.bots = _bot_versions(data, ranked)
    data.night_rows = _night_rows(league, nights, summaries, history)
    if fit is not None:
        data.notes.extend(fit.notes)
    if history and last_closed is not None and history[-1].night != last_closed:
        data.notes.append(
            f"night {last_closed} is closed but history.jsonl has no snapshot of it yet: "
            "the leaderboard's changes compare with the last snapshot there is")
    return data


def _previous_snapshot(history: list[Snapshot], last_closed: str | None) -> Snapshot | None:
    """The snapshot before the latest closed night's: what "change" and "new" compare with."""
    earlier = [s for s in history if s.night != last_closed]
    return earlier[-1] if earlier else None


def _standings(fit: RatingFit | None, previous: Snapshot | None) -> list[Standing]:
    """Every rated player in fit order (LOS filled in later, per table)."""
    if fit is None:
        return []
    before = {r.player: r.rating for r in previous.players} if previous else {}
    out = []
    for rank, i in enumerate(fit.order(), start=1):
        label = fit.players[i]
        name, number = label_sort_key(label)
        rating = float(fit.ratings[i])
        old = before.get(label)
        group = fit.group(i)
        out.append(Standing(
            rank=rank, version=label, name=name, number=number, state="active",
            rating=rating, error=float(fit.errors[i]), games=int(fit.played[i]),
            points=float(fit.points[i]), los_next=math.nan,
            change=rating - old if old is not None and not math.isnan(rating)
            and group is None else math.nan,
            new=label not in before, bound=BOUND_OF.get(fit.marks[i], ""), group=group,
        ))
    return out


def _with_los(rows: list[Standing], fit: RatingFit | None) -> list[Standing]:
    """Rank the rows 1.. and give each its LOS against the next row (the fit's LOS matrix)."""
    out = []
    for k, row in enumerate(rows):
        los = math.nan
        if fit is not None and k + 1 < len(rows):
            i, j = fit.index(row.version), fit.index(rows[k + 1].version)
            los = float(fit.los[i, j])
        out.append(replace(row, rank=k + 1, los_next=los))
    return out


def _unplayed(version: Version, rank: int) -> Standing:
    return Standing(rank, version.label, version.name, version.number, version.state,
                    math.nan, math.nan, 0, 0.0, math.nan, math.nan, True)


def _bot_versions(data: LeagueData, ranked: list[Standing]) -> list[BotVersions]:
    """Bots with two or more played versions: each version, and each against the one before."""
    by_bot: dict[str, list[Standing]] = {}
    state = {v.label: v.state for v in data.versions}
    for s in ranked:
        by_bot.setdefault(s.name, []).append(replace(s, state=state.get(s.version, "active")))
    out = []
    for name in sorted(by_bot):
        rows = sorted(by_bot[name], key=lambda s: s.number)
        if len(rows) < 2:
            continue
        steps = []
        for older, newer in zip(rows, rows[1:], strict=False):
            los = diff = math.nan
            if data.fit is not None:
                i, j = data.fit.index(newer.version), data.fit.index(older.version)
                los = float(data.fit.los[i, j])
                diff = float(data.fit.ratings[i] - data.fit.ratings[j])
            steps.append(VersionStep(newer.version, older.version,
                                     data.pair(newer.version, older.version), los, diff))
        out.append(BotVersions(name, rows, steps))
    return out


def _night_rows(league: LeagueDir, nights: list[str], summaries: list[NightSummary],
                history: list[Snapshot]) -> list[NightRow]:
    """One row per night, newest first."""
    summary = {s.night: s for s in summaries}
    snap_at = {s.night: k for k, s in enumerate(history)}
    rows = []
    for night in nights:
        s = summary.get(night)
        movers: list[tuple[str, float]] = []
        new: list[str] = []
        k = snap_at.get(night)
        if k is not None:
            now = {r.player: r.rating for r in history[k].players}
            before = ({r.player: r.rating for r in history[k - 1].players} if k else {})
            new = sorted((p for p in now if p not in before), key=label_sort_key)
            changes = [(p, r - old) for p, r in now.items()
                       if r is not None and (old := before.get(p)) is not None]
            changes.sort(key=lambda pc: -abs(pc[1]))
            movers = changes[:MOVERS]
        run = league.night(night)
        report = run.report_page if run.report_page.is_file() else None
        pgn = run.pgn if run.pgn.is_file() else None
        rows.append(NightRow(
            night, s is not None, s.games if s else 0, dict(s.faults) if s else {}, movers,
            new, report.relative_to(league.root) if report else None,
            pgn.relative_to(league.root) if pgn else None))
    rows.reverse()
    return rows


def _points(history: list[Snapshot]) -> list[HistoryPoint]:
    return [HistoryPoint(s.night, r.player, r.rating, r.error, r.games)
            for s in history for r in s.players]
