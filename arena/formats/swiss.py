"""The Swiss format: each round's pairings from the scores so far, the byes, and the final
standings with their tie-breaks.

A bot's score is its game points, a bye counting as winning every game of a pairing
(``bye_points`` a game, 1 unless configured). Before each round the bots are ranked by
score, then seed (``seeds``, else config order), and paired in the Dutch way: within a score
group the top half meets the bottom half in order (1st against the first of the bottom half,
and so on); a bot left over floats down to the next group; no two bots meet twice. When the
Dutch order would force a rematch, the next opponent in that order is tried, backtracking as
far as needed (the search is bounded by :data:`SEARCH_LIMIT`). Up to half the field's rounds
a pairing without a rematch always exists (what the bots have not met yet is a graph of
degree at least n/2, which has a perfect matching) and the search finds it; a long event on a
small field can run out of them, and then rematches are allowed, each choice still taking a
new opponent first.

With an odd number of bots the bye goes to the lowest-ranked bot that has had none yet (and
whose bye lets the others be paired without rematches).

Colours: a pairing's games come in colour pairs, so every bot has the first move as often as
its opponent within a round. Across rounds the bot that moved first in fewer of its pairings'
first games takes the first move, then the one that did not have it in its last round, then
the higher-ranked.

Final standings: score, then Buchholz (the sum of the final scores of the bots met), then
Sonneborn-Berger (each game's points times that opponent's final score), then the direct
encounter (points among the bots still tied, when each of them met each other), then games
won, then seed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from arena.formats.meetings import Meeting, Progression, Results, Round, make_meeting, pairing_width

SEARCH_LIMIT: Final = 20_000
"""Steps of the backtracking pairing search for one round (all bye candidates together)
before rematches are allowed: a round of a 200-bot field is paired in a few hundred steps,
and the limit keeps a round that cannot be paired without a rematch to under a second
(60 bots in 59 rounds: 1.4 s at worst; each round is searched once, then cached)."""


@dataclass
class _Player:
    seed: int
    score: float = 0.0
    byes: int = 0
    firsts: int = 0
    last_first: bool | None = None


class _TooLong(Exception):
    pass


@dataclass
class _Budget:
    steps: int = SEARCH_LIMIT


def _pair(ranked: Sequence[str], score: dict[str, float], met: dict[str, set[str]],
          rematches: bool, budget: _Budget) -> list[tuple[str, str]] | None:
    """Dutch pairing of ``ranked`` (best first, an even count); None when impossible without
    rematches (``rematches=False``) or not found within the budget. Rematches, when allowed,
    come last in each choice (and the first choice then always succeeds: no search)."""

    def candidates(a: str, others: list[str]) -> Iterator[str]:
        group = [x for x in others if score[x] == score[a]]
        half = (len(group) + 1) // 2  # the top half holds a and half-1 of the group
        lower = [x for x in others if score[x] != score[a]]
        order = group[half - 1:] + group[:half - 1][::-1] + lower if group else lower
        yield from (x for x in order if x not in met[a])
        if rematches:
            yield from (x for x in order if x in met[a])

    def solve(rest: list[str]) -> list[tuple[str, str]] | None:
        if not rest:
            return []
        budget.steps -= 1
        if budget.steps < 0 and not rematches:
            raise _TooLong
        if not rematches:
            left = set(rest)
            if any(len(met[x] & left) >= len(rest) - 1 for x in rest):
                return None  # someone has met every bot left
        a, others = rest[0], rest[1:]
        for b in candidates(a, others):
            found = solve([x for x in others if x != b])
            if found is not None:
                return [(a, b), *found]
        return None

    try:
        return solve(list(ranked))
    except _TooLong:
        return None


_Pairing = tuple[list[tuple[str, str]], str | None]


@functools.lru_cache(maxsize=1024)
def _pair_round_cached(ranked: tuple[str, ...], scores: tuple[float, ...],
                       byes: tuple[int, ...], met: tuple[frozenset[str], ...]) -> _Pairing:
    """:func:`pair_round` on hashable arguments (in ``ranked`` order): a round-based schedule
    is rebuilt round after round, and each earlier round's pairing is the same again."""
    return pair_round(ranked, dict(zip(ranked, scores, strict=True)),
                      dict(zip(ranked, byes, strict=True)),
                      {p: set(m) for p, m in zip(ranked, met, strict=True)})


def pair_round(ranked: Sequence[str], score: dict[str, float], byes: dict[str, int],
               met: dict[str, set[str]]) -> _Pairing:
    """One round's pairings (higher-ranked first in each) and the bye, for ``ranked`` (best
    first); ``met`` holds each bot's past opponents."""
    budget = _Budget()
    if len(ranked) % 2 == 0:
        pairs = _pair(ranked, score, met, False, budget)
        return (pairs if pairs is not None else _pair(ranked, score, met, True, budget)
                or []), None
    without = [p for p in reversed(ranked) if byes[p] == 0] or list(reversed(ranked))
    for bye in without:
        rest = [p for p in ranked if p != bye]
        pairs = _pair(rest, score, met, False, budget)
        if pairs is not None:
            return pairs, bye
        if budget.steps < 0:
            break
    bye = without[0]
    rest = [p for p in ranked if p != bye]
    return _pair(rest, score, met, True, budget) or [], bye


