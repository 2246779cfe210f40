"""The tables of a format played in rounds: a knockout's bracket (round by round, match scores,
who went on) and a Swiss tournament's standings with their tie-break columns and its pairings.

The rounds are rebuilt from the config and the journal's results by the same pure functions
that scheduled them (:func:`arena.formats.schedule.progression`), so the report shows the bracket
the games were played from, byes included (a bye is no game and is in no journal).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from arena.formats.knockout import match_result, round_name
from arena.formats.meetings import Progression
from arena.formats.schedule import progression
from arena.formats.swiss import standings
from arena.settings.config import Config
from ratings.sources import first_mover_points
from reports.journal_summary import JournalSummary

PLAYING = "playing"
"""What a match or pairing not finished yet shows instead of a result."""


def _points(value: float) -> str:
    return f"{value:g}"


def first_mover_results(games: pd.DataFrame | JournalSummary) -> dict[str, float]:
    """Each finished game's points for its first mover, by game id: what the rounds of a
    knockout or Swiss tournament are rebuilt from (from the report's game table, or from the
    journal's summary itself)."""
    if isinstance(games, JournalSummary):
        pairs = [(g.id, g.result) for g in games.games]
    else:
        pairs = list(zip(games["id"], games["result"], strict=True))
    points = {game_id: first_mover_points(result) for game_id, result in pairs}
    return {game_id: value for game_id, value in points.items() if value is not None}


def knockout_frame(config: Config, results: Mapping[str, float]) -> pd.DataFrame:
    """One row per match and bye, round by round: who met, the score, who went on."""
    state = progression(config, results)
    seed = {name: i + 1 for i, name in enumerate(config.seeding())}
    total = _rounds_total(config, state)
    rows = []
    for rnd in state.rounds:
        name = round_name(rnd.number, total)
        for m in rnd.meetings:
            outcome, _ = match_result(m, results, config.games_per_pairing,
                                      config.tiebreak_pairs)
            if outcome.winner is None:
                advances = PLAYING
            else:
                advances = outcome.winner + (" (on seed)" if outcome.on_seed else "")
            rows.append({
                "round": name, "match": m.key,
                "bot": f"{m.first} (#{seed[m.first]})",
                "score": f"{_points(outcome.first_points)}-{_points(outcome.second_points)}",
                "opponent": f"{m.second} (#{seed[m.second]})",
                "games": f"{outcome.played}/{m.games}", "advances": advances,
            })
        for bye in rnd.byes:
            rows.append({"round": name, "match": "bye", "bot": f"{bye} (#{seed[bye]})",
                         "score": "", "opponent": "", "games": "", "advances": bye})
    return pd.DataFrame(rows, columns=["round", "match", "bot", "score", "opponent", "games",
                                       "advances"])


def _rounds_total(config: Config, state: Progression) -> int:
    from arena.formats.knockout import rounds_in

    return rounds_in(len(config.bots)) if config.bots else len(state.rounds)


def champion(config: Config, results: Mapping[str, float]) -> str | None:
    """The knockout's winner, None while it is not over."""
    state = progression(config, results)
    if not state.final or not state.rounds or not state.rounds[-1].winners:
        return None
    return state.rounds[-1].winners[0]


def swiss_frames(config: Config, results: Mapping[str, float]
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(standings with the tie-break columns, pairings round by round)."""
    state = progression(config, results)
    names = config.seeding()
    rows = standings(names, state, config.games_per_pairing, config.bye_points, results)
    table = pd.DataFrame(
        [{"rank": i, "bot": r.name, "score": _points(r.score),
          "Buchholz": _points(r.buchholz), "Sonneborn-Berger": _points(r.sonneborn_berger),
          "direct": "" if r.direct is None else _points(r.direct), "wins": r.wins,
          "games": r.games, "byes": r.byes, "seed": r.seed}
         for i, r in enumerate(rows, start=1)],
        columns=["rank", "bot", "score", "Buchholz", "Sonneborn-Berger", "direct", "wins",
                 "games", "byes", "seed"])
    pairing_rows = []
    for rnd in state.rounds:
        for m in rnd.meetings:
            a, b, played = m.points(results)
            pairing_rows.append({
                "round": rnd.number, "board": m.pairing, "first": m.first,
                "score": (f"{_points(a)}-{_points(b)}" if played == m.games
                          else f"{PLAYING} ({played}/{m.games})"),
                "second": m.second})
        for bye in rnd.byes:
            pairing_rows.append({"round": rnd.number, "board": "bye", "first": bye,
                                 "score": _points(config.bye_points * config.games_per_pairing),
                                 "second": ""})
    pairings = pd.DataFrame(pairing_rows, columns=["round", "board", "first", "score", "second"])
    return table, pairings


def rounds_text(config: Config, results: Mapping[str, float]) -> str | None:
    """The bracket or the Swiss standings as plain text; None for the other formats."""
    if config.format == "knockout":
        frame = knockout_frame(config, results)
        winner = champion(config, results)
        head = f"knockout: {winner} wins" if winner else "knockout: in progress"
        return f"{head}\n{frame.to_string(index=False)}"
    if config.format == "swiss":
        table, _ = swiss_frames(config, results)
        state = progression(config, results)
        head = (f"swiss, {config.rounds} rounds" + ("" if state.final else
                f" (round {len(state.rounds)} in progress)"))
        return (f"{head}; ties broken by Buchholz, Sonneborn-Berger, direct encounter, wins, "
                f"seed\n{table.to_string(index=False)}")
    return None
