"""The knockout format: the seeded bracket, each round's matches, and who goes on.

The bots are seeded in config order (the first is seed 1), or as the config's ``seeds`` list
says. The bracket has room for the next
power of two; the places left empty are byes, and the standard seeding puts them against the
top seeds (seed 1 meets the lowest seed, seed 2 the second lowest, and seeds 1 and 2 can
only meet in the final), so the top seeds go through round 1 without playing.

A match is ``games_per_pairing`` games in colour pairs (one opening, colours swapped), the
better seed moving first in the odd games. The bot with more points goes on. A tie once those
games are played adds one more colour pair, up to ``tiebreak_pairs`` pairs; a match still
tied after them goes to the better seed (deterministic and written in the bracket as
"on seed", so the same journal always gives the same bracket).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.formats.meetings import Meeting, Progression, Results, Round, make_meeting, pairing_width


def bracket_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a bracket of ``size`` places (a power of two):
    neighbours meet in round 1 (``[1, 8, 4, 5, 2, 7, 3, 6]`` for 8)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return order


@dataclass(frozen=True)
class MatchResult:
    """How a knockout match stands."""

    first_points: float
    second_points: float
    played: int
    winner: str | None
    """None while the match is undecided (games missing or tie-break pairs to come)."""
    on_seed: bool = False
    """Decided by seed after the last tie-break pair was tied too."""


def match_result(meeting: Meeting, results: Results, base_games: int,
                 tiebreak_pairs: int) -> tuple[MatchResult, int]:
    """The match's standing, and how many games it holds now: a tie after all its games adds
    a colour pair while the cap allows. ``meeting.first`` is the better seed."""
    games = meeting.games
    while True:
        m = Meeting(meeting.round, meeting.pairing, meeting.first, meeting.second, games,
                    meeting.key)
        a, b, played = m.points(results)
        if played < games:
            return MatchResult(a, b, played, None), games
        if a != b:
            return MatchResult(a, b, played, meeting.first if a > b else meeting.second), games
        if games < base_games + 2 * tiebreak_pairs:
            games += 2
            continue
        return MatchResult(a, b, played, meeting.first, on_seed=True), games


def knockout(names: Sequence[str], games: int, tiebreak_pairs: int,
             results: Results) -> Progression:
    """The bracket's rounds as far as ``results`` decide them."""
    seed = {name: i for i, name in enumerate(names)}
    size = 1
    while size < len(names):
        size *= 2
    width = pairing_width(len(names))
    entrants: list[str | None] = [
        names[s - 1] if s <= len(names) else None for s in bracket_order(size)]
    rounds: list[Round] = []
    expected = games * (len(names) - 1)
    number = 1
    while len(entrants) > 1:
        meetings: list[Meeting] = []
        byes: list[str] = []
        winners: list[str | None] = []
        for i in range(0, len(entrants), 2):
            a, b = entrants[i], entrants[i + 1]
            if a is None or b is None:
                alone = a or b
                assert alone is not None  # byes never meet: the top seeds take them
                byes.append(alone)
                winners.append(alone)
                continue
            first, second = (a, b) if seed[a] < seed[b] else (b, a)
            meeting = make_meeting(number, len(meetings) + 1, first, second, games, width)
            outcome, held = match_result(meeting, results, games, tiebreak_pairs)
            if held != games:
                meeting = make_meeting(number, meeting.pairing, first, second, held, width)
                expected += held - games
            meetings.append(meeting)
            winners.append(outcome.winner)
        decided = all(w is not None for w in winners)
        rounds.append(Round(number, tuple(meetings), tuple(byes),
                            tuple(w for w in winners if w is not None) if decided else ()))
        if not decided:
            return Progression(tuple(rounds), final=False, expected_games=expected)
        entrants = list(winners)
        number += 1
    return Progression(tuple(rounds), final=True, expected_games=expected)


def round_name(number: int, rounds: int) -> str:
    """``final``, ``semi-final``, ``quarter-final``, else ``round N``."""
    left = rounds - number
    return {0: "final", 1: "semi-final", 2: "quarter-final"}.get(left, f"round {number}")


def rounds_in(players: int) -> int:
    """Rounds of a knockout of ``players`` bots."""
    size, rounds = 1, 0
    while size < players:
        size, rounds = size * 2, rounds + 1
    return rounds
