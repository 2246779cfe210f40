"""SPRT early stop for a two-bot match: feeds finished games to the ratings' SPRT and says when
to stop scheduling.

The test itself (LLR, bounds, pentanomial pairs) is :class:`ratings.Sprt`, the project's
one implementation; this module only knows which bot is tested (the config's first bot), how
to score a record from its point of view, and which colour pair a game belongs to.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.settings.config import SprtConfig
from ratings import Sprt, SprtStatus
from referee.record import GameRecord


def tested_score(record: GameRecord, tested: str) -> float | None:
    """The tested bot's points in a finished game (None for an unfinished ``*``)."""
    if record.result == "1/2-1/2":
        return 0.5
    if record.result not in ("1-0", "0-1"):
        return None
    first_won = record.result == "1-0"
    return 1.0 if first_won == (record.p1 == tested) else 0.0


class SprtStop:
    """Follows the match; :meth:`add` returns a stop message once the SPRT has decided."""

    def __init__(self, config: SprtConfig, tested: str, opponent: str) -> None:
        self.tested = tested
        self.opponent = opponent
        self.sprt = Sprt(
            config.elo0,
            config.elo1,
            config.alpha,
            config.beta,
            model=config.model,
            elo_model=config.elo_model,
        )
        self.status: SprtStatus = self.sprt.status()

    def feed(self, records: Iterable[GameRecord]) -> None:
        """Games already played (from the journal, on resume), in journal order."""
        self.add_all(records)

    @property
    def decided(self) -> bool:
        return self.status.finished

    def add(self, record: GameRecord) -> str | None:
        return self.add_all([record])

    def add_all(self, records: Iterable[GameRecord]) -> str | None:
        """Count games (those journaled together), then decide once: the LLRs cost
        milliseconds to solve, too much to solve again for each of 10,000 games a minute."""
        counted = False
        for record in records:
            score = tested_score(record, self.tested)
            if score is not None:
                self.sprt.add(score, pair=record.tags.get("pair") or None)
                counted = True
        if counted:
            self.status = self.sprt.status()
        return self.message() if self.decided else None

    def message(self) -> str:
        return f"SPRT {self.tested} vs {self.opponent}: {self.status.describe()}"
