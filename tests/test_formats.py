"""Knockout and Swiss formats as pure functions: brackets, byes, colours, tie-breaks, Dutch
pairings, standings; their schedules from a config and a journal's results (resume); the
config's errors for them."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from arena.formats.knockout import bracket_order, knockout, match_result, rounds_in
from arena.formats.meetings import Progression
from arena.formats.schedule import RoundFeed, build_schedule, pairings
from arena.formats.swiss import standings, swiss
from arena.settings.config import ConfigError, load_config, max_swiss_rounds

# --------------------------------------------------------------------------- helpers


def play_out(step: object, rng: random.Random, *, draws: bool = True) -> tuple[
        Progression, dict[str, float]]:
    """Run a format to its end, every game's result drawn from ``rng``."""
    results: dict[str, float] = {}
    assert callable(step)
    while True:
        state: Progression = step(results)
        todo = [m.game_id(n) for m in state.meetings() for n in range(1, m.games + 1)
                if m.game_id(n) not in results]
        if not todo:
            assert state.final
            return state, results
        assert not state.final
        for game in todo:
            results[game] = rng.choice([0.0, 0.5, 1.0] if draws else [0.0, 1.0])


def config(tmp_path: Path, body: str, bots: int) -> Path:
    text = 'game = "draughts"\ntc = "10+0.1"\n' + body + "\n"
    for i in range(bots):
        text += f'[[bots]]\nname = "b{i + 1}"\ncmd = ["python3"]\n'
    path = tmp_path / "c.toml"
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- knockout


def test_bracket_order_keeps_top_seeds_apart() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = bracket_order(16)
    assert sorted(order) == list(range(1, 17))
    assert order.index(1) < 8 <= order.index(2)  # 1 and 2 only meet in the final


def test_knockout_byes_go_to_the_top_seeds() -> None:
    names = ["s1", "s2", "s3", "s4", "s5", "s6"]
    state = knockout(names, 2, 1, {})
    first = state.rounds[0]
    assert first.byes == ("s1", "s2")
    assert [(m.key, m.first, m.second) for m in first.meetings] == [
        ("r1-p01", "s4", "s5"), ("r1-p02", "s3", "s6")]
    assert not state.final and len(state.rounds) == 1
    assert state.expected_games == 2 * 5
    assert rounds_in(6) == 3


def test_knockout_rounds_follow_results_with_stable_ids() -> None:
    names = ["a", "b", "c", "d"]
    # round 1: a-d and b-c; the lower seeds win both games
    results = {"r1-p01-g1": 0.0, "r1-p01-g2": 1.0, "r1-p02-g1": 0.0, "r1-p02-g2": 1.0}
    partial = knockout(names, 2, 1, {k: v for k, v in results.items() if "p01" in k})
    assert len(partial.rounds) == 1 and partial.rounds[0].winners == ()
    state = knockout(names, 2, 1, results)
    assert state.rounds[0].winners == ("d", "c")
    final = state.rounds[1].meetings
    assert [(m.key, m.first, m.second) for m in final] == [("r2-p01", "c", "d")]
    results.update({"r2-p01-g1": 1.0, "r2-p01-g2": 0.5})
    done = knockout(names, 2, 1, results)
    assert done.final and done.rounds[-1].winners == ("c",)
    # the same results give the same rounds, whatever order they were read in
    assert knockout(names, 2, 1, dict(reversed(list(results.items())))) == done


def test_knockout_colours_swap_within_each_pair() -> None:
    state = knockout(["a", "b"], 4, 0, {})
    (m,) = state.rounds[0].meetings
    assert [m.players_of(n) for n in (1, 2, 3, 4)] == [("a", "b"), ("b", "a")] * 2
    assert [m.pair_id(n) for n in (1, 2, 3, 4)] == ["r1-p01-k1"] * 2 + ["r1-p01-k2"] * 2


