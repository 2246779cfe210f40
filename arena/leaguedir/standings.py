"""The league's ratings: one Bayesian fit over every game of every night, each version a
player (a new version's prior centred on its previous version), the verdict on each new version
against its parent, and the snapshot of every rating stored after each night.

A closed night is read once: its games are folded into a :class:`NightSummary` (``tally.json``:
the counts the fit needs, the pentanomial pairs, faults and game lengths), which nothing can
change afterwards. The fit then costs the pairs that met, not the games ever played. The
snapshots (``history.jsonl``) are appended when a night closes and never recomputed: a chart of
history shows what the league said that morning.

The fit is :mod:`ratings.bayes`'s, never the maximum-likelihood one: a league must show a
number and an interval for every version after every night, also when the results alone only
order the versions (a young league's unbeaten tier). Where a distance rests on the prior rather
than on games the version is marked (:data:`ratings.model.ON_PRIOR`) and its interval is wide.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

import msgspec

from arena.atomicfile import write_atomic
from arena.leaguedir.directory import LeagueDir
from arena.say import Say
from ratings.pairwise import PairStats, Pentanomial
from ratings.prior import Prior, version_parents
from ratings.sources import GameResult, record_result
from ratings.tally import Tally, merge, tally
from referee.record import BOT_FAULTS, P1_POINTS, GameRecord

if TYPE_CHECKING:
    from ratings.model import RatingFit
    from ratings.verdict import Verdict, VerdictSettings

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
    """One version's line in a snapshot. ``rating`` and ``error`` are numbers in every
    snapshot this arena writes (None only in a history written before the Bayesian fit)."""

    player: str
    rating: float | None
    error: float | None
    games: int
    points: float
    mark: str = ""
    """The fit's mark (:data:`ratings.model.ON_PRIOR`: the rating rests on the prior;
    :data:`ratings.model.PRIOR_ONLY`: no games yet), empty for a plain estimate."""
    regression: str = ""
    """Why the version is flagged as a regression (empty when it is not): decided worse than
    its parent, or its rating fell below the interval it had the night before."""


class ParentTest(msgspec.Struct, omit_defaults=True):
    """A new version's verdict against its parent as a snapshot stores it."""

    version: str
    parent: str
    outcome: str
    """:class:`ratings.verdict.Outcome`'s value: ``better``, ``not better``, ``undecided``."""
    llr: float
    games: int
    text: str
    """The verdict in words (:meth:`ratings.verdict.Verdict.describe`)."""
    closed: bool = False
    worse: bool = False


class Snapshot(msgspec.Struct, omit_defaults=True):
    """The ratings of every version the morning after ``night`` (``history.jsonl``)."""

    night: str
    closed_at: float
    night_games: int
    total_games: int
    players: list[Rated]
    confidence: float = 0.95
    tests: list[ParentTest] = []
    """The verdict of every version that has a parent among the rated ones."""


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


def league_prior(players: Sequence[str]) -> Prior:
    """The league's prior: the default widths (:mod:`ratings.prior`), each ``NAME@N``
    centred on its previous version among ``players``."""
    return Prior(parents=version_parents(players))


def fit_tally(all_games: Tally, players: Sequence[str] = ()) -> RatingFit:
    """The league's fit (:mod:`ratings.bayes`) over a merged tally: every version of the
    tally and of ``players`` (a version without games gets its parent's rating, or the
    pool's, and its prior's interval)."""
    from ratings import fit_ratings

    counts = all_games.counts(players)
    return fit_ratings(counts, prior=league_prior(counts.players))


def night_pairs(meetings: Iterable[Mapping[tuple[str, str], PairStats]], version: str,
                parent: str) -> list[Pentanomial]:
    """The colour pairs of ``version`` against ``parent`` in each night's head to head
    (:meth:`ratings.tally.Tally.head_to_head`, oldest first), from ``version``'s point of
    view: the verdict's input."""
    out = []
    for stats in meetings:
        if (version, parent) in stats:
            out.append(stats[version, parent].penta)
        elif (parent, version) in stats:
            out.append(stats[parent, version].flipped().penta)
        else:
            out.append(Pentanomial())
    return out


def league_verdicts(tallies: Sequence[Tally], players: Sequence[str],
                    settings: VerdictSettings | None = None) -> dict[str, tuple[str, Verdict]]:
    """Every version of ``players`` with a parent among them: ``{version: (parent,
    verdict)}`` from the nights' ``tallies`` (oldest first; the night still being played
    may be the last)."""
    from ratings.verdict import parent_verdict

    parents = version_parents(players)
    if not parents:
        return {}
    meetings = [t.head_to_head() for t in tallies]
    return {child: (parent, parent_verdict(night_pairs(meetings, child, parent), settings))
            for child, parent in parents.items()}


def parent_test(version: str, parent: str, verdict: Verdict) -> ParentTest:
    return ParentTest(version, parent, str(verdict.outcome), round(verdict.llr, 3),
                      verdict.games, verdict.describe(), verdict.closed, verdict.worse)


def league_tally(summaries: Iterable[NightSummary]) -> Tally:
    return merge(s.tally for s in summaries)


def snapshot(night: str, fit: RatingFit | None, night_games: int, total: int,
             verdicts: dict[str, tuple[str, Verdict]] | None = None,
             previous: Snapshot | None = None) -> Snapshot:
    """Every version's rating, interval, games and points after ``night``, best first, its
    mark and regression flag, and the verdicts of the new versions against their parents.
    ``previous``: the snapshot of the night before (what a fall is measured against)."""
    players: list[Rated] = []
    tests = [parent_test(child, parent, v) for child, (parent, v) in (verdicts or {}).items()]
    worse = {t.version: t for t in tests if t.worse}
    before = {r.player: r for r in previous.players} if previous is not None else {}
    if fit is not None:
        for i in fit.order():
            label = fit.players[i]
            r, e = float(fit.ratings[i]), float(fit.errors[i])
            rating = None if math.isnan(r) else round(r, 2)
            error = None if math.isnan(e) else round(e, 2)
            players.append(Rated(label, rating, error, int(fit.played[i]),
                                 float(fit.points[i]), fit.marks[i],
                                 regression(rating, before.get(label), worse.get(label))))
    return Snapshot(night, time.time(), night_games, total, players,
                    fit.confidence if fit is not None else 0.95, tests)


def regression(rating: float | None, before: Rated | None, test: ParentTest | None) -> str:
    """Why a version is flagged as a regression: decided worse than its parent, or its
    rating now below the interval it had in the snapshot before; empty when neither."""
    if test is not None:
        return f"worse than {test.parent}"
    if (rating is not None and before is not None and before.rating is not None
            and before.error is not None and rating < before.rating - before.error):
        return (f"fell below last night's interval ({rating:+.1f} < {before.rating:+.1f} "
                f"- {before.error:.1f})")
    return ""


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
