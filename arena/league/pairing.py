"""Who plays whom in a league night: placement games for new versions, the tests of new
versions against their parents, then the pairs that sharpen the ratings most.

Pure: it reads what the last fit knows of the active versions (a :class:`Field`: ratings,
intervals and covariance of the Bayesian fit, which rates everyone, each version's parent and
the parent tests still open) and returns colour pairs; the night runner plays them and
refits. Two policies fill a night:

- ``"information"`` spends games where the ratings are least known. First the open tests of
  a new version against its parent (:mod:`ratings.verdict`) get :data:`TEST_SHARE` of the
  pairs. Then the score of a pair is the expected reduction of the variance of the two
  players' rating difference from one more colour pair (a Kalman step on the fit's
  covariance), weighted by the chance that the two are ranked the wrong way round, damped by
  how often the two already met, with some noise. A lopsided pair, whose expected score is
  beyond 95% with the uncertainty of both ratings counted (:data:`LOPSIDED`), is left out:
  its games end as expected and tell nothing, however uncertain the distance. Pairs are taken
  greedily, the covariance updated after each, so one call spreads over the field instead of
  repeating its best pair.
- ``"round-robin"``: every pair in turn, fewest games first (the baseline).

Either way every player keeps a share of the games (even a lopsided pair is taken for a player
with no other): the fit needs a connected comparison graph, and a version far from everyone
would otherwise never play. Placement puts a new version against its parent and a spread of
the versions it is not lopsided against.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import numpy as np

from ratings.model import SCALES
from ratings.numeric import expit

if TYPE_CHECKING:
    from ratings.counts import Counts
    from ratings.model import RatingFit

Z95: Final = 1.959963984540054
"""The normal quantile of a 95% two-sided interval: an error bar is ``Z95`` standard deviations."""

UNKNOWN_ERROR: Final = 400.0
"""The 95% half-width assumed for a player without one: wider than any fitted league rating."""

BETA: Final = SCALES["ordo"]
"""Slope of the expected score per rating point (the fit's default Ordo scale)."""

GAMES_PER_PAIR: Final = 2
"""A colour pair is two games, colours swapped."""

MET_DAMPING: Final = 8.0
"""Games between two players after which a pair's score is halved: the covariance already says
how well a difference is known, this keeps the batch off pairs that met a lot regardless."""

NOISE: Final = 0.3
"""Standard deviation of the log-normal factor on each score: breaks ties (a fresh field is all
ties) and varies the nights without overriding the order of clearly different scores."""

MIN_SHARE: Final = 0.25
"""Each player gets at least this share of the average player's colour pairs in one call."""

ORDER_FLOOR: Final = 0.5
"""What a pair whose order is beyond doubt keeps of its score. The score is weighted by the
chance that the two are ranked the wrong way round (1 when it is a coin toss), since a ranking
is what a league shows; the floor keeps games on settled pairs, whose error bars would
otherwise stay wide. ``bench_league`` (50 bots, 5,000 games, 7 seeds, per-seed ratios against
round-robin, median [min-max]): a floor of 0.5 gives tau x 1.018 [1.002-1.023] and the true
top 10's error bars x 0.930 [0.905-0.950], better on both counts on every seed; 0.1 gave tau
x 1.026 but error bars x 1.02, 0 gave x 1.027 and x 1.44, 1 (no weight) x 1.017 and x 0.91."""

LOPSIDED: Final = 0.05
"""A pair whose expected score is beyond 95% (or below 5%) is lopsided: its games almost
always end as expected and move neither rating, while a league showing a field in tiers
(a strong bot far above a weak one) would spend most of its games there. Such a pair is
taken only for a player below its share with no other pair (:data:`LOPSIDED_WEIGHT`)."""

LOPSIDED_WEIGHT: Final = 1e-6
"""What a lopsided pair keeps of its score."""

TEST_SHARE: Final = 0.25
"""Share of the pairs chosen (after placement) that go to open tests of a new version
against its parent (:mod:`ratings.verdict`), spread evenly over the open tests: a verdict
in a few nights without starving the rest of the field."""

PROBIT: Final = 1.702
"""``expit(PROBIT * x)`` is the normal distribution function to within 0.01."""

POLICIES: Final = ("information", "round-robin")


@dataclass(frozen=True)
class Field:
    """What the pairing knows of the active versions when it chooses."""

    players: tuple[str, ...]
    """The active versions (labels like ``greedy@2``)."""
    ratings: Mapping[str, float]
    """Fitted ratings; a player missing here is unrated (no games yet)."""
    errors: Mapping[str, float]
    """95% half-width of each rating; a missing one counts as :data:`UNKNOWN_ERROR`."""
    met: Mapping[tuple[str, str], int]
    """Games played between two players, keyed ``tuple(sorted((a, b)))``."""
    covariance: Mapping[tuple[str, str], float] = field(default_factory=dict)
    """Covariance of two ratings, keyed ``tuple(sorted((a, b)))``; missing is 0."""
    parents: Mapping[str, str] = field(default_factory=dict)
    """A version's previous version, when both are active: placement includes it."""
    tests: tuple[tuple[str, str], ...] = ()
    """(version, parent) pairs whose verdict (:mod:`ratings.verdict`) is still open: their
    colour pairs get :data:`TEST_SHARE` of the games."""

    @classmethod
    def from_fit(cls, players: Sequence[str], fit: RatingFit | None,
                 met: Mapping[tuple[str, str], int], parents: Mapping[str, str] | None = None,
                 tests: Sequence[tuple[str, str]] = ()) -> Field:
        """The field of ``players`` as ``fit`` rated them (NaN ratings, and players the fit
        does not know, are unrated); errors from the covariance, so at 95% whatever the fit's
        confidence. ``parents`` and ``tests`` are kept where both versions are in
        ``players``."""
        active = tuple(players)
        inside = set(active)
        kin = {c: p for c, p in (parents or {}).items() if c in inside and p in inside}
        open_tests = tuple((c, p) for c, p in tests if c in inside and p in inside and c != p)
        if fit is None:
            return cls(active, {}, {}, dict(met), {}, kin, open_tests)
        where = {name: i for i, name in enumerate(fit.players)}
        rated = [p for p in active if p in where and not math.isnan(fit.ratings[where[p]])]
        ratings = {p: float(fit.ratings[where[p]]) for p in rated}
        errors: dict[str, float] = {}
        covariance: dict[tuple[str, str], float] = {}
        for a_pos, a in enumerate(rated):
            ia = where[a]
            var = float(fit.covariance[ia, ia])
            if math.isfinite(var):
                errors[a] = Z95 * math.sqrt(max(var, 0.0))
            for b in rated[a_pos + 1:]:
                cov = float(fit.covariance[ia, where[b]])
                if math.isfinite(cov):
                    covariance[_key(a, b)] = cov
        return cls(active, ratings, errors, dict(met), covariance, kin, open_tests)


def met_from_counts(counts: Counts) -> dict[tuple[str, str], int]:
    """Games between each two players of ``counts`` (both colours), as :attr:`Field.met`."""
    met: dict[tuple[str, str], int] = {}
    names = counts.players
    for f, s, g in zip(counts.first.tolist(), counts.second.tolist(), counts.games.tolist(),
                       strict=True):
        key = _key(names[f], names[s])
        met[key] = met.get(key, 0) + int(round(g))
    return met


def placement(newcomers: Sequence[str], field: Field, opponents: int, pairs: int = 1
              ) -> list[tuple[str, str]]:
    """Pairs ``(newcomer, opponent)``, each one colour pair: each newcomer plays ``opponents``
    opponents, ``pairs`` colour pairs each: its parent (its previous version,
    :attr:`Field.parents`) when it has one, and the others spread evenly over the established
    field's ratings.

    Established means rated and not a newcomer. The spread is the quantiles of the ranking
    from strongest to weakest (both included), so one night places a newcomer roughly whatever
    its strength. A newcomer the field already rates (the Bayesian fit rates a new version at
    its parent's rating, with the prior's width) is spread over the established players it is
    not lopsided against (:data:`LOPSIDED`, its uncertainty included; the nearest others when
    too few are left): a version of a bot in the top tier is not placed against the bottom
    one. With fewer established players than wanted, a newcomer plays all of them, then other
    newcomers: a circulant spread over the newcomers' list, which connects them all with few
    steps between any two (the fit needs one connected graph). A pair of two newcomers is
    listed once. Deterministic; listed round by round (every pair once, then again).
    """
    if opponents < 0 or pairs < 0:
        raise ValueError(f"opponents and pairs must be >= 0, got {opponents!r} and {pairs!r}")
    fresh = list(dict.fromkeys(newcomers))
    new = set(fresh)
    established = sorted(
        (p for p in field.players if p in field.ratings and p not in new),
        key=lambda p: (-field.ratings[p], p))
    chosen = {player: _placement_opponents(player, established, field, opponents)
              for player in fresh}
    least = min((len(c) for c in chosen.values()), default=0)
    among = max(0, min(opponents - least, len(fresh) - 1))
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for q, player in enumerate(fresh):
        out.extend((player, o) for o in chosen[player])
        for other in _circulant(fresh, q, among):
            key = _key(player, other)
            if key not in seen:
                seen.add(key)
                out.append((player, other) if q < fresh.index(other) else (other, player))
    return out * pairs


def _placement_opponents(player: str, established: list[str], field: Field, wanted: int
                         ) -> list[str]:
    """``player``'s placement opponents among ``established`` (best first): its parent, then
    the quantiles of those it is not lopsided against (:func:`placement`)."""
    parent = field.parents.get(player)
    first = [parent] if parent in established and wanted > 0 else []
    others = [p for p in established if p not in first]
    if player in field.ratings and others:
        centre = field.ratings[player]
        own = (field.errors.get(player, UNKNOWN_ERROR) / Z95) ** 2
        diff = np.array([field.ratings[p] - centre for p in others])
        var = own + np.array([(field.errors.get(p, UNKNOWN_ERROR) / Z95) ** 2 for p in others])
        fair = ~_lopsided(diff, var, LOPSIDED)
        keep = [p for p, ok in zip(others, fair.tolist(), strict=True) if ok]
        near = sorted((p for p in others if p not in set(keep)),
                      key=lambda p: (abs(field.ratings[p] - centre), p))
        keep += near[:max(0, wanted - len(first) - len(keep))]
        others = sorted(keep, key=lambda p: (-field.ratings[p], p))
    return first + _quantiles(others, wanted - len(first))


def _quantiles(ranked: Sequence[str], wanted: int) -> list[str]:
    """``wanted`` players of ``ranked`` evenly from first to last (all when too few)."""
    if wanted >= len(ranked):
        return list(ranked)
    if wanted == 1:
        return [ranked[(len(ranked) - 1) // 2]]
    step = (len(ranked) - 1) / (wanted - 1)
    # floor(x + 0.5), not round(): banker's rounding could pick one index twice
    return [ranked[math.floor(t * step + 0.5)] for t in range(wanted)]


def _circulant(players: Sequence[str], q: int, wanted: int) -> list[str]:
    """``wanted`` others for ``players[q]`` at offsets spread round the list: a symmetric set
    (offset ``o`` and ``m - o`` together), so each pair is chosen from both ends and everyone
    gets ``wanted`` opponents (one more when both ``wanted`` and the list's length are odd)."""
    m = len(players)
    if wanted <= 0:
        return []
    if wanted >= m - 1:
        return [p for i, p in enumerate(players) if i != q]
    # offset 1 makes a ring (connected whatever m); the others shortcut it, spread below m / 2
    h = wanted // 2
    half = [1] + [math.floor(t * m / (2 * h) + 0.5) for t in range(1, h)] if h else []
    offsets = half + [m - o for o in half]
    if wanted % 2:  # odd count: the opposite player (odd m: one from each side, wanted + 1)
        offsets.append(m // 2)
    ordered = list(dict.fromkeys(o % m for o in offsets if o % m))
    extra = 1
    while len(ordered) < wanted:  # rounding made two offsets equal: the nearest free ones
        for o in (extra, m - extra):
            if o % m and o not in ordered and len(ordered) < wanted:
                ordered.append(o)
        extra += 1
    return [players[(q + o) % m] for o in ordered]


def choose_pairs(field: Field, count: int, rng: random.Random, policy: str = "information",
                 *, test_share: float = TEST_SHARE, lopsided: float | None = LOPSIDED
                 ) -> list[tuple[str, str]]:
    """``count`` colour pairs for the rest of the night (a pair may repeat if the field is small).

    ``"information"``: first :data:`TEST_SHARE` (``test_share``) of the pairs to the open
    version-against-parent tests (spread evenly over them), then greedy on the
    expected variance reduction of each pair's rating difference, the covariance updated
    after each pair taken, damped by games met, with noise from ``rng``; a pair whose expected
    score is within ``lopsided`` of 0 or 1 (None: no such rule) is taken only for a player
    with nothing else; an unrated player counts as maximally uncertain. Each player gets at
    least :data:`MIN_SHARE` of the average share. ``"round-robin"``: every pair in turn
    (a circle-method order shuffled by ``rng``), fewest games met first.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown pairing policy {policy!r} (known: {', '.join(POLICIES)})")
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count!r}")
    if not 0.0 <= test_share <= 1.0:
        raise ValueError(f"test_share must be between 0 and 1, got {test_share!r}")
    players = list(dict.fromkeys(field.players))
    if len(players) < 2 or count == 0:
        return []
    if policy == "round-robin":
        return _round_robin(field, players, count, rng)
    tests = _test_pairs(field, _test_count(field, count, test_share, rng), rng)
    return _information(field, players, count, rng, tests, lopsided)


def _test_count(field: Field, count: int, share: float, rng: random.Random) -> int:
    """How many of ``count`` pairs go to the open tests: ``share`` of them, the fraction
    rounded up or down at random (a night of small blocks still gives its share)."""
    if not field.tests:
        return 0
    wanted = share * count
    whole = math.floor(wanted)
    return min(count, whole + (1 if rng.random() < wanted - whole else 0))


def _test_pairs(field: Field, count: int, rng: random.Random) -> list[tuple[str, str]]:
    """``count`` pairs (version, parent) spread evenly over the open tests, in an order shuffled
    by ``rng`` (so that over a night's calls each test gets an equal part, whatever games it
    already has: an older test is not held back while a newer one catches up)."""
    inside = set(field.players)
    tests = [t for t in field.tests if t[0] in inside and t[1] in inside]
    if not tests:
        return []
    rng.shuffle(tests)
    return [tests[k % len(tests)] for k in range(count)]


def _round_robin(field: Field, players: list[str], count: int, rng: random.Random
                 ) -> list[tuple[str, str]]:
    """Fewest games first; ties in circle-method order, so consecutive pairs are rounds in
    which everyone plays once and leftover pairs spread over the players."""
    order = list(players)
    rng.shuffle(order)
    heap = [(field.met.get(_key(a, b), 0), position, a, b)
            for position, (a, b) in enumerate(_circle(order))]
    heapq.heapify(heap)
    out: list[tuple[str, str]] = []
    while len(out) < count:
        met, position, a, b = heapq.heappop(heap)
        out.append((a, b))
        heapq.heappush(heap, (met + GAMES_PER_PAIR, position, a, b))
    return out


def _circle(players: list[str]) -> list[tuple[str, str]]:
    """Every pair once, as rounds of the circle method (one player fixed, the others turn)."""
    ring: list[str | None] = list(players) + ([None] if len(players) % 2 else [])
    n = len(ring)
    out: list[tuple[str, str]] = []
    for _ in range(n - 1):
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is not None and b is not None:
                out.append((a, b))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return out


def _information(field: Field, players: list[str], count: int, rng: random.Random,
                 forced: Sequence[tuple[str, str]], lopsided: float | None
                 ) -> list[tuple[str, str]]:
    """The greedy choice (:func:`choose_pairs`); the ``forced`` pairs are taken first, spread
    evenly through the list, and count like the others (the covariance, games met and shares
    updated after each)."""
    n = len(players)
    cov = _covariance(field, players)
    rating = np.array([field.ratings.get(p, 0.0) for p in players])
    unrated = np.array([p not in field.ratings for p in players])
    diff = rating[:, None] - rating[None, :]
    diff[unrated, :] = 0.0
    diff[:, unrated] = 0.0
    expected = 1.0 / (1.0 + np.exp(-BETA * diff))
    info = GAMES_PER_PAIR * BETA * BETA * expected * (1.0 - expected)
    met = np.zeros((n, n))
    index = {p: i for i, p in enumerate(players)}
    for (a, b), games in field.met.items():
        if a in index and b in index:
            met[index[a], index[b]] = met[index[b], index[a]] = games
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    noise = np.random.default_rng(rng.getrandbits(64))
    quota = math.floor(MIN_SHARE * GAMES_PER_PAIR * count / n)
    taken = np.zeros(n, dtype=np.int64)
    slots = {math.floor((k + 0.5) * count / len(forced)): pair
             for k, pair in enumerate(forced)} if forced else {}
    out: list[tuple[str, str]] = []
    for left in range(count, 0, -1):
        d = np.diag(cov)
        var = np.maximum(d[:, None] + d[None, :] - 2.0 * cov, 1e-9)
        if len(out) in slots:
            a, b = slots[len(out)]
            i, j = index[a], index[b]
            out.append((a, b))
        else:
            gain = info * var * var / (1.0 + info * var) / (1.0 + met / MET_DAMPING)
            misorder = 2.0 * expit(-PROBIT * np.abs(diff) / np.sqrt(var))  # 1 for a coin toss
            gain *= ORDER_FLOOR + (1.0 - ORDER_FLOOR) * misorder
            if lopsided is not None:
                gain *= np.where(_lopsided(diff, var, lopsided), LOPSIDED_WEIGHT, 1.0)
            score = np.where(upper, gain * np.exp(NOISE * noise.standard_normal((n, n))), -1.0)
            score = np.maximum(score, score.T)
            short = np.maximum(quota - taken, 0)
            if short.sum() >= left:  # the rest of the call must feed the players below quota
                needy = int(np.argmax(short))
                row = score[needy].copy()
                row[needy] = -1.0
                row += np.where(short > 0, row.max() + 1.0, 0.0) * (np.arange(n) != needy)
                i, j = sorted((needy, int(np.argmax(row))))
            else:
                flat = int(np.argmax(np.where(upper, score, -1.0)))
                i, j = divmod(flat, n)
            out.append((players[i], players[j]))
        taken[i] += 1
        taken[j] += 1
        met[i, j] += GAMES_PER_PAIR
        met[j, i] += GAMES_PER_PAIR
        # Kalman step: one more observation of r_i - r_j with information info[i, j]
        h = cov[:, i] - cov[:, j]
        cov -= np.outer(h, h) * (info[i, j] / (1.0 + info[i, j] * var[i, j]))
    return out


def _lopsided(diff: np.ndarray, var: np.ndarray, margin: float) -> np.ndarray:
    """Pairs whose expected score is within ``margin`` of 0 or 1, the uncertainty of their
    difference included (a logistic of a normal: ``expit(beta d / sqrt(1 + pi beta^2 v / 8))``):
    two players far apart on ratings that are barely known are not yet lopsided."""
    spread = np.sqrt(1.0 + math.pi * BETA * BETA * var / 8.0)
    result: np.ndarray = expit(BETA * np.abs(diff) / spread) > 1.0 - margin
    return result


def _covariance(field: Field, players: list[str]) -> np.ndarray:
    """The ratings' covariance over ``players``: the field's where known, an independent
    :data:`UNKNOWN_ERROR`-wide rating for everyone else."""
    n = len(players)
    cov = np.zeros((n, n))
    for i, p in enumerate(players):
        error = field.errors.get(p, UNKNOWN_ERROR) if p in field.ratings else UNKNOWN_ERROR
        cov[i, i] = (max(error, 0.0) / Z95) ** 2
    if field.covariance:
        for i, a in enumerate(players):
            if a not in field.ratings:
                continue
            for j in range(i + 1, n):
                b = players[j]
                if b in field.ratings:
                    cov[i, j] = cov[j, i] = field.covariance.get(_key(a, b), 0.0)
    return cov


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)
