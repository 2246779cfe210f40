"""docs/rules.md, the users' rule book, keeps up with the registry: a section per game of the
project with its registry name, its start position text and its options, and the draughts
5-move reproduction exactly as the test plays it."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.games import GAME_NAMES, get_game

RULES = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_has_its_section(name: str) -> None:
    rules = get_game(name)
    assert f"Registry name `{name}`" in RULES, f"docs/rules.md has no section for {name}"
    section = RULES.split(f"Registry name `{name}`", 1)[1].split("\n## ", 1)[0]
    assert f"`{rules.START_POSITION}`" in section, (
        f"docs/rules.md, section {name}: the start position text {rules.START_POSITION!r}")
    for option in rules.OPTIONS:
        assert f"`{option}`" in section, f"docs/rules.md, section {name}: option {option!r}"


def test_the_five_move_reproduction_is_the_one_tested() -> None:
    from test_draughts_draws import FIVE_MOVE_LINE, FIVE_MOVE_START

    assert f"`{FIVE_MOVE_START}`" in RULES
    assert f"`{' '.join(FIVE_MOVE_LINE)}`" in RULES
