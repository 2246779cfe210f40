"""``[league.verdict]`` of ``league.toml``: written by ``arena league init`` with the defaults,
read into the verdict's settings and the pairing's share, a mistake reported at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import load_settings, verdict_settings
from arena.settings.located import ConfigError
from ratings.verdict import VerdictSettings


@pytest.fixture
def toml(tmp_path: Path) -> Path:
    assert main(["league", "init", str(tmp_path / "lg"), "--game", "dobutsu", "--tc",
                 "1+0.01"]) == 0
    return tmp_path / "lg" / "league.toml"


def test_init_writes_the_defaults(toml: Path) -> None:
    text = toml.read_text()
    for key in ("elo0 = 0", "elo1 = 30", "alpha = 0.05", "beta = 0.05", "max_games = 2000",
                "share = 0.25"):
        assert f"\n{key}\n" in text, key
    settings = load_settings(toml)
    assert settings.verdict == VerdictSettings()
    assert settings.policy.verdict.share == 0.25
    assert verdict_settings(LeagueDir(toml.parent)) == VerdictSettings()


def test_settings_are_read(toml: Path) -> None:
    text = toml.read_text().replace("\nelo1 = 30\n", "\nelo1 = 200\n").replace(
        "\nshare = 0.25\n", "\nshare = 0.5\n").replace("\nmax_games = 2000\n",
                                                        "\nmax_games = 400\n")
    toml.write_text(text)
    settings = load_settings(toml)
    assert settings.verdict == VerdictSettings(elo1=200.0, max_games=400)
    assert settings.policy.verdict.share == 0.5
    assert verdict_settings(LeagueDir(toml.parent)) == settings.verdict


@pytest.mark.parametrize(("bad", "key", "problem"), [
    ("elo1 = -5", "league.verdict.elo1", "must be above elo0 (0), got -5"),
    ("alpha = 0.5", "league.verdict.alpha", "Expected float < 0.5, got 0.5"),
    ("share = 1.5", "league.verdict.share", "Expected float <= 1.0, got 1.5"),
    ("max_games = 1", "league.verdict.max_games", "Expected int >= 2, got 1"),
    ("elo2 = 40", "league.verdict.elo2", "unknown key 'elo2'"),
])
def test_a_mistake_is_located(toml: Path, bad: str, key: str, problem: str) -> None:
    lines = toml.read_text().splitlines()
    name = bad.split()[0]
    at = next((k for k, line in enumerate(lines) if line.startswith(name + " ")), None)
    if at is None:  # a key that is not there: added at the end of the table
        lines.append(bad)
        at = len(lines) - 1
    else:
        lines[at] = bad
    toml.write_text("\n".join(lines) + "\n")
    for read in (lambda: load_settings(toml), lambda: verdict_settings(LeagueDir(toml.parent))):
        with pytest.raises(ConfigError) as caught:
            read()
        message = str(caught.value)
        assert message.startswith(f"{toml}:{at + 1}: {key}: "), message
        assert problem in message, message