def test_knockout_tie_adds_pairs_up_to_the_cap_then_the_better_seed_goes_on() -> None:
    names = ["top", "low"]
    tied = {"r1-p01-g1": 1.0, "r1-p01-g2": 1.0}  # each wins with the first move: 1-1
    state = knockout(names, 2, 2, tied)
    (m,) = state.rounds[0].meetings
    assert m.games == 4 and not state.final  # one tie-break pair added
    tied.update({"r1-p01-g3": 0.5, "r1-p01-g4": 0.5})
    state = knockout(names, 2, 2, tied)
    assert state.rounds[0].meetings[0].games == 6
    tied.update({"r1-p01-g5": 0.0, "r1-p01-g6": 0.0})  # still 3-3 after the cap
    state = knockout(names, 2, 2, tied)
    (m,) = state.rounds[0].meetings
    outcome, held = match_result(m, tied, 2, 2)
    assert held == 6 and outcome.winner == "top" and outcome.on_seed
    assert state.final and state.rounds[0].winners == ("top",)
    # a tie-break pair that decides it: the lower seed goes on
    decided = {"r1-p01-g1": 1.0, "r1-p01-g2": 1.0, "r1-p01-g3": 0.0, "r1-p01-g4": 0.5}
    outcome, _ = match_result(knockout(names, 2, 2, decided).rounds[0].meetings[0],
                              decided, 2, 2)
    assert outcome.winner == "low" and not outcome.on_seed
    # no tie-break pairs: a tie goes to the better seed at once
    assert knockout(names, 2, 0, {"r1-p01-g1": 1.0, "r1-p01-g2": 1.0}).rounds[0].winners == (
        "top",)


@pytest.mark.parametrize("players", [2, 3, 5, 7, 8, 9, 13])
def test_knockout_ends_with_one_winner_for_any_field(players: int) -> None:
    names = [f"p{i}" for i in range(players)]
    state, results = play_out(lambda r: knockout(names, 2, 1, r), random.Random(players))
    assert len(state.rounds) == rounds_in(players)
    assert len(state.rounds[-1].winners) == 1
    assert sum(len(r.meetings) for r in state.rounds) == players - 1  # every match knocks one out
    assert len(results) == state.expected_games


# --------------------------------------------------------------------------- swiss


def test_swiss_first_round_is_dutch_top_half_against_bottom_half() -> None:
    names = [f"s{i}" for i in range(1, 7)]
    state = swiss(names, 3, 2, 1.0, {})
    assert [(m.first, m.second) for m in state.rounds[0].meetings] == [
        ("s1", "s4"), ("s2", "s5"), ("s3", "s6")]
    assert [m.key for m in state.rounds[0].meetings] == ["r1-p01", "r1-p02", "r1-p03"]


