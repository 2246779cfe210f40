"""The referee's adjudication settings: the draw rules and caps the games' rules leave to
the referee (docs/rules.md, section Adjudication)."""

from __future__ import annotations

from typing import Annotated

import msgspec


class Adjudication(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Decoded as-is from a config's ``[adjudication]`` table."""

    max_plies: Annotated[int, msgspec.Meta(gt=0)] | None = None
    """Stop a game after this many plies (opening included) and score it a draw."""
    draw_rules: bool = True
    """Apply the game's own default draw adjudication (``Game.adjudication()``): repetition,
    FMJD counts, Donkan's partie caps."""
