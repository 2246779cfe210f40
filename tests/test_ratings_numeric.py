"""ratings.numeric against scipy, which it replaces on the tournament path.

scipy is imported by each test, not with the module: every pytest-xdist worker collects this
module, and scipy.stats alone costs each of them two seconds there."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ratings import numeric


def test_expit_matches_scipy_without_overflow() -> None:
    from scipy import special

    x = np.array([-1e6, -800.0, -30.0, -1.0, -1e-9, 0.0, 1e-9, 0.5, 30.0, 800.0, 1e6])
    assert np.allclose(numeric.expit(x), special.expit(x), rtol=1e-15, atol=0)


def test_normal_cdf_and_ppf_match_scipy() -> None:
    from scipy import stats

    x = np.array([[-40.0, -3.0, -0.1], [0.0, 1.96, np.nan]])
    assert np.allclose(numeric.norm.cdf(x), stats.norm.cdf(x), rtol=1e-12, atol=1e-300,
                       equal_nan=True)
    for p in (0.5, 0.8, 0.975, 0.995, 1e-9):
        assert numeric.norm.ppf(p) == pytest.approx(stats.norm.ppf(p), rel=1e-12)


def test_bisect_root_finds_the_root_brentq_finds() -> None:
    from scipy import optimize, special

    def f(x: float) -> float:
        return float(np.sum(3.0 * special.expit(0.01 * (x - np.array([0.0, 150.0])))) - 2.2)

    assert numeric.bisect_root(f, -20000, 20000, xtol=1e-9) == pytest.approx(
        optimize.brentq(f, -20000, 20000, xtol=1e-9), abs=2e-9)
    with pytest.raises(ValueError):
        numeric.bisect_root(f, 5000, 20000)
    assert numeric.bisect_root(lambda x: x - 1e8, 0.0, 1e9, xtol=1e-15) == pytest.approx(1e8)


def test_minimize_bounded_matches_scipy() -> None:
    from scipy import optimize

    def f(x: float) -> float:
        return (np.log(x) + 1.3) ** 2 + 0.1 * x

    ours = numeric.minimize_bounded(f, 1e-9, 1 - 1e-9, xatol=1e-10)
    theirs = optimize.minimize_scalar(f, bounds=(1e-9, 1 - 1e-9), method="bounded",
                                      options={"xatol": 1e-10}).x
    assert ours == pytest.approx(theirs, abs=1e-8)


@pytest.mark.parametrize(("edges", "connected"), [
    ([(0, 1), (1, 2), (2, 0)], True),
    ([(0, 1), (1, 2)], False),
    ([(0, 1), (1, 0), (2, 3), (3, 2), (1, 2)], False),
    ([(0, 1), (1, 0), (2, 3), (3, 2), (1, 2), (3, 0)], True),
])
def test_strongly_connected(edges: list[tuple[int, int]], connected: bool) -> None:
    src = np.array([s for s, _ in edges], dtype=np.int64)
    dst = np.array([d for _, d in edges], dtype=np.int64)
    assert numeric.strongly_connected(4 if len(edges) > 3 else 3, src, dst) is connected


def same_partition(a: list[int] | np.ndarray, b: list[int] | np.ndarray) -> bool:
    """Do two labellings group the nodes the same way (whatever the label values)?"""
    pairs = set(zip(np.asarray(a).tolist(), np.asarray(b).tolist(), strict=True))
    return len(pairs) == len(set(np.asarray(a).tolist())) == len(set(np.asarray(b).tolist()))


@pytest.mark.parametrize("seed", range(40))
def test_strong_components_match_scipy(seed: int) -> None:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 30))
    edges = int(rng.integers(0, 3 * m))
    src = rng.integers(0, m, edges).astype(np.int64)
    dst = rng.integers(0, m, edges).astype(np.int64)
    graph = coo_matrix((np.ones(edges), (src, dst)), shape=(m, m)).tocsr()
    _, theirs = connected_components(graph, directed=True, connection="strong")
    ours = numeric.strong_components(m, src, dst)
    assert same_partition(ours, theirs), (m, src.tolist(), dst.tolist())


def test_strong_components_of_a_long_chain_need_no_recursion() -> None:
    m = 20_000  # deeper than Python's recursion limit
    src = np.arange(m - 1, dtype=np.int64)
    labels = numeric.strong_components(m, src, src + 1)
    assert len(set(labels)) == m
    cycle = numeric.strong_components(m, np.arange(m, dtype=np.int64),
                                      (np.arange(m, dtype=np.int64) + 1) % m)
    assert set(cycle) == {0}


def test_the_closing_table_imports_no_scipy() -> None:
    code = (
        "import sys\n"
        "from arena.rundir.results import read_results\n"
        "from ratings import aggregate, fit_ratings\n"
        "from reports.rating_tables import format_table\n"
        "from ratings.sources import GameResult\n"
        "results = [GameResult('a', 'b', s) for s in (1.0, 0.5, 0.0, 1.0, 1.0)]\n"
        "print(format_table(fit_ratings(aggregate(results))))\n"
        "ladder = [GameResult(a, b, 1.0) for a, b in ('ab', 'ac', 'bc')]\n"
        "assert 'order' in format_table(fit_ratings(aggregate(ladder)))\n"
        "assert not any(m.split('.')[0] == 'scipy' for m in sys.modules), 'scipy imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
