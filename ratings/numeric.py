"""The few numeric tools the rating fit needs, in numpy and the standard library, not scipy.

Every ``arena run`` ends with an Elo table: importing scipy for it cost 0.6 s of CPU and
tens of MB of memory, for a logistic function, a normal distribution, a root finder, a
one-dimensional minimiser and the strongly connected components of a graph of a few players
(:mod:`ratings.separation`: results that only order the players). Each is
small, exact to the tolerance asked and tested against scipy (``tests/test_ratings_numeric.py``);
modules that need more of scipy (SPRT, pairwise statistics) import it themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist
from typing import TYPE_CHECKING, Final

import numpy as np

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import ArrayLike, NDArray

    FloatArray = NDArray[np.float64]


_STANDARD: Final = NormalDist()
_GOLDEN: Final = (3.0 - math.sqrt(5.0)) / 2.0


def expit(x: ArrayLike) -> FloatArray:
    """The logistic function ``1 / (1 + exp(-x))``, without overflow for large ``|x|``."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    result: FloatArray = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return result


_erf = np.frompyfunc(math.erf, 1, 1)


class _Normal:
    """The standard normal distribution's ``cdf`` (elementwise) and ``ppf`` (scalar)."""

    @staticmethod
    def cdf(x: ArrayLike) -> FloatArray:
        values = np.asarray(x, dtype=np.float64)
        out = np.full(values.shape, np.nan)
        finite = ~np.isnan(values)
        erf = np.asarray(_erf(values[finite] / math.sqrt(2.0)), dtype=np.float64)
        out[finite] = 0.5 * (1.0 + erf)
        return out

    @staticmethod
    def ppf(p: float) -> float:
        return _STANDARD.inv_cdf(p)


norm: Final = _Normal()
"""The standard normal distribution (``norm.cdf``, ``norm.ppf``), as ``scipy.stats.norm``."""


def bisect_root(f: Callable[[float], float], lo: float, hi: float,
                xtol: float = 1e-12) -> float:
    """A root of ``f`` between ``lo`` and ``hi`` (where ``f`` changes sign), to ``xtol``, by
    bisection (not Brent's method, as scipy's ``brentq``): the callers' functions are monotone
    and cheap, and ~50 halvings reach any tolerance asked of them."""
    f_lo, f_hi = f(lo), f(hi)
    if f_lo == 0.0:
        return lo
    if f_hi == 0.0:
        return hi
    if (f_lo > 0) == (f_hi > 0):
        raise ValueError("f(lo) and f(hi) must have different signs")
    while hi - lo > xtol:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:  # xtol below the float spacing here: as close as it gets
            break
        f_mid = f(mid)
        if f_mid == 0.0:
            return mid
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def minimize_bounded(f: Callable[[float], float], lo: float, hi: float,
                     xatol: float = 1e-10) -> float:
    """The minimum of a unimodal ``f`` on ``[lo, hi]``, to ``xatol``, by golden-section search."""
    a, b = lo, hi
    c = a + _GOLDEN * (b - a)
    d = b - _GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    while b - a > xatol:
        if fc <= fd:
            b, d, fd = d, c, fc
            c = a + _GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = b - _GOLDEN * (b - a)
            fd = f(d)
    return 0.5 * (a + b)


def strongly_connected(m: int, src: NDArray[np.int64], dst: NDArray[np.int64]) -> bool:
    """True when the directed graph on ``m`` nodes with edges ``src -> dst`` is strongly
    connected: every node reaches node 0 and node 0 reaches every node."""
    if m <= 1:
        return True
    forward: list[list[int]] = [[] for _ in range(m)]
    backward: list[list[int]] = [[] for _ in range(m)]
    for s, d in zip(src.tolist(), dst.tolist(), strict=True):
        forward[s].append(d)
        backward[d].append(s)
    return _reaches_all(forward) and _reaches_all(backward)


def strong_components(m: int, src: NDArray[np.int64], dst: NDArray[np.int64]) -> list[int]:
    """The strongly connected component of each of the ``m`` nodes (labels 0, 1, ... in no
    particular order), as ``scipy.sparse.csgraph.connected_components(connection="strong")``
    labels them up to renaming: Kosaraju's two passes, iterative (no recursion limit)."""
    forward: list[list[int]] = [[] for _ in range(m)]
    backward: list[list[int]] = [[] for _ in range(m)]
    for s, d in zip(src.tolist(), dst.tolist(), strict=True):
        forward[s].append(d)
        backward[d].append(s)
    finished: list[int] = []  # nodes in order of their depth-first finish
    seen = [False] * m
    for root in range(m):
        if seen[root]:
            continue
        seen[root] = True
        stack = [(root, 0)]
        while stack:
            node, k = stack.pop()
            if k < len(forward[node]):
                stack.append((node, k + 1))
                nxt = forward[node][k]
                if not seen[nxt]:
                    seen[nxt] = True
                    stack.append((nxt, 0))
            else:
                finished.append(node)
    label = [-1] * m
    count = 0
    for root in reversed(finished):  # the reversed graph, latest finish first
        if label[root] >= 0:
            continue
        label[root] = count
        todo = [root]
        while todo:
            for prev in backward[todo.pop()]:
                if label[prev] < 0:
                    label[prev] = count
                    todo.append(prev)
        count += 1
    return label


def _reaches_all(edges: list[list[int]]) -> bool:
    seen = [False] * len(edges)
    seen[0] = True
    todo = [0]
    while todo:
        for nxt in edges[todo.pop()]:
            if not seen[nxt]:
                seen[nxt] = True
                todo.append(nxt)
    return all(seen)
