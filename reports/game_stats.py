"""The statistics blocks game sites show bot authors, per run: how games went, and for games
played as rounds of parties (Donkan) how the points were scored.

* :func:`game_statistics`: per game type, games played, wins and draws, first-player wins
  against second-player wins, and moves (plies) per game: mean, longest, shortest.
* :func:`partie_endings` and :func:`partie_points`: Donkan's points by kind, read from the
  partie records each game record keeps (:class:`referee.games.rounds.PartieRecord`): how many
  parties ended by a king captured (1 point), a king on the castle (2 points), a repetition
  or the ply cap (no point), and each bot's points by kind.

Counted over the finished games (``*``, an interrupted game, is replayed on resume and counts
nowhere). :func:`stats_text` lays the blocks out as text, for ``arena report --text``.
"""

from __future__ import annotations

import pandas as pd

from reports.journal_summary import JournalSummary
from reports.tables import DECISIVE_OR_DRAWN, finished

GAME_COLUMNS = [
    "game", "games", "wins", "draws", "1st-player wins", "2nd-player wins", "mean plies",
    "longest", "shortest",
]

SCORING = ("king", "castle")
"""Partie endings that score (Donkan: a king captured, 1 point; the castle, 2 points)."""
NO_SCORE = ("repetition", "ply-cap")
"""Partie endings without a point (Donkan's draw rules)."""

ENDING_COLUMNS = ["ending", "parties", "points", "won by its first mover", "mean plies"]
POINT_COLUMNS = ["bot", "points", "king points", "castle points", "parties won",
                 "parties lost", "parties without a point"]


def game_statistics(games: pd.DataFrame) -> pd.DataFrame:
    """Per game type: games played, wins (decisive games) and draws, first- and second-player
    wins, and game length in plies (mean, longest, shortest)."""
    rows = []
    for name, part in finished(games).groupby("game", sort=True):
        plies = part["plies"]
        first = int((part["result"] == "1-0").sum())
        second = int((part["result"] == "0-1").sum())
        rows.append({
            "game": name,
            "games": len(part),
            "wins": first + second,
            "draws": int((part["result"] == "1/2-1/2").sum()),
            "1st-player wins": first,
            "2nd-player wins": second,
            "mean plies": round(float(plies.mean()), 1),
            "longest": int(plies.max()),
            "shortest": int(plies.min()),
        })
    return pd.DataFrame(rows, columns=GAME_COLUMNS)


PARTIE_FIELDS = ["p1", "p2", "starter", "winner", "points", "reason", "plies"]


def _parties(journal: JournalSummary, game: str
             ) -> list[tuple[str, str, int, int, int, str, int]]:
    """(p1, p2, starter, winner or -1, points, reason, plies) of every partie of the finished
    games of ``game`` (:data:`PARTIE_FIELDS`)."""
    out = []
    for g in journal.games:
        if g.game != game or g.result not in DECISIVE_OR_DRAWN:
            continue
        for p in g.parties:
            out.append((g.p1, g.p2, p.starter, -1 if p.winner is None else p.winner,
                        p.points, p.reason, p.plies))
    return out


def partie_games(journal: JournalSummary) -> list[str]:
    """The game types of the run whose finished games recorded parties (Donkan)."""
    return sorted({g.game for g in journal.games
                   if g.parties and g.result in DECISIVE_OR_DRAWN})


def partie_endings(journal: JournalSummary, game: str) -> pd.DataFrame:
    """Per way a partie ended: parties, points scored, how many the partie's first mover won,
    mean plies. Scoring endings first (king, castle), then those without a point, then any
    other reason a record names; an ending no partie had is left out."""
    frame = pd.DataFrame(_parties(journal, game), columns=PARTIE_FIELDS)
    known = [*SCORING, *NO_SCORE]
    reasons = [r for r in known if r in set(frame["reason"])]
    reasons += sorted(set(frame["reason"]) - set(known))
    rows = []
    for reason in reasons:
        part = frame[frame["reason"] == reason]
        rows.append({
            "ending": reason,
            "parties": len(part),
            "points": int(part["points"].sum()),
            "won by its first mover": int((part["winner"] == part["starter"]).sum()),
            "mean plies": round(float(part["plies"].mean()), 1),
        })
    return pd.DataFrame(rows, columns=ENDING_COLUMNS)


def partie_points(journal: JournalSummary, game: str, order: list[str]) -> pd.DataFrame:
    """Per bot (in ``order``, the standings'): points scored, split into king captures and
    castles, and parties won, lost and without a point."""
    table = {bot: dict.fromkeys(POINT_COLUMNS[1:], 0) for bot in order}
    for p1, p2, _, winner, points, reason, _ in _parties(journal, game):
        players = (p1, p2)
        for side, bot in enumerate(players):
            row = table.setdefault(bot, dict.fromkeys(POINT_COLUMNS[1:], 0))
            if winner < 0:
                row["parties without a point"] += 1
            elif winner == side:
                row["parties won"] += 1
                row["points"] += points
                if reason in SCORING:
                    row[f"{reason} points"] += points
            else:
                row["parties lost"] += 1
    frame = pd.DataFrame([{"bot": bot, **row} for bot, row in table.items()],
                         columns=POINT_COLUMNS)
    return frame.set_index("bot")


def stats_text(games: pd.DataFrame, journal: JournalSummary, order: list[str]) -> str:
    """The blocks as text: one per game type of the run, then Donkan's points by kind."""
    lines: list[str] = []
    for row in game_statistics(games).itertuples(index=False):
        values = dict(zip(GAME_COLUMNS, row, strict=True))
        lines += [
            f"Games: {values['game']}",
            f"  games played            {values['games']}",
            f"  wins / draws            {values['wins']} / {values['draws']}",
            f"  first-player wins       {values['1st-player wins']}",
            f"  second-player wins      {values['2nd-player wins']}",
            f"  moves (plies) per game  mean {values['mean plies']:g}, "
            f"max {values['longest']}, min {values['shortest']}",
            "",
        ]
    if not lines:
        lines = ["Games: no finished games yet", ""]
    for game in partie_games(journal):
        endings = partie_endings(journal, game)
        total = int(endings["parties"].sum())
        lines.append(f"Parties of {game}: {total} parties, points by kind")
        lines += ["  " + line for line in endings.to_string(index=False).splitlines()]
        lines.append("")
        lines += ["  " + line for line in partie_points(journal, game, order).reset_index()
                  .to_string(index=False).splitlines()]
        lines.append("")
    return "\n".join(lines)
