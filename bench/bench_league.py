"""The league's pairing against round-robin on simulated bots, and the league's nightly
bookkeeping at a million stored games, against a 60 s target.

a) Ranking quality for a fixed budget: 50 bots of known strength, 5,000 games. The league
   places everyone (all unrated), then plays batches of 25 colour pairs chosen by
   :func:`arena.league.pairing.choose_pairs` ("information"), refitting after each batch as
   its blocks of a night would; round-robin plays the same games spread over every pair.
   Figures: Kendall's tau between the fitted and the true ranking (higher is better) and the
   mean 95% error bar of the *true* top 10 (lower is better), over interleaved seeds.
b) A tiered field with new versions each night (:mod:`bench.tiered_league`, issue 35): three
   tiers 600 points apart, a new version 50 points above its parent every night. Today's
   policy, the new one (Bayesian fit, lopsided pairs avoided, parent tests given their share)
   and round-robin play the same games a night. Figures: the share of games on pairs whose
   true expected score is beyond 95% (today's policy against the new one); Kendall's tau and
   the mean 95% interval of the true top 10 (the new policy against round-robin, which it
   must beat on both on every seed); the games until a new version's verdict against its
   parent, and the budget the verdict's simulated tests hold to (:mod:`bench.parent_sim`).
c) Scale: 200 nights of 5,000 games between 100 versions, stored as ``tally.json``
   summaries: decode them, merge, fit, build the field and choose a night of 500 pairs.

Games are drawn from the fit's own model (:mod:`ratings.draws`), no processes.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Final

import msgspec
import numpy as np

from arena.league.pairing import Field, choose_pairs, met_from_counts, placement
from arena.leaguedir.standings import NightSummary, fit_tally
from bench import parent_sim
from bench import tiered_league as tiered
from ratings import RatingFit, aggregate_arrays, fit_ratings
from ratings.draws import outcome_probabilities
from ratings.model import SCALES
from ratings.tally import Tally, merge
from ratings.verdict import Outcome

BOTS: Final = 50
GAMES: Final = 5_000
BATCH: Final = 25
"""Colour pairs between two refits."""
PLACEMENT_OPPONENTS: Final = 4
SPREAD: Final = 200.0
WHITE: Final = 20.0
DRAW_RATE: Final = 0.3
SEEDS: Final = 7
TOP: Final = 10

NIGHTS: Final = 200
VERSIONS: Final = 100
NIGHT_GAMES: Final = 5_000
NIGHT_ACTIVE: Final = 50
NIGHT_PAIRS: Final = 500
TARGET_S: Final = 60.0
TIERED_SEEDS: Final = 5


class Games:
    """Colour pairs played from true strengths, kept as arrays (the fit's input)."""

    def __init__(self, names: Sequence[str], truth: np.ndarray, seed: int) -> None:
        self.names = list(names)
        self.truth = truth
        self.index = {name: i for i, name in enumerate(names)}
        self.rng = np.random.default_rng(seed)
        self.first: list[np.ndarray] = []
        self.second: list[np.ndarray] = []
        self.score: list[np.ndarray] = []

    def play(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Each pair twice, colours swapped."""
        a = np.array([self.index[x] for x, _ in pairs], dtype=np.int64)
        b = np.array([self.index[y] for _, y in pairs], dtype=np.int64)
        first, second = np.concatenate([a, b]), np.concatenate([b, a])
        expected = 1.0 / (1.0 + np.exp(
            -SCALES["ordo"] * (self.truth[first] + WHITE - self.truth[second])))
        win, draw, _ = outcome_probabilities(expected, DRAW_RATE)
        u = self.rng.random(first.size)
        self.first.append(first)
        self.second.append(second)
        self.score.append(np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0)))

    def fit(self) -> RatingFit:
        counts = aggregate_arrays(self.names, np.concatenate(self.first),
                                  np.concatenate(self.second), np.concatenate(self.score))
        return fit_ratings(counts)

    def field(self) -> Field:
        fit = self.fit()
        return Field.from_fit(self.names, fit, met_from_counts(fit.counts))


def bots(count: int, seed: int) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, SPREAD, count)
    return [f"bot{i:02d}@1" for i in range(count)], truth - truth.mean()


def league(names: Sequence[str], truth: np.ndarray, games: int, seed: int,
           batch: int = BATCH, opponents: int = PLACEMENT_OPPONENTS) -> RatingFit:
    """Placement of everyone, then information pairs in batches, refitting after each."""
    played = Games(names, truth, seed)
    rng = random.Random(seed)
    first = placement(names, Field(tuple(names), {}, {}, {}), opponents)
    played.play(first)
    left = games // 2 - len(first)
    while left > 0:
        pairs = choose_pairs(played.field(), min(batch, left), rng)
        played.play(pairs)
        left -= len(pairs)
    return played.fit()


def round_robin(names: Sequence[str], truth: np.ndarray, games: int, seed: int) -> RatingFit:
    """The same budget over every pair in turn (extras spread by the circle order)."""
    played = Games(names, truth, seed)
    field = Field(tuple(names), {}, {}, {})
    played.play(choose_pairs(field, games // 2, random.Random(seed), "round-robin"))
    return played.fit()


def kendall_tau(fitted: np.ndarray, truth: np.ndarray) -> float:
    """Kendall's tau-a (no ties among real-valued strengths; an unrated player ranks last)."""
    r = np.where(np.isnan(fitted), -np.inf, fitted)
    sign = np.sign(r[:, None] - r[None, :]) * np.sign(truth[:, None] - truth[None, :])
    n = len(r)
    return float(sign.sum() / (n * (n - 1)))


def top_error(fit: RatingFit, truth: np.ndarray, top: int = TOP) -> float:
    """Mean 95% error bar of the ``top`` truly strongest."""
    return float(np.mean(fit.errors[np.argsort(-truth)[:top]]))


def quality(seeds: Sequence[int], bots_count: int, games: int,
            batch: int = BATCH) -> dict[str, list[tuple[float, float]]]:
    """(tau, top error) per seed for each policy, the policies interleaved per seed."""
    runs: dict[str, Callable[[list[str], np.ndarray, int, int], RatingFit]] = {
        "league": lambda n, t, g, s: league(n, t, g, s, batch),
        "round-robin": round_robin,
    }
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for seed in seeds:
        names, truth = bots(bots_count, seed)
        for name, run in runs.items():
            fit = run(names, truth, games, seed)
            out[name].append((kendall_tau(fit.ratings, truth), top_error(fit, truth)))
    return out


def _spread(values: Sequence[float], digits: int = 3) -> str:
    return (f"{statistics.median(values):.{digits}f} "
            f"[{min(values):.{digits}f}-{max(values):.{digits}f}]")


def bench_quality() -> None:
    started = time.perf_counter()
    results = quality(range(1, SEEDS + 1), BOTS, GAMES)
    print(f"{BOTS} bots (sd {SPREAD:.0f}), {GAMES:,} games, batches of {BATCH} colour pairs, "
          f"{SEEDS} seeds ({time.perf_counter() - started:.1f} s)")
    for k, label in ((0, "Kendall tau (higher better)"),
                     (1, f"mean 95% error of the true top {TOP} (lower better)")):
        print(f"  {label}:")
        for name, rows in results.items():
            print(f"    {name:12} {_spread([r[k] for r in rows])}")
        ratios = [a[k] / b[k] for a, b in zip(results["league"], results["round-robin"],
                                               strict=True)]
        print(f"    league/round-robin per seed {_spread(ratios)}")


def bench_tiered(seeds: Sequence[int] = range(1, TIERED_SEEDS + 1)) -> None:
    started = time.perf_counter()
    rows = {seed: {policy: tiered.run(policy, seed) for policy in tiered.POLICIES}
            for seed in seeds}
    n = tiered.TIERS * tiered.TIER_SIZE
    print(f"tiered field: {tiered.TIERS} tiers of {tiered.TIER_SIZE}, {tiered.TIER_GAP:.0f} "
          f"apart, +{tiered.NEW_PER_NIGHT} version a night ({tiered.NEW_GAIN:+.0f} over its "
          f"parent), {tiered.NIGHTS} nights of {2 * tiered.NIGHT_PAIRS} games, {n} versions "
          f"at first, {len(rows)} seeds ({time.perf_counter() - started:.1f} s)")
    print(f"  {'seed':>4}  {'lopsided: today':>15} {'new':>6}   {'tau: new':>8} {'r-r':>6} "
          f"{'ratio':>6}   {'top-10 interval: new':>20} {'r-r':>6} {'ratio':>6}")
    beats = True
    for seed, by in rows.items():
        today, new, rr = by["today"], by["new"], by["round-robin"]
        tau_new, tau_rr = (tiered.kendall_tau(r.fit.ratings, r.truth) for r in (new, rr))
        top_new, top_rr = tiered.top_interval(new), tiered.top_interval(rr)
        ok = tau_new > tau_rr and top_new < top_rr
        beats &= ok
        print(f"  {seed:>4}  {today.lopsided_games / today.games:>15.3f} "
              f"{new.lopsided_games / new.games:>6.3f}   {tau_new:>8.4f} {tau_rr:>6.4f} "
              f"{tau_new / tau_rr:>6.3f}   {top_new:>20.1f} {top_rr:>6.1f} "
              f"{top_new / top_rr:>6.3f}{'' if ok else '   <- not better'}")
    print(f"  new policy beats round-robin on tau and interval on every seed: "
          f"{'yes' if beats else 'NO'}")
    for policy in tiered.POLICIES:
        verdicts = [v for by in rows.values() for v in by[policy].verdicts.values()]
        closed = [v.games for v in verdicts if v.closed]
        better = sum(v.outcome is Outcome.BETTER for v in verdicts)
        spread = (f"games until a verdict {_spread([float(g) for g in closed], 0)}"
                  if closed else "no verdict")
        print(f"  parent tests, {policy:11}: {len(closed)}/{len(verdicts)} closed, {better} "
              f"better, {spread}")
    sims = [parent_sim.simulate(50.0, seed) for seed in range(200)]
    within = sum(v.outcome is Outcome.BETTER and v.games <= parent_sim.BUDGET_GAMES
                 for v in sims)
    print(f"  verdict budget: a version 50 Elo stronger is decided better within "
          f"{parent_sim.BUDGET_GAMES} games in {within}/200 simulated tests (games: "
          f"{_spread([float(v.games) for v in sims], 0)})")


def nights(seed: int = 1) -> list[bytes]:
    """``NIGHTS`` summaries as the ``tally.json`` bytes, built from arrays (no object per game):
    each night a sliding window of ``NIGHT_ACTIVE`` versions plays random colour pairs."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, SPREAD, VERSIONS)
    names = [f"v{i:03d}@{1 + i % 3}" for i in range(VERSIONS)]
    out = []
    for night in range(NIGHTS):
        start = round(night * (VERSIONS - NIGHT_ACTIVE) / (NIGHTS - 1))
        local = np.arange(start, start + NIGHT_ACTIVE)
        pairs = NIGHT_GAMES // 2
        a = rng.integers(0, NIGHT_ACTIVE, pairs)
        b = (a + rng.integers(1, NIGHT_ACTIVE, pairs)) % NIGHT_ACTIVE
        first, second = np.concatenate([a, b]), np.concatenate([b, a])
        ta, tb = truth[local[first]], truth[local[second]]
        win, draw, _ = outcome_probabilities(
            1.0 / (1.0 + np.exp(-SCALES["ordo"] * (ta + WHITE - tb))), DRAW_RATE)
        u = rng.random(first.size)
        score = np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))
        counts = aggregate_arrays([names[i] for i in local], first, second, score)
        cells = np.stack([counts.first, counts.second, counts.wins, counts.draws,
                          counts.losses], axis=1).astype(np.int64)
        tally = Tally(counts.players, [tuple(row) for row in cells.tolist()],
                      _pentanomial(a, b, score[:pairs], 1.0 - score[pairs:]))
        out.append(msgspec.json.encode(NightSummary(f"n{night:03d}", tally, NIGHT_GAMES)))
    return out


def _pentanomial(a: np.ndarray, b: np.ndarray, s1: np.ndarray, s2: np.ndarray
                 ) -> list[tuple[int, int, int, int, int, int, int, int]]:
    """Tally rows (lo, hi, ll, ld, wl, dd, wd, ww) of colour pairs whose scores from ``a``'s
    side were ``s1`` and ``s2``."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    flip = a > b
    s1, s2 = np.where(flip, 1.0 - s1, s1), np.where(flip, 1.0 - s2, s2)
    total = s1 + s2
    kind = np.select([total == 0.0, total == 0.5, (total == 1.0) & (s1 == 0.5), total == 1.0,
                      total == 1.5], [0, 1, 3, 2, 4], 5)
    n = NIGHT_ACTIVE
    table = np.bincount((lo * n + hi) * 6 + kind, minlength=n * n * 6).reshape(n * n, 6)
    rows = np.flatnonzero(table.sum(axis=1))
    return [(r // n, r % n, *five) for r, five in zip(rows.tolist(), table[rows].tolist(),
                                                       strict=True)]


def bench_scale() -> None:
    stored = nights()
    size = sum(len(b) for b in stored)
    times: dict[str, float] = {}
    started = time.perf_counter()
    decoder = msgspec.json.Decoder(NightSummary)
    summaries = [decoder.decode(b) for b in stored]
    times["decode"] = time.perf_counter() - started
    started = time.perf_counter()
    merged = merge(s.tally for s in summaries)
    times["merge"] = time.perf_counter() - started
    started = time.perf_counter()
    fit = fit_tally(merged)
    times["fit"] = time.perf_counter() - started
    started = time.perf_counter()
    active = merged.players[-NIGHT_ACTIVE:]
    field = Field.from_fit(active, fit, met_from_counts(fit.counts))
    times["field"] = time.perf_counter() - started
    started = time.perf_counter()
    pairs = choose_pairs(field, NIGHT_PAIRS, random.Random(1))
    times["choose"] = time.perf_counter() - started
    total = sum(times.values())
    print(f"{NIGHTS} nights x {NIGHT_GAMES:,} games = {merged.games:,} games, "
          f"{len(merged.players)} versions, {len(merged.cells):,} cells, "
          f"{size / 1e6:.1f} MB of tally.json")
    print("  " + ", ".join(f"{k} {v:.3f} s" for k, v in times.items())
          + f" ({len(pairs)} pairs over {len({p for pair in pairs for p in pair})} versions)")
    print(f"  total {total:.2f} s = {total / TARGET_S:.3f} x the {TARGET_S:.0f} s target")


def main() -> None:
    bench_quality()
    bench_tiered()
    bench_scale()
