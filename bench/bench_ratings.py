"""Rating 100 players from 1,000,000 results: aggregation + fit + error bars, against a 5 s target.

Results are generated as arrays (the ratings code never sees a Python object per game here:
aggregation into per-pair-per-colour counts is one ``np.bincount``). Error bars at this size
come from the analytic (Hessian/sandwich) covariance; a short simulated-replay run is timed
separately for comparison.
"""

from __future__ import annotations

import time

import numpy as np

from ratings import GameResult, aggregate, aggregate_arrays, fit_ratings
from ratings.draws import outcome_probabilities
from ratings.model import SCALES

PLAYERS = 100
RESULTS = 1_000_000
TARGET_S = 5.0


def generate(seed: int = 1) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, 200.0, PLAYERS)
    truth -= truth.mean()
    first = rng.integers(0, PLAYERS, RESULTS)
    second = (first + rng.integers(1, PLAYERS, RESULTS)) % PLAYERS
    expected = 1.0 / (1.0 + np.exp(-SCALES["ordo"] * (truth[first] + 25.0 - truth[second])))
    pw, pd, _ = outcome_probabilities(expected, 0.3)
    u = rng.random(RESULTS)
    score = np.where(u < pw, 1.0, np.where(u < pw + pd, 0.5, 0.0))
    names = [f"bot{i:03d}" for i in range(PLAYERS)]
    return names, first, second, score, truth


def main() -> None:
    names, first, second, score, truth = generate()
    started = time.perf_counter()
    counts = aggregate_arrays(names, first, second, score)
    aggregated = time.perf_counter()
    fit = fit_ratings(counts, errors="hessian")
    done = time.perf_counter()
    total = done - started
    print(f"players {PLAYERS}, results {RESULTS:,}, cells {counts.first.size:,}")
    print(f"aggregate {aggregated - started:.3f} s, fit + hessian errors {done - aggregated:.3f} s")
    print(f"total {total:.3f} s = {total / TARGET_S:.2f} x the {TARGET_S:.0f} s target")
    dev = np.abs(fit.ratings - truth)
    print(
        f"max |rating - truth| {dev.max():.1f} (typical 95% error {np.median(fit.errors):.1f}); "
        f"first-move advantage {fit.white_advantage:.1f} +/- {fit.white_advantage_sd:.1f} "
        f"(truth 25); draw rate {100 * fit.draw_rate:.2f} % (truth 30)"
    )
    games = [
        GameResult(names[f], names[b], float(s))
        for f, b, s in zip(first, second, score, strict=True)
    ]
    started = time.perf_counter()
    aggregate(games)
    print(
        f"(from 1M GameResult objects instead of arrays, aggregation takes "
        f"{time.perf_counter() - started:.2f} s)"
    )
    runs = 100
    started = time.perf_counter()
    sim = fit_ratings(counts, errors="simulation", simulations=runs, seed=1)
    elapsed = time.perf_counter() - started
    ratio = np.median(sim.errors / fit.errors)
    print(
        f"simulated replays: {runs} in {elapsed:.2f} s "
        f"(~{elapsed * 1000 / runs:.0f} s for Ordo's 1000); median error ratio sim/hessian "
        f"{ratio:.3f}"
    )
