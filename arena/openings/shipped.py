"""The books shipped with the arena, one per game, in ``examples/openings/``.

Each was made by ``arena openings make`` (the command is in its header) and is what the ready
configs (``examples/<game>.toml``) and a new league (``arena league init``) play from unless
told otherwise. They live beside the examples, not inside the package: a checkout (and the
editable install ``make`` builds) has them; an install without the examples has none, and a
new league then starts from the game's start position as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

BOOKS: Final = {
    "draughts": "draughts.pdn",
    "jungle": "jungle.epd",
    "dobutsu": "dobutsu.pgn",
    "dvonn": "dvonn.txt",
    "donkan": "donkan.txt",
}
"""Each game's shipped book, by file name."""

FOLDER: Final = Path(__file__).resolve().parents[2] / "examples" / "openings"


def shipped_book(game: str) -> Path | None:
    """The book shipped for ``game``, None when there is none (another game, or no examples)."""
    name = BOOKS.get(game)
    if name is None:
        return None
    path = FOLDER / name
    return path if path.is_file() else None