def test_swiss_second_round_pairs_score_groups_without_rematches() -> None:
    names = ["a", "b", "c", "d"]
    # round 1: a-c (a wins both), b-d (b wins both)
    results = {"r1-p01-g1": 1.0, "r1-p01-g2": 0.0, "r1-p02-g1": 1.0, "r1-p02-g2": 0.0}
    state = swiss(names, 3, 2, 1.0, results)
    second = state.rounds[1]
    assert {frozenset((m.first, m.second)) for m in second.meetings} == {
        frozenset(("a", "b")), frozenset(("c", "d"))}
    assert len(state.rounds) == 2 and not state.final


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    names = ["a", "b", "c"]
    state = swiss(names, 3, 2, 1.0, {})
    assert state.rounds[0].byes == ("c",)
    # round 1: a beats b; then c (2 points from the bye) and a lead, b is last: b's bye
    results = {"r1-p01-g1": 1.0, "r1-p01-g2": 0.0}
    state = swiss(names, 3, 2, 1.0, results)
    assert state.rounds[1].byes == ("b",)
    (m,) = state.rounds[1].meetings
    assert {m.first, m.second} == {"a", "c"}


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8, 9, 10, 16])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_swiss_never_rematches_and_gives_each_bot_one_bye_at_most(players: int,
                                                                   seed: int) -> None:
    """Up to half the field's rounds no rematch can be forced (what the bots have not met
    yet is a graph of degree at least n/2: it has a perfect matching, and the search finds
    it); up to the most rounds allowed every round is paired, rematches only as needed."""
    names = [f"p{i}" for i in range(players)]
    rng = random.Random(seed)
    for rounds in ((players + 1) // 2, max_swiss_rounds(players)):
        state, _ = play_out(lambda r, n=rounds: swiss(names, n, 2, 1.0, r), rng)
        assert len(state.rounds) == rounds
        met = [frozenset((m.first, m.second)) for m in state.meetings()]
        if rounds <= (players + 1) // 2:
            assert len(met) == len(set(met))
        byes = Counter(b for r in state.rounds for b in r.byes)
        assert all(n == 1 for n in byes.values())
        assert sum(byes.values()) == (rounds if players % 2 else 0)
        for rnd in state.rounds:  # everyone plays or has the bye, once per round
            seen = [p for m in rnd.meetings for p in (m.first, m.second)] + list(rnd.byes)
            assert sorted(seen) == sorted(names)


def test_swiss_colours_alternate_across_rounds() -> None:
    names = [f"p{i}" for i in range(8)]
    state, _ = play_out(lambda r: swiss(names, 7, 2, 1.0, r), random.Random(5))
    firsts = Counter(m.first for m in state.meetings())
    played = Counter(p for m in state.meetings() for p in (m.first, m.second))
    for name in names:  # 7 pairings each: 3 or 4 with the first move in game 1
        assert played[name] == 7 and firsts[name] in (3, 4), (name, firsts[name])
    # within a pairing, the games swap colours
    m = state.rounds[0].meetings[0]
    assert m.players_of(1) == (m.first, m.second) and m.players_of(2) == (m.second, m.first)


def test_swiss_standings_tie_breaks_by_hand() -> None:
    """Four bots, two rounds of two games, worked out by hand."""
    names = ["a", "b", "c", "d"]
    results = {
        # round 1: a-c 2-0, b-d 1-1 (two draws)
        "r1-p01-g1": 1.0, "r1-p01-g2": 0.0, "r1-p02-g1": 0.5, "r1-p02-g2": 0.5,
    }
    state = swiss(names, 2, 2, 1.0, results)
    pairs = {frozenset((m.first, m.second)): m for m in state.rounds[1].meetings}
    assert set(pairs) == {frozenset(("a", "b")), frozenset(("c", "d"))}
    ab, cd = pairs[frozenset(("a", "b"))], pairs[frozenset(("c", "d"))]
    # round 2: a-b 1-1 (each wins with the first move), c-d: c wins both
    results.update({ab.game_id(1): 1.0, ab.game_id(2): 1.0,
                    cd.game_id(1): 1.0 if cd.first == "c" else 0.0,
                    cd.game_id(2): 0.0 if cd.first == "c" else 1.0})
    state = swiss(names, 2, 2, 1.0, results)
    rows = {r.name: r for r in standings(names, state, 2, 1.0, results)}
    # scores: a 3, b 2, c 2, d 1
    assert [rows[n].score for n in names] == [3, 2, 2, 1]
    # Buchholz: a met c, b = 4; b met d, a = 4; c met a, d = 4; d met b, c = 4
    assert [rows[n].buchholz for n in names] == [4, 4, 4, 4]
    # Sonneborn-Berger: a: 2*2 (vs c) + 1*2 (vs b) = 6; b: 1*1 (d) + 1*3 (a) = 4;
    # c: 0*3 (a) + 2*1 (d) = 2; d: 1*2 (b) + 0*2 (c) = 2
    assert [rows[n].sonneborn_berger for n in names] == [6, 4, 2, 2]
    # b and c: same score and Buchholz, Sonneborn-Berger decides; c and d differ in score
    order = [r.name for r in standings(names, state, 2, 1.0, results)]
    assert order == ["a", "b", "c", "d"]
    assert rows["a"].wins == 3 and rows["b"].wins == 1 and rows["d"].wins == 0
    assert all(rows[n].direct is None for n in names)  # no two tied on every count


def test_swiss_direct_encounter_and_then_wins_break_ties() -> None:
    names = ["a", "b"]
    # one round: two draws: a tie on score, Buchholz and Sonneborn-Berger; direct equal too
    results = {"r1-p01-g1": 0.5, "r1-p01-g2": 0.5}
    state = swiss(names, 1, 2, 1.0, results)
    rows = standings(names, state, 2, 1.0, results)
    assert [r.direct for r in rows] == [1.0, 1.0]
    assert [r.name for r in rows] == ["a", "b"]  # then wins (none), then seed
    # b wins with the first move and a with it too: 1-1, wins equal (1 each): seed again
    results = {"r1-p01-g1": 1.0, "r1-p01-g2": 1.0}
    rows = standings(names, swiss(names, 1, 2, 1.0, results), 2, 1.0, results)
    assert [r.name for r in rows] == ["a", "b"] and [r.wins for r in rows] == [1, 1]


def test_swiss_bye_points_count_in_the_score() -> None:
    names = ["a", "b", "c"]
    results = {"r1-p01-g1": 0.5, "r1-p01-g2": 0.5}
    rows = {r.name: r for r in standings(names, swiss(names, 1, 2, 0.5, results), 2, 0.5,
                                         results)}
    assert rows["c"].score == 1.0 and rows["c"].byes == 1 and rows["c"].games == 0


# --------------------------------------------------------------------------- schedules


def test_pyramid_meets_everyone_above_in_turn() -> None:
    assert pairings(["a", "b", "c", "d"], "pyramid") == [
        ("a", "b"), ("a", "c"), ("b", "c"), ("a", "d"), ("b", "d"), ("c", "d")]


def test_swiss_schedule_resumes_from_a_journal_with_round_one_done(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, 'format = "swiss"\nrounds = 3\n'
                                '[openings]\nrandom_plies = 2', bots=5))
    first = build_schedule(loaded)
    assert not first.final and first.total == 3 * 2 * 2
    assert [g.id for g in first.games] == ["r1-p01-g1", "r1-p01-g2", "r1-p02-g1", "r1-p02-g2"]
    results = {g.id: 1.0 for g in first.games}  # the first mover always wins
    resumed = build_schedule(loaded, results)
    again = build_schedule(loaded, dict(results))
    assert resumed == again and resumed.fingerprint == first.fingerprint
    assert resumed.games[:4] == first.games  # round 1 as it was: ids, colours, openings
    second = [g for g in resumed.games if g.round == 2]
    assert [g.id for g in second] == ["r2-p01-g1", "r2-p01-g2", "r2-p02-g1", "r2-p02-g2"]
    assert all(g.opening.moves for g in second)
    # half a round 2 journaled: the same round 2, and no round 3 yet
    half = {**results, second[0].id: 0.0}
    assert [g.id for g in build_schedule(loaded, half).games] == [g.id for g in resumed.games]


