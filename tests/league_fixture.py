"""A small league built on disk by hand, as the nightly runner would leave it, for the league
report's tests (content and browser).

Two closed nights of real games (random legal dobutsu moves played by the rules,
:mod:`bench.synthetic`), each with its journal, its tally, its own run report and a rating
snapshot, and a third night just begun. Versions: ``alpha@1`` and ``alpha@2`` (new on night
two), ``beta@1``, ``gamma@1`` (played night one, then retired) and a rejected ``delta@1`` whose
reason holds markup. The expectations are the journals' records themselves.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from arena.leaguedir.directory import LEAGUE_FILE, NIGHT_FILE, LeagueDir
from arena.leaguedir.standings import (
    append_snapshot,
    fit_tally,
    league_tally,
    snapshot,
    summarise,
    write_summary,
)
from arena.leaguedir.versions import State, Version, write_version
from bench.synthetic import BotProfile, round_robin, write_journal
from referee.record import GameRecord, decode_record

NIGHTS = {
    "2026-03-01": (("alpha@1", "beta@1", "gamma@1"), 6, 3),
    "2026-03-02": (("alpha@1", "alpha@2", "beta@1"), 8, 4),
}
"""Night -> (players, games per pairing, seed)."""
OPEN_NIGHT = "2026-03-03"
EVIL_REASON = '<script>alert("x")</script> build failed & exited 2'


@dataclass
class League:
    root: Path
    records: dict[str, list[GameRecord]]
    """Night -> its journal, decoded."""

    def all_records(self) -> list[GameRecord]:
        return [r for night in self.records.values() for r in night]

    def games_of(self, version: str) -> int:
        return sum(1 for r in self.all_records() if version in (r.p1, r.p2))

    def wdl(self, player: str, opponent: str) -> tuple[int, int, int]:
        """``player``'s wins, draws and losses against ``opponent``, from the journals."""
        out: Counter[str] = Counter()
        for r in self.all_records():
            if {r.p1, r.p2} != {player, opponent} or r.result == "*":
                continue
            if r.winner is None:
                out["d"] += 1
            else:
                won = (r.p1 if r.winner == 0 else r.p2) == player
                out["w" if won else "l"] += 1
        return out["w"], out["d"], out["l"]


def make_league(root: Path, night_reports: bool = True) -> League:
    """Write the league under ``root``; with ``night_reports`` each night's run report too."""
    league = LeagueDir(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / LEAGUE_FILE).write_text('game = "dobutsu"\n')
    t0 = 1_772_000_000.0
    states: tuple[tuple[str, State], ...] = (
        ("alpha@1", "active"), ("beta@1", "active"), ("gamma@1", "retired"),
        ("alpha@2", "active"), ("delta@1", "rejected"))
    for k, (label, state) in enumerate(states):
        name, number = label.split("@")
        write_version(league, Version(
            name, int(number), ["./bot"], submitted_at=t0 + k * 3600, state=state,
            author=f"{name}'s <author>", step="build" if state == "rejected" else "",
            reason=EVIL_REASON if state == "rejected" else
            ("replaced by a better one" if state == "retired" else "")))
    records: dict[str, list[GameRecord]] = {}
    summaries = []
    total = 0
    for night, (players, per_pairing, seed) in NIGHTS.items():
        run = league.night(night)
        run.root.mkdir(parents=True)
        (run.root / NIGHT_FILE).write_text(json.dumps({"night": night}) + "\n")
        bots = tuple(BotProfile(p, mean_ms=5.0, fault_rate=0.01 if p == "beta@1" else 0.0)
                     for p in players)
        write_journal(run.root, round_robin("dobutsu", bots, games_per_pairing=per_pairing,
                                            seed=seed, max_plies=40))
        records[night] = [decode_record(line) for line in run.journal.read_bytes().splitlines()
                          if line.strip()]
        summary = summarise(night, records[night], players)
        write_summary(league, summary)
        summaries.append(summary)
        total += summary.games
        append_snapshot(league, snapshot(night, fit_tally(league_tally(summaries)),
                                         summary.games, total))
        if night_reports:
            from reports.html import build_report

            build_report(run.root)
    open_night = league.night(OPEN_NIGHT)
    open_night.root.mkdir(parents=True)
    (open_night.root / NIGHT_FILE).write_text(json.dumps({"night": OPEN_NIGHT}) + "\n")
    return League(root, records)
