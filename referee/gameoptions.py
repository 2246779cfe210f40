"""The options a game is built with, checked as the referee checks them.

Apart from :mod:`referee.match` so that the config can check a tournament's game options
without importing trio (``arena run`` starts its first bots before it imports trio).
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.adjudication import Adjudication
from referee.games import GameError, get_game


def game_options_for(game: str, game_options: Mapping[str, str],
                     adjudication: Adjudication | None = None) -> dict[str, str]:
    """The options a game is built with: checked against the game's declared ``OPTIONS``, plus
    the referee's ``draw_rules`` switch for games whose draw rules live inside the round
    (Donkan's partie caps), so that ``[adjudication] draw_rules = false`` reaches them too."""
    rules = get_game(game)
    unknown = sorted(set(game_options) - set(rules.OPTIONS))
    if unknown:
        accepted = ", ".join(rules.OPTIONS) or "none"
        raise GameError(f"{game} has no option {', '.join(unknown)} (its options: {accepted})")
    options = {key: str(value) for key, value in game_options.items()}
    if adjudication is not None and "draw_rules" in rules.OPTIONS and "draw_rules" not in options:
        options["draw_rules"] = "true" if adjudication.draw_rules else "false"
    return options
