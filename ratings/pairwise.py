"""Head-to-head statistics: W/D/L, score, Elo difference with error, LOS, pentanomial counts.

These are the numbers cutechess-cli and fastchess print for a two-player match, computed for
every pair of players that met. Games played as colour pairs (same opening, colours swapped)
are also counted as pentanomial outcomes: a pair's two results are correlated through the
opening, so the pentanomial error is the honest one for paired schedules and is usually
smaller than the trinomial one.

A colour pair is identified by the ``pair`` id the source carries (a record tag), or else by
two consecutive games between the same two players with the colours swapped.

Plain Python, no numpy: the standings ``arena run`` prints when it builds no report show
these lines and nothing that needs the fit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from ratings.scale import SCALES
from ratings.sources import GameResult

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Per-game average score of a colour pair for the five pentanomial outcomes (LL .. WW)."""


@dataclass(frozen=True)
class Pentanomial:
    """Colour pairs by outcome, from one player's point of view (``wl``: one win, one loss)."""

    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def five(self) -> tuple[int, int, int, int, int]:
        """Counts for pair scores 0, 1/2, 1, 3/2, 2 (``wl`` and ``dd`` merged, as fishtest)."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    def flipped(self) -> Pentanomial:
        return Pentanomial(self.ww, self.wd, self.wl, self.dd, self.ld, self.ll)

    def add(self, first: float, second: float) -> Pentanomial:
        """This tally plus one pair whose two game scores were ``first`` and ``second``."""
        total = first + second
        fields = {
            0.0: "ll",
            0.5: "ld",
            1.5: "wd",
            2.0: "ww",
        }
        name = ("dd" if first == 0.5 else "wl") if total == 1.0 else fields[total]
        values = {k: getattr(self, k) for k in ("ll", "ld", "wl", "dd", "wd", "ww")}
        values[name] += 1
        return Pentanomial(**values)


def score_to_elo(score: float, scale: str = "ordo") -> float:
    """Rating difference for an expected score (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return math.log(score / (1.0 - score)) / SCALES[scale]


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def score_interval(points: float, games: int,
                   confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson interval of a share of points (draws as half points) over ``games``: the
    uncertainty of a score, bounded within [0, 1] even at 0% and 100%, where the Elo
    difference is unbounded; (0, 1) without games."""
    if not games:
        return 0.0, 1.0
    z = _z(confidence)
    p = points / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return max(0.0, centre - half), min(1.0, centre + half)


def _interval(score: float, sd: float, scale: str, confidence: float) -> float:
    """Half-width in rating points of ``score ± z sd`` (fastchess's convention).

    Infinite when the interval reaches a score of 0 or 1, and when the sample has no spread at
    all (every game or pair the same result, e.g. eight draws): a zero sample variance says
    nothing about the true one, so it bounds nothing, rather than an error of 0."""
    if sd <= 0.0:
        return math.inf
    z = _z(confidence)
    lo, hi = score - z * sd, score + z * sd
    if lo <= 0.0 or hi >= 1.0:
        return math.inf
    return (score_to_elo(hi, scale) - score_to_elo(lo, scale)) / 2.0


def trinomial_error(
    wins: int, draws: int, losses: int, scale: str = "ordo", confidence: float = 0.95
) -> float:
    """Error (half-width, rating points) of the Elo difference from W/D/L counts."""
    n = wins + draws + losses
    if n == 0:
        return math.nan
    s = (wins + 0.5 * draws) / n
    var = (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s**2) / n
    return _interval(s, math.sqrt(var / n), scale, confidence)


def pentanomial_error(penta: Pentanomial, scale: str = "ordo", confidence: float = 0.95) -> float:
    """Error (half-width, rating points) of the Elo difference from pentanomial counts."""
    counts = penta.five()
    pairs = sum(counts)
    if pairs == 0:
        return math.nan
    s = sum(n * x for n, x in zip(counts, PAIR_SCORES, strict=True)) / pairs
    var = sum(n * (x - s) ** 2 for n, x in zip(counts, PAIR_SCORES, strict=True)) / pairs
    return _interval(s, math.sqrt(var / pairs), scale, confidence)


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """LOS from wins and losses (draws carry no information), as cutechess-cli computes it."""
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


@dataclass(frozen=True)
class PairStats:
    """One player's record against one opponent (both colours)."""

    player: str
    opponent: str
    wins: int
    draws: int
    losses: int
    penta: Pentanomial
    unpaired: int
    """Games that could not be matched into colour pairs (not in ``penta``)."""
    scale: str = "ordo"
    confidence: float = 0.95

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else math.nan

    @property
    def elo(self) -> float:
        return score_to_elo(self.score, self.scale) if self.games else math.nan

    @property
    def elo_error(self) -> float:
        return trinomial_error(self.wins, self.draws, self.losses, self.scale, self.confidence)

    @property
    def penta_elo_error(self) -> float:
        return pentanomial_error(self.penta, self.scale, self.confidence)

    @property
    def los(self) -> float:
        return likelihood_of_superiority(self.wins, self.losses)

    def flipped(self) -> PairStats:
        return PairStats(
            self.opponent,
            self.player,
            self.losses,
            self.draws,
            self.wins,
            self.penta.flipped(),
            self.unpaired,
            self.scale,
            self.confidence,
        )

    def to_dict(self) -> dict[str, object]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) or math.isinf(x) else x

        return {
            "player": self.player,
            "opponent": self.opponent,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "games": self.games,
            "score": num(self.score),
            "elo": num(self.elo),
            "elo_error": num(self.elo_error),
            "los": self.los,
            "pentanomial": list(self.penta.five()),
            "pentanomial_wl_dd": [self.penta.wl, self.penta.dd],
            "pentanomial_elo_error": num(self.penta_elo_error),
            "unpaired": self.unpaired,
        }


def colour_pairs(
    games: Iterable[GameResult],
) -> tuple[list[tuple[GameResult, GameResult]], list[GameResult]]:
    """Match games into colour pairs; returns the pairs and the games left over.

    Games with a ``pair`` id pair with the other game of that id (same two players, colours
    swapped); games without one pair with the next game between the same two players if the
    colours are swapped, else the earlier one is left over.
    """
    pairs: list[tuple[GameResult, GameResult]] = []
    single: list[GameResult] = []
    by_id: dict[tuple[str, str, str], GameResult] = {}
    pending: dict[tuple[str, str], GameResult] = {}
    for g in games:
        key = (min(g.first, g.second), max(g.first, g.second))
        if g.pair is not None:
            tag = (g.pair, *key)
            other = by_id.pop(tag, None)
            if other is None:
                by_id[tag] = g
            elif other.first == g.second:
                pairs.append((other, g))
            else:
                single.extend((other, g))
            continue
        other = pending.pop(key, None)
        if other is None:
            pending[key] = g
        elif other.first == g.second:
            pairs.append((other, g))
        else:
            single.append(other)
            pending[key] = g
    single.extend(by_id.values())
    single.extend(pending.values())
    return pairs, single


def pairwise(
    games: Sequence[GameResult], scale: str = "ordo", confidence: float = 0.95
) -> dict[tuple[str, str], PairStats]:
    """Head-to-head statistics for every pair that met, keyed ``(a, b)`` in order of appearance.

    ``stats[(a, b)]`` is from ``a``'s point of view; ``stats[(a, b)].flipped()`` from ``b``'s.
    """
    order: dict[str, int] = {}
    for g in games:
        order.setdefault(g.first, len(order))
        order.setdefault(g.second, len(order))

    def key(x: str, y: str) -> tuple[str, str]:
        return (x, y) if order[x] < order[y] else (y, x)

    wdl: dict[tuple[str, str], list[int]] = {}
    for g in games:
        k = key(g.first, g.second)
        score = g.score if g.first == k[0] else 1.0 - g.score
        slot = wdl.setdefault(k, [0, 0, 0])
        slot[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    pairs, single = colour_pairs(games)
    penta: dict[tuple[str, str], Pentanomial] = {}
    for one, two in pairs:
        k = key(one.first, one.second)
        s1 = one.score if one.first == k[0] else 1.0 - one.score
        s2 = two.score if two.first == k[0] else 1.0 - two.score
        penta[k] = penta.get(k, Pentanomial()).add(s1, s2)
    unpaired: dict[tuple[str, str], int] = {}
    for g in single:
        k = key(g.first, g.second)
        unpaired[k] = unpaired.get(k, 0) + 1
    return {
        k: PairStats(
            k[0],
            k[1],
            w,
            d,
            lo,
            penta.get(k, Pentanomial()),
            unpaired.get(k, 0),
            scale,
            confidence,
        )
        for k, (w, d, lo) in wdl.items()
    }
