"""Head-to-head statistics: W/D/L, Elo with error, LOS, colour pairs and pentanomial counts."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from arena.rundir.results import read_results
from ratings import (
    GameResult,
    Pentanomial,
    colour_pairs,
    likelihood_of_superiority,
    pairwise,
    pentanomial_error,
    score_to_elo,
    trinomial_error,
)

PGN = Path(__file__).parent / "data" / "ratings" / "roundrobin.pgn"


def test_consecutive_swapped_games_form_pairs() -> None:
    g = [
        GameResult("a", "b", 1.0),
        GameResult("b", "a", 0.5),  # pair 1: a scored 1 + 0.5
        GameResult("a", "c", 0.0),
        GameResult("a", "b", 0.0),  # not swapped against the next a-b game: left over
        GameResult("a", "b", 1.0),
        GameResult("b", "a", 1.0),  # pair 2: a scored 1 + 0
        GameResult("c", "a", 0.0),  # pair 3 with a-c
    ]
    pairs, single = colour_pairs(g)
    assert pairs == [(g[0], g[1]), (g[4], g[5]), (g[2], g[6])]
    assert single == [g[3]]
    stats = pairwise(g)
    ab = stats[("a", "b")]
    assert (ab.wins, ab.draws, ab.losses) == (2, 1, 2)
    assert ab.penta == Pentanomial(wd=1, wl=1) and ab.unpaired == 1
    ac = stats[("a", "c")]
    assert ac.penta == Pentanomial(wl=1)
    assert ac.flipped().player == "c" and ac.flipped().penta == Pentanomial(wl=1)


def test_pair_ids_take_precedence() -> None:
    g = [
        GameResult("a", "b", 0.5, pair="o1"),
        GameResult("a", "b", 1.0, pair="o2"),
        GameResult("b", "a", 0.0, pair="o2"),  # a won both: WW
        GameResult("b", "a", 0.5, pair="o1"),  # DD
        GameResult("a", "b", 1.0, pair="o3"),  # its partner never came
    ]
    pairs, single = colour_pairs(g)
    assert pairs == [(g[1], g[2]), (g[0], g[3])]
    assert single == [g[4]]
    assert pairwise(g)[("a", "b")].penta == Pentanomial(dd=1, ww=1)


def test_elo_error_and_los_by_hand() -> None:
    w, d, lo = 30, 40, 20
    n = w + d + lo
    s = (w + d / 2) / n  # 0.5556
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + lo * s**2) / n
    sd = math.sqrt(var / n)

    def elo(x: float) -> float:
        return -400 * math.log10(1 / x - 1)

    expected = (elo(s + 1.959964 * sd) - elo(s - 1.959964 * sd)) / 2
    assert trinomial_error(w, d, lo, scale="elo") == pytest.approx(expected, rel=1e-5)
    assert score_to_elo(s, "elo") == pytest.approx(elo(s))
    assert likelihood_of_superiority(w, lo) == pytest.approx(
        0.5 + 0.5 * math.erf(10 / math.sqrt(100))
    )
    assert likelihood_of_superiority(0, 0) == pytest.approx(0.5)


def test_pentanomial_error_by_hand() -> None:
    p = Pentanomial(ll=2, ld=10, wl=5, dd=20, wd=12, ww=1)
    x = np.array([0, 0.25, 0.5, 0.75, 1])
    c = np.array(p.five())
    s = c @ x / c.sum()
    sd = math.sqrt(c @ (x - s) ** 2 / c.sum() / c.sum())

    def elo(y: float) -> float:
        return -400 * math.log10(1 / y - 1)

    expected = (elo(s + 1.959964 * sd) - elo(s - 1.959964 * sd)) / 2
    assert pentanomial_error(p, scale="elo") == pytest.approx(expected, rel=1e-5)


def test_roundrobin_fixture_pairs_up_completely() -> None:
    stats = pairwise(read_results(PGN))
    assert len(stats) == 28
    for st in stats.values():
        assert st.games == 40 and st.unpaired == 0 and st.penta.pairs == 20
        assert st.wins + st.draws + st.losses == 40
        # Paired openings: the pentanomial error is finite and of the trinomial's size.
        if math.isfinite(st.elo_error) and math.isfinite(st.penta_elo_error):
            assert 0.5 < st.penta_elo_error / st.elo_error < 1.5
    top = stats[("alphabeta-d4", "alphabeta-d3")]
    assert top.to_dict()["games"] == 40 and top.los > 0.5


def test_perfect_score_has_infinite_elo_not_a_crash() -> None:
    st = pairwise([GameResult("a", "b", 1.0), GameResult("b", "a", 0.0)])[("a", "b")]
    assert st.elo == math.inf and st.elo_error == math.inf
    assert st.to_dict()["elo"] is None