def swiss(names: Sequence[str], rounds: int, games: int, bye_points: float,
          results: Results) -> Progression:
    """The Swiss rounds as far as ``results`` decide them."""
    players = {name: _Player(seed=i) for i, name in enumerate(names)}
    met: dict[str, set[str]] = {name: set() for name in names}
    width = pairing_width(len(names))
    expected = rounds * (len(names) // 2) * games
    done: list[Round] = []
    for number in range(1, rounds + 1):
        ranked = sorted(names, key=lambda p: (-players[p].score, players[p].seed))
        pairs, bye = _pair_round_cached(
            tuple(ranked), tuple(players[p].score for p in ranked),
            tuple(players[p].byes for p in ranked), tuple(frozenset(met[p]) for p in ranked))
        meetings = []
        for pairing, (a, b) in enumerate(pairs, start=1):
            first, second = (a, b) if _moves_first(players[a], players[b]) else (b, a)
            meetings.append(make_meeting(number, pairing, first, second, games, width))
        this = Round(number, tuple(meetings), (bye,) if bye else ())
        done.append(this)
        if not all(m.complete(results) for m in meetings):
            return Progression(tuple(done), final=False, expected_games=expected)
        for m in meetings:
            a_points, b_points, _ = m.points(results)
            players[m.first].score += a_points
            players[m.second].score += b_points
            players[m.first].firsts += 1
            players[m.first].last_first, players[m.second].last_first = True, False
            met[m.first].add(m.second)
            met[m.second].add(m.first)
        if bye:
            players[bye].score += bye_points * games
            players[bye].byes += 1
    return Progression(tuple(done), final=True, expected_games=expected)


def _moves_first(a: _Player, b: _Player) -> bool:
    """Does ``a`` (the higher-ranked) move first in the pairing's first game?"""
    if a.firsts != b.firsts:
        return a.firsts < b.firsts
    if a.last_first != b.last_first:
        return a.last_first is not True
    return True


@dataclass(frozen=True)
class Standing:
    """One bot's line in the Swiss standings."""

    name: str
    score: float
    buchholz: float
    sonneborn_berger: float
    direct: float | None
    """Points among the bots tied with it on score, Buchholz and Sonneborn-Berger, when each
    of them met each other; None otherwise (and for a bot tied with nobody)."""
    wins: int
    games: int
    byes: int
    seed: int


def standings(names: Sequence[str], progression: Progression, games: int,
              bye_points: float, results: Results) -> list[Standing]:
    """The standings of the games played so far, best first, ties broken as the module says."""
    score = dict.fromkeys(names, 0.0)
    wins = dict.fromkeys(names, 0)
    played = dict.fromkeys(names, 0)
    byes = dict.fromkeys(names, 0)
    per_game: list[tuple[str, str, float]] = []  # (bot, opponent, the bot's points)
    meetings: list[Meeting] = []
    for rnd in progression.rounds:
        for bye in rnd.byes:
            if all(m.complete(results) for m in rnd.meetings):
                score[bye] += bye_points * games
                byes[bye] += 1
        for m in rnd.meetings:
            any_played = False
            for number in range(1, m.games + 1):
                s = results.get(m.game_id(number))
                if s is None:
                    continue
                any_played = True
                p1, p2 = m.players_of(number)
                per_game += [(p1, p2, s), (p2, p1, 1 - s)]
            if any_played:
                meetings.append(m)
    for bot, _, points in per_game:
        score[bot] += points
        played[bot] += 1
        wins[bot] += points == 1
    buchholz = dict.fromkeys(names, 0.0)
    for m in meetings:
        buchholz[m.first] += score[m.second]
        buchholz[m.second] += score[m.first]
    sb = dict.fromkeys(names, 0.0)
    for bot, opponent, points in per_game:
        sb[bot] += points * score[opponent]
    seed = {name: i for i, name in enumerate(names)}
    key = {p: (score[p], buchholz[p], sb[p]) for p in names}
    direct: dict[str, float | None] = dict.fromkeys(names)
    for tied_key in set(key.values()):
        tied = [p for p in names if key[p] == tied_key]
        if len(tied) < 2:
            continue
        pairs_met = {frozenset((m.first, m.second)) for m in meetings}
        if all(frozenset((a, b)) in pairs_met for a in tied for b in tied if a < b):
            group = set(tied)
            for p in tied:
                direct[p] = sum(points for bot, opp, points in per_game
                                if bot == p and opp in group)
    rows = [Standing(p, score[p], buchholz[p], sb[p], direct[p], wins[p], played[p], byes[p],
                     seed[p] + 1) for p in names]
    rows.sort(key=lambda r: (-r.score, -r.buchholz, -r.sonneborn_berger,
                             -(r.direct or 0.0), -r.wins, r.seed))
    return rows
