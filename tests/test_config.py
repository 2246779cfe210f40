"""Config loading: good configs decode with resolved bots; every bad one names file, line, fix."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.settings.config import ConfigError, load_config
from arena.settings.located import locate, parse_path

BOT = "#!/bin/sh\nexit 0\n"

GOOD = """\
game = "donkan"
tc = "10+0.1"
rounds = 2
seed = 7

[[bots]]
name = "alpha"
cmd = ["./alpha.sh"]

[[bots]]
name = "beta"
cmd = ["{python}", "beta.py"]
cwd = "sub"
tc = "st=0.05"

[game_options]
target = 5
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    alpha = tmp_path / "alpha.sh"
    alpha.write_text(BOT)
    alpha.chmod(0o755)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "beta.py").write_text("print('hi')\n")
    return tmp_path


def write(tree: Path, text: str) -> Path:
    path = tree / "t.toml"
    path.write_text(text)
    return path


def error_of(tree: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write(tree, text))
    return str(info.value)


def test_good_config_resolves_bots(tree: Path) -> None:
    loaded = load_config(write(tree, GOOD))
    alpha, beta = loaded.bots
    assert alpha.cmd == [str(tree / "alpha.sh")]
    assert alpha.cwd == str(tree)
    assert beta.cmd == [sys.executable, "beta.py"]  # {python} substituted, symlink kept
    assert beta.cwd == str(tree / "sub")
    assert loaded.game_options == {"target": "5"}
    assert loaded.config.rounds == 2 and loaded.event == "t"


def test_time_controls_are_parsed_once_with_each_bots_own_resolved(tree: Path) -> None:
    from arena.formats.schedule import build_schedule, order_for
    from referee.timecontrol import TimeControl

    loaded = load_config(write(tree, GOOD))
    assert loaded.time_controls == {"alpha": TimeControl(base_ms=10_000.0, inc_ms=100.0),
                                    "beta": TimeControl(movetime_ms=50.0)}
    game = build_schedule(loaded).games[0]
    order = order_for(loaded, game)
    assert [bot.name for bot in order.bots] == [game.p1, game.p2]
    assert order.time_controls == (loaded.time_controls[game.p1], loaded.time_controls[game.p2])
    assert order.time_control in ("p1: 10+0.1 | p2: st=0.05", "p1: st=0.05 | p2: 10+0.1")
    assert order.game_options == {"target": "5", "draw_rules": "true"}
    assert (order.id, order.round, order.tags["pairing"]) == (game.id, game.round, "1")


def test_typo_key_names_line_and_suggests(tree: Path) -> None:
    text = GOOD.replace('tc = "st=0.05"', 'tcc = "st=0.05"')
    message = error_of(tree, text)
    assert message.startswith(f"{tree / 't.toml'}:14: bots[1].tcc: unknown key 'tcc'")
    assert "did you mean 'tc'" in message


def test_top_level_typo(tree: Path) -> None:
    message = error_of(tree, GOOD.replace("rounds = 2", "roundz = 2"))
    assert ":3: roundz: unknown key" in message and "'rounds'" in message


def test_wrong_type_names_line(tree: Path) -> None:
    message = error_of(tree, GOOD.replace("rounds = 2", 'rounds = "two"'))
    assert ":3: rounds: Expected int, got str" in message


def test_missing_bot_program(tree: Path) -> None:
    message = error_of(tree, GOOD.replace("./alpha.sh", "./nope.sh"))
    assert ":8: bots[0].cmd: bot 'alpha': program './nope.sh' not found" in message
    assert "PATH" in message


def test_not_executable(tree: Path) -> None:
    os.chmod(tree / "alpha.sh", 0o644)
    assert "not executable" in error_of(tree, GOOD)


def test_missing_script_after_interpreter(tree: Path) -> None:
    message = error_of(tree, GOOD.replace('"beta.py"', '"btea.py"'))
    assert ":12: bots[1].cmd: bot 'beta': script 'btea.py' not found" in message