def test_seeds_order_the_bracket(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, 'format = "knockout"\nseeds = ["b3", "b1", "b2", "b4"]',
                                bots=4))
    games = build_schedule(loaded).games
    assert [(g.id, g.p1, g.p2) for g in games if g.game_no == 1] == [
        ("r1-p01-g1", "b3", "b4"), ("r1-p02-g1", "b1", "b2")]
    plain = build_schedule(load_config(config(tmp_path, 'format = "knockout"', bots=4)))
    assert plain.fingerprint != build_schedule(loaded).fingerprint


def test_knockout_schedule_fingerprint_ignores_results(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, 'format = "knockout"', bots=4))
    first = build_schedule(loaded)
    tied = {"r1-p01-g1": 1.0, "r1-p01-g2": 1.0}
    later = build_schedule(loaded, tied)
    assert later.fingerprint == first.fingerprint
    assert [g.id for g in later.games if g.pairing == 1] == [
        "r1-p01-g1", "r1-p01-g2", "r1-p01-g3", "r1-p01-g4"]  # a tie-break pair
    other = load_config(config(tmp_path, 'format = "knockout"\ntiebreak_pairs = 0', bots=4))
    assert build_schedule(other).fingerprint != first.fingerprint


def test_round_feed_waits_for_the_round_then_hands_out_the_next(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, 'format = "knockout"', bots=4))
    feed = RoundFeed(loaded, {})
    handed = iter(feed)
    first = [next(handed) for _ in range(4)]
    assert [g.id for g in first if g] == ["r1-p01-g1", "r1-p01-g2", "r1-p02-g1", "r1-p02-g2"]
    assert next(handed) is None  # round 2 waits for round 1
    from referee.record import GameRecord, Termination

    def record(game_id: str, result: str) -> GameRecord:
        game = next(g for g in feed.schedule.games if g.id == game_id)
        return GameRecord(id=game_id, game="draughts", p1=game.p1, p2=game.p2, result=result,
                          termination=Termination.NORMAL, reason="")

    feed.record(record("r1-p01-g1", "1-0"))  # b1 (first in g1) wins both against b4
    feed.record(record("r1-p01-g2", "0-1"))
    feed.record(record("r1-p02-g1", "1-0"))
    assert next(handed) is None  # r1-p02-g2 still missing
    assert feed.finished_bots() == set()  # a round's losers are out once the round is decided
    feed.record(record("r1-p02-g2", "0-1"))  # b2 wins both against b3
    final = [next(handed), next(handed)]
    assert [(g.id, g.p1, g.p2) for g in final if g] == [
        ("r2-p01-g1", "b1", "b2"), ("r2-p01-g2", "b2", "b1")]
    assert next(handed) is None  # the final is being played
    for game in final:
        assert game is not None
        feed.record(record(game.id, "1-0"))  # each wins with the first move: 1-1
    extra = next(handed)
    assert extra is not None and extra.id == "r2-p01-g3" and extra.pair == "r2-p01-k2"
    assert feed.finished_bots() == {"b3", "b4"}  # round 1's losers: their processes can end
    assert feed.schedule.total == 3 * 2 + 2 and not feed.schedule.final


