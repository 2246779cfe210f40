"""The rating scales: how a rating difference maps to an expected score.

Its own small module, without numpy, so that the head-to-head statistics
(:mod:`ratings.pairwise`), which need the scale and nothing of the fit, load without the fit's
numpy (the standings ``arena run`` prints when it builds no report).
"""

from __future__ import annotations

import math

ORDO_POINTS = 202.0
"""Ordo's default ``-z``: a rating difference of 202 points means an expected score of 76%."""

SCALES: dict[str, float] = {
    "ordo": math.log(0.76 / 0.24) / ORDO_POINTS,
    "elo": math.log(10.0) / 400.0,
}
"""``beta`` per scale name: the expected score is ``expit(beta * difference)``."""
