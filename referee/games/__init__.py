"""The registry of games: names (``draughts``, ``jungle``...) mapped to their rules classes.

Modules are imported on first use, so a bot that plays one game pays only for that one.

Three ways in, all ending in the same table (docs/adding-a-game.md walks through them):

* the five games of the project, and a sixth added to it: one line in ``_BUILT_IN``;
* a game shipped in another Python package: an entry point in the group ``arena.games``
  (``tictactoe = "my_package.tictactoe:TicTacToe"``), found in every process that has the
  package installed — the arena, its bots, the report;
* a game defined at run time (a test, a notebook): :func:`register_game` with the class.
"""

from __future__ import annotations

import importlib
import re

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
from referee.games.rounds import PartieRecord, RoundState

ENTRY_POINT_GROUP = "arena.games"

# name -> "module:Class". Order is the order `arena games` lists them.
_BUILT_IN: dict[str, str] = {
    "draughts": "referee.games.draughts:Draughts",
    "jungle": "referee.games.jungle:Jungle",
    "dobutsu": "referee.games.dobutsu:Dobutsu",
    "dvonn": "referee.games.dvonn:Dvonn",
    "donkan": "referee.games.donkan:Donkan",
}

GAME_NAMES: tuple[str, ...] = tuple(_BUILT_IN)
"""The project's own games. :func:`game_names` adds the plug-ins."""

_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
_REQUIRED = ("NAME", "DESCRIPTION", "START_POSITION", "SIDE_LABELS")

_registered: dict[str, type[Game]] = {}  # type: ignore[type-arg]
_plugins: dict[str, str] | None = None
_loaded: dict[str, type[Game]] = {}  # type: ignore[type-arg]
_built_in_classes: dict[str, type[Game]] = {}  # type: ignore[type-arg]
"""The project's own games once imported: every game of a run asks for its rules by name,
and an import look-up per game costs more than the dict."""


class UnknownGame(GameError):
    """A game name that is not in the registry; the message lists the known ones."""


def _entry_points() -> dict[str, str]:
    """Games declared by installed packages (read once per process)."""
    global _plugins
    if _plugins is None:
        from importlib import metadata  # only when a name is not a built-in game: it costs ms

        _plugins = {ep.name: ep.value for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)
                    if ep.name not in _BUILT_IN}
    return _plugins


def game_names() -> tuple[str, ...]:
    """Every game that can be played here: the project's, then installed plug-ins, then
    games registered at run time."""
    names = list(GAME_NAMES)
    names += [n for n in _entry_points() if n not in names]
    names += [n for n in _registered if n not in names]
    return tuple(names)


def is_game(name: str) -> bool:
    """Can ``name`` be played here? A built-in name answers without reading the installed
    packages' entry points (which costs milliseconds at every start)."""
    return name in _BUILT_IN or name in _registered or name in _entry_points()


def check_rules_class(cls: type) -> None:
    """Raise :class:`GameError` naming what a rules class lacks to be registered: a
    :class:`Game` subclass with every abstract hook written and the class constants set."""
    label = getattr(cls, "__qualname__", repr(cls))
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise GameError(f"{label} is not a subclass of referee.games.base.Game")
    missing = [name for name in _REQUIRED if not hasattr(cls, name)]
    if missing:
        raise GameError(f"game class {label} does not set {', '.join(missing)}")
    abstract = sorted(getattr(cls, "__abstractmethods__", ()))
    if abstract:
        raise GameError(f"game class {label} does not implement {', '.join(abstract)}")
    if not isinstance(cls.NAME, str) or not _NAME.match(cls.NAME):
        raise GameError(f"game class {label}: NAME {cls.NAME!r} must be lower case letters, "
                        "digits, '-' or '_' (at most 32), starting with a letter")
    if len(cls.SIDE_LABELS) != 2:
        raise GameError(f"game class {label}: SIDE_LABELS must name two sides")


def register_game(cls: type[Game], *, replace: bool = False) -> None:  # type: ignore[type-arg]
    """Make ``cls`` playable under ``cls.NAME`` in this process. A name already taken is an
    error unless ``replace`` (a test swapping in a variant)."""
    check_rules_class(cls)
    name = cls.NAME
    taken = name in _BUILT_IN or name in _entry_points() or name in _registered
    if taken and not replace:
        raise GameError(f"a game named {name!r} is already registered")
    _registered[name] = cls


def unregister_game(name: str) -> None:
    """Undo :func:`register_game` (the project's own games cannot be removed)."""
    if name in _BUILT_IN:
        raise GameError(f"{name!r} is one of the project's games and cannot be unregistered")
    _registered.pop(name, None)


def _load(name: str, target: str) -> type[Game]:  # type: ignore[type-arg]
    module_name, _, class_name = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise GameError(f"game {name!r}: cannot load {target!r} ({exc})") from None
    check_rules_class(cls)
    if name != cls.NAME:
        raise GameError(f"game {name!r}: {target!r} says its NAME is {cls.NAME!r}")
    return cls  # type: ignore[no-any-return]


def get_game(name: str) -> type[Game]:  # type: ignore[type-arg]
    """The rules class registered under ``name``."""
    if name in _registered:
        return _registered[name]
    cls = _built_in_classes.get(name)
    if cls is not None:
        return cls
    target = _BUILT_IN.get(name) or _entry_points().get(name)
    if target is None:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    if name in _BUILT_IN:
        module_name, _, class_name = target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        _built_in_classes[name] = cls
        return cls
    if name not in _loaded:
        _loaded[name] = _load(name, target)
    return _loaded[name]


__all__ = [
    "ENTRY_POINT_GROUP",
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
    "PartieRecord",
    "PositionError",
    "RoundState",
    "UnknownGame",
    "check_rules_class",
    "game_names",
    "is_game",
    "get_game",
    "register_game",
    "unregister_game",
]
