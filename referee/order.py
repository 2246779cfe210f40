"""The game order: everything one game needs, as one checked value.

A :class:`GameOrder` is built once per game, by :meth:`GameOrder.checked` (the game's name and
options are checked there, and nowhere after), and then passed on as-is: to
:func:`referee.match.play_game` in this process, pickled to a cluster worker, into the live
file's header. Its time controls are parsed already (:class:`~referee.timecontrol.TimeControl`),
each side's own; its game options are the ones the game is built with, the referee's
``draw_rules`` switch included (:func:`referee.gameoptions.game_options_for`).

Apart from :mod:`referee.match` so that a config can build orders without importing trio.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.gameoptions import game_options_for
from referee.timecontrol import TimeControl

_NO_CLOCK = TimeControl()


class GameOrder(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One game to play; ``bots[0]`` (p1) moves first from the standard start."""

    game: str
    bots: tuple[BotSpec, BotSpec]
    """p1 and p2, as they are started (a cluster worker swaps in its own paths)."""
    time_controls: tuple[TimeControl, TimeControl]
    """Each side's clock, its own override already resolved."""
    id: str = ""
    round: int = 1
    start_position: str | None = None
    """The start position's text; None for the game's standard start."""
    opening: tuple[str, ...] = ()
    """Moves forced on both bots before they play, recorded as book moves."""
    adjudication: Adjudication = msgspec.field(default_factory=Adjudication)
    game_options: dict[str, str] = {}
    """Checked, with the ``draw_rules`` switch for games that take it; read only."""
    tags: dict[str, str] = {}
    """Put on the game's record as they are (the runner's pairing, pair and opening source)."""

    @classmethod
    def checked(
        cls,
        game: str,
        p1: BotSpec,
        p2: BotSpec,
        *,
        tc: TimeControl | tuple[TimeControl, TimeControl] | None = None,
        start_position: str | None = None,
        opening: Sequence[str] = (),
        adjudication: Adjudication | None = None,
        game_options: Mapping[str, str] | None = None,
        id: str = "",
        round: int = 1,
        tags: Mapping[str, str] | None = None,
    ) -> GameOrder:
        """The order every caller builds: checks the game's name and its options (a
        :class:`~referee.games.GameError` names the fault) and resolves the defaults.

        ``tc`` is both sides' time control, or one per side (p1's, p2's); None: no clock.
        The start position and the opening are checked when the game's start is prepared
        (:func:`referee.match.prepare_start`), before any process starts."""
        adjudication = adjudication if adjudication is not None else Adjudication()
        options = game_options_for(game, game_options or {}, adjudication)
        if tc is None:
            tcs = (_NO_CLOCK, _NO_CLOCK)
        elif isinstance(tc, TimeControl):
            tcs = (tc, tc)
        else:
            tcs = tc
        return cls(
            game=game, bots=(p1, p2), time_controls=tcs, id=id, round=round,
            start_position=None if start_position in (None, "", "startpos") else start_position,
            opening=tuple(opening), adjudication=adjudication, game_options=options,
            tags=dict(tags or {}),
        )

    @property
    def time_control(self) -> str:
        """The time-control text the record and the live header show: one text when both
        sides have the same, else ``p1: ... | p2: ...``."""
        first, second = self.time_controls
        return str(first) if first == second else f"p1: {first} | p2: {second}"


__all__ = ["GameOrder"]
