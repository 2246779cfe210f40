"""The registry of games: names (``draughts``, ``jungle``...) mapped to their rules classes.

Modules are imported on first use, so a bot that plays one game pays only for that one.
"""

from __future__ import annotations

import importlib

from referee.games.base import (
    P1,
    P2,
    BoardView,
    CellView,
    Game,
    GameError,
    IllegalMove,
    MoveSyntaxError,
    Outcome,
    PositionError,
)

# name -> (module, class). Order is the order `arena games` lists them.
_REGISTRY: dict[str, tuple[str, str]] = {
    "draughts": ("referee.games.draughts", "Draughts"),
    "jungle": ("referee.games.jungle", "Jungle"),
    "dobutsu": ("referee.games.dobutsu", "Dobutsu"),
    "dvonn": ("referee.games.dvonn", "Dvonn"),
    "donkan": ("referee.games.donkan", "Donkan"),
}

GAME_NAMES: tuple[str, ...] = tuple(_REGISTRY)


class UnknownGame(GameError):
    """A game name that is not in the registry; the message lists the known ones."""


def get_game(name: str) -> type[Game]:  # type: ignore[type-arg]
    """The rules class registered under ``name``."""
    try:
        module_name, class_name = _REGISTRY[name]
    except KeyError:
        raise UnknownGame(
            f"unknown game {name!r}; known games: {', '.join(GAME_NAMES)}"
        ) from None
    cls: type[Game] = getattr(importlib.import_module(module_name), class_name)  # type: ignore[type-arg]
    return cls


__all__ = [
    "GAME_NAMES",
    "P1",
    "P2",
    "BoardView",
    "CellView",
    "Game",
    "GameError",
    "IllegalMove",
    "MoveSyntaxError",
    "Outcome",
    "PositionError",
    "UnknownGame",
    "get_game",
]
