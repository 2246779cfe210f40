"""protocol/SPEC.md names every built-in game's start position text and every game option the
referee can send, so the document cannot drift from the rules silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.games import get_game

SPEC = (Path(__file__).resolve().parent.parent / "protocol" / "SPEC.md").read_text()


@pytest.mark.parametrize("game", ["draughts", "jungle", "dobutsu", "dvonn", "donkan"])
def test_spec_gives_the_start_text_and_options(game: str) -> None:
    rules = get_game(game)
    assert f"| `{game}` | " in SPEC
    assert f"`{rules.START_POSITION}`" in SPEC, f"SPEC.md lacks {game}'s start position text"
    for option in rules.OPTIONS:
        assert f"| `{game}` | `{option}` |" in SPEC, f"SPEC.md lacks {game}'s option {option}"


def test_spec_has_the_dialect_sections() -> None:
    assert "## The UCI dialect" in SPEC and "## The Hub dialect" in SPEC