def test_bad_time_control(tree: Path) -> None:
    message = error_of(tree, GOOD.replace('"st=0.05"', '"fast"'))
    assert ":14: bots[1].tc: bad time control 'fast'" in message
    message = error_of(tree, GOOD.replace('tc = "10+0.1"', 'tc = "10+x"'))
    assert ":2: tc: bad time control" in message


def test_unknown_game_lists_known(tree: Path) -> None:
    message = error_of(tree, GOOD.replace('"donkan"', '"chess"'))
    assert ":1: game: unknown game 'chess'" in message
    assert "draughts" in message and "donkan" in message


def test_duplicate_names_and_too_few_bots(tree: Path) -> None:
    message = error_of(tree, GOOD.replace('name = "beta"', 'name = "alpha"'))
    assert ":11: bots[1].name: duplicate bot name 'alpha'" in message
    one_bot = GOOD.split('[[bots]]\nname = "beta"')[0]
    assert "at least 2 bots, found 1" in error_of(tree, one_bot)


def test_odd_games_per_pairing_and_missing_openings(tree: Path) -> None:
    assert "must be even" in error_of(tree, "games_per_pairing = 3\n" + GOOD)
    message = error_of(tree, GOOD + '\n[openings]\nfile = "none.txt"\n')
    assert "openings.file: openings file" in message and "not found" in message


def test_toml_syntax_error(tree: Path) -> None:
    message = error_of(tree, GOOD + "\nrounds = = 3\n")
    assert str(tree / "t.toml") in message and "line" in message


def test_locate_and_parse_path() -> None:
    text = 'game = "x"\n[[bots]]\nname = "a"\n[bots.limits]\nmemory_mb = 3\n[[bots]]\nname = "b"\n'
    assert parse_path("$.bots[1].name") == ("bots", 1, "name")
    assert locate(text, ("bots", 1, "name")) == 7
    assert locate(text, ("bots", 0, "limits", "memory_mb")) == 5
    assert locate(text, ("bots", 1, "nothing")) == 6
    assert locate(text, ("game",)) == 1


def test_a_time_control_is_required(tree: Path) -> None:
    message = error_of(tree, GOOD.replace('tc = "10+0.1"\n', ""))
    assert ":6: bots[0].name: no time control for bot 'alpha'" in message
    assert load_config(write(tree, GOOD.replace('tc = "10+0.1"', 'tc = "inf"'))).config.tc == "inf"


def test_bad_game_options_are_caught_before_any_game(tree: Path) -> None:
    message = error_of(tree, GOOD.replace('"donkan"', '"draughts"'))  # no 'target' there
    assert ":17: game_options.target: bad game options for draughts" in message
    assert "no option target" in message
    assert "must be a positive integer" in error_of(tree, GOOD.replace("= 5", '= "x"'))


def test_sprt_elo_model_defaults_to_normalized_and_is_checked(tree: Path) -> None:
    sprt = "\n[sprt]\nelo0 = 0\nelo1 = 5\n"
    loaded = load_config(write(tree, GOOD + sprt))
    assert loaded.config.sprt is not None and loaded.config.sprt.elo_model == "normalized"
    loaded = load_config(write(tree, GOOD + sprt + 'elo_model = "logistic"\n'))
    assert loaded.config.sprt is not None and loaded.config.sprt.elo_model == "logistic"
    message = error_of(tree, GOOD + sprt + 'elo_model = "bayesian"\n')
    assert ":22: sprt.elo_model:" in message and "bayesian" in message
    assert "did you mean 'elo_model'" in error_of(tree, GOOD + sprt + 'elo_modle = "x"\n')


def test_a_hub_bot_outside_draughts_is_a_config_error(tree: Path) -> None:
    text = GOOD.replace('cmd = ["./alpha.sh"]', 'cmd = ["./alpha.sh"]\nprotocol = "hub"')
    message = error_of(tree, text)
    assert "bots[0].protocol" in message
    assert "bot 'alpha' speaks Hub, a draughts protocol; it cannot play donkan" in message
    loaded = load_config(write(tree, text.replace('game = "donkan"', 'game = "draughts"')
                               .replace("[game_options]\ntarget = 5\n", "")))
    assert loaded.bots[0].protocol == "hub"
