"""The referee's adjudication settings: the draw rules and caps the games' rules leave to the
referee (docs/rules.md, section Adjudication), and score adjudication from the bots' own
evaluations (as cutechess's ``-resign`` and ``-draw``)."""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

MATE_CP: Final = 100_000
"""A mate score counts as this many centipawns (sign kept): beyond any resign threshold."""


class ResignRule(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A side whose own score is ``-score`` cp or worse on ``moves`` moves in a row loses; with
    ``twosided`` only when its opponent's score is ``+score`` or better on as many moves."""

    score: Annotated[int, msgspec.Meta(gt=0)]
    moves: Annotated[int, msgspec.Meta(gt=0)] = 3
    twosided: bool = False


class DrawRule(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A draw once both sides' scores stayed within ``score`` cp of 0 on ``moves`` moves in a
    row each, from move ``after`` on (full moves: ``after`` moves of each side)."""

    moves: Annotated[int, msgspec.Meta(gt=0)]
    score: Annotated[int, msgspec.Meta(ge=0)]
    after: Annotated[int, msgspec.Meta(ge=0)] = 0


class Adjudication(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Decoded as-is from a config's ``[adjudication]`` table."""

    max_plies: Annotated[int, msgspec.Meta(gt=0)] | None = None
    """Stop a game after this many plies (opening included) and score it a draw."""
    draw_rules: bool = True
    """Apply the game's own default draw adjudication (``Game.adjudication()``): repetition,
    FMJD counts, Donkan's partie caps."""
    resign: ResignRule | None = None
    """Score adjudication: a side that reports it is lost, for long enough, loses."""
    draw: DrawRule | None = None
    """Score adjudication: both sides reporting a level game, for long enough, draw."""


class ScoreVerdict(msgspec.Struct):
    winner: int | None
    rule: str
    """``resign`` or ``draw``: which rule ended the game (the record keeps it)."""
    text: str
    """For a resignation, with ``{loser}`` and ``{winner}`` for the sides' names."""


class ScoreWatch:
    """Counts, per side, the consecutive moves whose reported score met each rule; a move
    without a score (book moves, bots that print none) breaks that side's run."""

    def __init__(self, adjudication: Adjudication) -> None:
        self.resign = adjudication.resign
        self.draw = adjudication.draw
        self.losing = [0, 0]
        self.winning = [0, 0]
        self.level = [0, 0]

    @property
    def active(self) -> bool:
        return self.resign is not None or self.draw is not None

    def observe(self, side: int, score_cp: int | None, ply: int) -> ScoreVerdict | None:
        """Note ``side``'s score for the move that made ``ply`` plies; a verdict or None."""
        if score_cp is None:
            self.losing[side] = self.winning[side] = self.level[side] = 0
            return None
        if self.resign is not None:
            s = self.resign.score
            self.losing[side] = self.losing[side] + 1 if score_cp <= -s else 0
            self.winning[side] = self.winning[side] + 1 if score_cp >= s else 0
            for loser in (side, 1 - side):
                if self.losing[loser] < self.resign.moves:
                    continue
                if self.resign.twosided and self.winning[1 - loser] < self.resign.moves:
                    continue
                agreed = (f", and {{winner}}'s +{s} cp or better as long (twosided)"
                          if self.resign.twosided else "")
                return ScoreVerdict(1 - loser, "resign",
                                    f"{{loser}} resigns by adjudication: its own score was "
                                    f"-{s} cp or worse on {self.losing[loser]} moves in a "
                                    f"row{agreed}")
        if self.draw is not None:
            self.level[side] = self.level[side] + 1 if abs(score_cp) <= self.draw.score else 0
            if (min(self.level) >= self.draw.moves and ply >= 2 * self.draw.after):
                return ScoreVerdict(None, "draw",
                                    f"draw by adjudication: both scores within "
                                    f"{self.draw.score} cp of 0 on {self.draw.moves} moves in "
                                    f"a row each, after move {self.draw.after}")
        return None


def centipawns_of(info: object) -> int | None:
    """A search report's score in centipawns (mate as :data:`MATE_CP`), or None."""
    if info is None:
        return None
    mate = getattr(info, "score_mate", None)
    if mate is not None:
        return MATE_CP if mate > 0 else -MATE_CP
    cp = getattr(info, "score_cp", None)
    return cp if isinstance(cp, int) else None
