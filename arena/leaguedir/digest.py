"""What a closed night says, version by version: the one message behind the authors' Atom
feeds and the league's webhook.

Read from what the night's closing stored, never from its journal: the night's folded games
(``tally.json``: each version's wins, draws and losses that night, and the games it lost on
its own fault) and the ratings snapshot of that morning (``history.jsonl``), which holds, for
a version with a parent (its bot's previous version), the verdict of its test against that
parent over every closed night up to this one, as the close decided it with the league's
``[league.verdict]`` bounds. So a digest of night N says the same on any later day.
"""

from __future__ import annotations

import math

import msgspec

from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.standings import NightSummary, Snapshot, read_history, read_summary
from arena.leaguedir.versions import Version, read_versions


class VersionNight(msgspec.Struct, omit_defaults=True):
    """One version's night."""

    version: str
    author: str = ""
    games: int = 0
    """Its games that night."""
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    """Games it lost on its own fault that night (crash, time forfeit, illegal move...)."""
    rating: float | None = None
    """Its rating the morning after (None: no finite rating yet)."""
    error: float | None = None
    total_games: int = 0
    """Its games over every night so far."""
    verdict: str = ""
    """Its test against its parent, in one line (``better (LLR ...)``); empty without a
    parent or before they met."""


class NightDigest(msgspec.Struct, omit_defaults=True):
    """A closed night, as the webhook posts it and the feeds show it."""

    league: str
    night: str
    closed_at: float
    games: int
    versions: list[VersionNight] = []
    """Every version rated that morning, best rating first (unrated ones last)."""


def night_digest(league: LeagueDir, night: str) -> NightDigest | None:
    """The digest of ``night``, None while it is open (no tally or no snapshot yet)."""
    summary = read_summary(league, night)
    history = read_history(league)
    snap = next((s for s in history if s.night == night), None)
    if summary is None or snap is None:
        return None
    versions = {v.label: v for v in read_versions(league)}
    rows = [_row(rated.player, versions.get(rated.player), summary, snap)
            for rated in snap.players]
    rows.sort(key=lambda r: (r.rating is None, -(r.rating or 0.0), r.version))
    return NightDigest(league=league.root.resolve().name, night=night,
                       closed_at=snap.closed_at, games=summary.games, versions=rows)


def digests(league: LeagueDir) -> list[NightDigest]:
    """Every closed night's digest, newest first."""
    found = [night_digest(league, name) for name in reversed(league.night_names())]
    return [d for d in found if d is not None]


def _row(label: str, version: Version | None, summary: NightSummary,
         snap: Snapshot) -> VersionNight:
    rated = next(r for r in snap.players if r.player == label)
    wins = draws = losses = 0
    tally = summary.tally
    for first, second, w, d, lo in tally.cells:
        if tally.players[first] == label:
            wins, draws, losses = wins + w, draws + d, losses + lo
        elif tally.players[second] == label:
            wins, draws, losses = wins + lo, draws + d, losses + w
    return VersionNight(
        version=label, author=version.author if version is not None else "",
        games=wins + draws + losses, wins=wins, draws=draws, losses=losses,
        faults=summary.faults_by_player.get(label, 0), rating=_finite(rated.rating),
        error=_finite(rated.error), total_games=rated.games,
        verdict=next((t.text for t in snap.tests if t.version == label), ""))


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, 1)