# --------------------------------------------------------------------------- config errors


@pytest.mark.parametrize(("body", "expected"), [
    ('format = "swiss"', r"c\.toml:3: format: a swiss tournament needs its number of rounds; "
                         r"add rounds = N \(at most 5 for 5 bots\)"),
    ('format = "swiss"\nrounds = 6', r"c\.toml:4: rounds: 6 swiss rounds for 5 bots: at most "
                                     r"5 rounds"),
    ('format = "knockout"\nrounds = 2', r"c\.toml:4: rounds: a knockout plays until one bot is "
                                        r"left"),
    ("tiebreak_pairs = 1", r"c\.toml:3: tiebreak_pairs: tiebreak_pairs is a setting of format "
                           r"= 'knockout'"),
    ('format = "knockout"\nbye_points = 0.5', r"c\.toml:4: bye_points: bye_points is a "
                                              r"setting of format = 'swiss'"),
    ('format = "knock-out"', r"c\.toml:3: format: .*use one of: .*'knockout', 'swiss'"),
    ('format = "knockout"\nseeds = ["b1", "b2", "b3", "b4", "b9"]',
     r"c\.toml:4: seeds: seeds names 'b9', which is no bot of this config; bots: b1, b2"),
    ('format = "knockout"\nseeds = ["b1", "b2", "b3", "b4", "b4"]',
     r"c\.toml:4: seeds: seeds names 'b4' twice"),
    ('format = "swiss"\nrounds = 2\nseeds = ["b1", "b2", "b3"]',
     r"c\.toml:5: seeds: seeds leaves out 'b4', 'b5'"),
    ('seeds = ["b1", "b2", "b3", "b4", "b5"]', r"c\.toml:3: seeds: seeds orders a knockout"),
])
def test_format_config_errors_name_file_line_and_fix(tmp_path: Path, body: str,
                                                     expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_config(config(tmp_path, body, bots=5))
