"""The bots file: configs take engines from it with ``use``; every mistake names the file and
line that wrote it; paths are relative to the bots file; resume keeps the same schedule."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from arena.formats.schedule import build_schedule
from arena.settings.botsfile import read_bots_file
from arena.settings.config import Config, ConfigError, load_config

BOT = "#!/bin/sh\nexit 0\n"

ENGINES = """\
# my engines
[[bots]]
name = "alpha"
cmd = ["./alpha.sh"]
protocol = "uci"
options = { Depth = 6, Hash = 16 }
env = { A = "1" }

[[bots]]
name = "beta"
cmd = ["{python}", "beta.py"]
cwd = "beta"
tc = "st=0.05"

[[bots]]
name = "not-installed"
cmd = ["/nowhere/engine"]
"""

CONFIG = """\
game = "donkan"
tc = "10+0.1"
bots_file = "engines/engines.toml"

[[bots]]
use = "alpha"
name = "alpha-d3"
options = { Depth = 3 }

[[bots]]
use = "beta"
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    engines = tmp_path / "engines"
    engines.mkdir()
    alpha = engines / "alpha.sh"
    alpha.write_text(BOT)
    alpha.chmod(0o755)
    (engines / "beta").mkdir()
    (engines / "beta" / "beta.py").write_text("print('hi')\n")
    (engines / "engines.toml").write_text(ENGINES)
    (tmp_path / "configs").mkdir()
    return tmp_path


def config(tree: Path, text: str, engines: str | None = None) -> Path:
    if engines is not None:
        (tree / "engines" / "engines.toml").write_text(engines)
    path = tree / "configs" / "t.toml"
    path.write_text(text.replace('"engines/', '"../engines/'))
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


def test_use_takes_the_entry_with_overrides_merged_and_paths_from_the_bots_file(
        tree: Path) -> None:
    loaded = load_config(config(tree, CONFIG))
    alpha, beta = loaded.bots
    engines = tree / "engines"
    assert alpha.name == "alpha-d3"
    assert alpha.cmd == [str(engines / "alpha.sh")]  # relative to the bots file, not the config
    assert alpha.protocol == "uci"
    assert alpha.options == {"Depth": 3, "Hash": 16}  # merged key by key, the config's wins
    assert alpha.env == {"A": "1"}
    assert beta.name == "beta"  # the entry's name when the table gives none
    assert beta.cwd == str(engines / "beta")
    assert str(loaded.time_controls["beta"]) == "st=0.05"  # the entry's own tc
    assert str(loaded.time_controls["alpha-d3"]) == "10+0.1"


def test_the_run_copy_writes_the_bots_out_and_reads_back_as_a_config(tree: Path) -> None:
    loaded = load_config(config(tree, CONFIG))
    copy = msgspec.toml.decode(loaded.copy_text.encode(), type=Config)
    assert copy.bots_file is None
    assert [b.name for b in copy.bots] == ["alpha-d3", "beta"]
    assert copy.bots[0].options == {"Depth": 3, "Hash": 16}
    plain = tree / "configs" / "plain.toml"
    plain.write_text('game = "donkan"\ntc = "1+0"\n[[bots]]\nname = "a"\n'
                     'cmd = ["../engines/alpha.sh"]\n[[bots]]\nname = "beta"\n'
                     'cmd = ["../engines/alpha.sh"]\n')
    assert load_config(plain).copy_text == plain.read_text()  # unchanged without a bots file


def test_moving_bots_into_a_bots_file_keeps_the_schedule(tree: Path) -> None:
    """Resume is guarded by the fingerprint: it depends on the bots' names, not on where they
    are written, so a run started with inline tables resumes with ``use`` tables."""
    inline = ('game = "donkan"\ntc = "10+0.1"\n[[bots]]\nname = "alpha-d3"\n'
              'cmd = ["../engines/alpha.sh"]\n[[bots]]\nname = "beta"\n'
              'cmd = ["{python}", "beta.py"]\ncwd = "../engines/beta"\n')
    before = build_schedule(load_config(config(tree, inline)))
    after = build_schedule(load_config(config(tree, CONFIG)))
    assert before.fingerprint == after.fingerprint
    assert before.games == after.games


def test_unknown_entry_names_the_config_line_and_the_closest_entry(tree: Path) -> None:
    message = error_of(config(tree, CONFIG.replace('use = "beta"', 'use = "betta"')))
    assert message.startswith(f"{tree / 'configs' / 't.toml'}:11: bots[1].use: ")
    assert "no entry 'betta'" in message and "did you mean 'beta'?" in message


def test_use_without_a_bots_file_says_to_add_one(tree: Path) -> None:
    message = error_of(config(tree, CONFIG.replace('bots_file = "engines/engines.toml"\n', "")))
    assert ":5: bots[0].use: " in message and "bots_file" in message


def test_missing_bots_file_names_its_line(tree: Path) -> None:
    message = error_of(config(tree, CONFIG.replace("engines.toml", "nope.toml")))
    assert ":3: bots_file: " in message and "not found" in message


def test_cmd_and_cwd_cannot_be_overridden(tree: Path) -> None:
    message = error_of(config(tree, CONFIG.replace('use = "beta"\n',
                                                   'use = "beta"\ncwd = "x"\n')))
    assert ":12: bots[1].cwd: cwd comes from the bots file's entry 'beta'" in message


def test_a_mistake_in_an_entry_names_the_bots_file_line(tree: Path) -> None:
    shown = tree / "configs" / ".." / "engines" / "engines.toml"
    bad_key = ENGINES.replace('tc = "st=0.05"', 'tc = "st=0.05"\ndeph = 3')
    message = error_of(config(tree, CONFIG, bad_key))
    assert message.startswith(f"{shown}:14: bots[1].deph: unknown key 'deph'")
    bad_tc = ENGINES.replace('"st=0.05"', '"fast"')
    assert error_of(config(tree, CONFIG, bad_tc)).startswith(f"{shown}:13: bots[1].tc: bad time")
    no_script = ENGINES.replace('"beta.py"', '"gamma.py"')
    message = error_of(config(tree, CONFIG, no_script))
    assert message.startswith(f"{shown}:11: bots[1].cmd: bot 'beta': script 'gamma.py' not found")
    twice = ENGINES + '[[bots]]\nname = "alpha"\ncmd = ["x"]\n'
    assert error_of(config(tree, CONFIG, twice)).startswith(
        f"{shown}:19: bots[3].name: duplicate bot name 'alpha' (also bots[0])")
    stray = "depth = 3\n" + ENGINES
    assert error_of(config(tree, CONFIG, stray)).startswith(f"{shown}:1: depth: unknown key")


def test_an_override_mistake_names_the_config_line(tree: Path) -> None:
    message = error_of(config(tree, CONFIG.replace('name = "alpha-d3"', 'tc = "fast"')))
    assert message.startswith(f"{tree / 'configs' / 't.toml'}:7: bots[0].tc: bad time control")
    message = error_of(config(tree, CONFIG.replace('name = "alpha-d3"', "optons = 3")))
    assert ":7: bots[0].optons: unknown key 'optons'" in message


def test_unused_entries_are_not_started_or_checked_beyond_their_shape(tree: Path) -> None:
    """``not-installed`` names a program this machine lacks: a config that does not use it
    loads; one that does gets the bots file's line."""
    load_config(config(tree, CONFIG))
    message = error_of(config(tree, CONFIG.replace('use = "beta"', 'use = "not-installed"')))
    assert ":17: bots[2].cmd: bot 'not-installed': program '/nowhere/engine' not found" in message


def test_read_bots_file_prepares_one_entry_by_name(tree: Path) -> None:
    engines = read_bots_file(tree / "engines" / "engines.toml")
    spec = engines.prepared("beta")
    assert spec.cwd == str(tree / "engines" / "beta") and spec.cmd[1] == "beta.py"
    with pytest.raises(ConfigError, match="no bot 'alpah'; did you mean 'alpha'"):
        engines.prepared("alpah")


ENGINES_JSON = """\
[
    {
        "command": "./alpha.sh --fast",
        "name": "Alpha",
        "options": [
            {"name": "Hash", "type": "spin", "default": 16, "value": 64},
            {"name": "Clear Hash", "type": "button"},
            {"name": "Ponder", "type": "check", "default": false}
        ],
        "protocol": "uci",
        "restart": "off",
        "stderrFile": "",
        "variants": ["standard"],
        "workingDirectory": ""
    },
    {
        "command": "crafty",
        "name": "Crafty",
        "protocol": "xboard",
        "workingDirectory": "/opt/crafty"
    }
]
"""


def test_a_cutechess_engines_json_is_a_bots_file(tree: Path) -> None:
    """cutechess's keys are read as bot keys; an engine the arena cannot play (xboard) is an
    error only when a config uses it, naming the file, the entry's line and the key."""
    (tree / "engines" / "engines.json").write_text(ENGINES_JSON)
    text = ('game = "donkan"\ntc = "10+0.1"\nbots_file = "../engines/engines.json"\n'
            '[[bots]]\nuse = "Alpha"\noptions = { Depth = 3 }\n'
            '[[bots]]\nuse = "Alpha"\nname = "Alpha-2"\n')
    loaded = load_config(config(tree, text))
    alpha, again = loaded.bots
    assert alpha.name == "Alpha" and again.name == "Alpha-2"
    assert alpha.cmd == [str(tree / "engines" / "alpha.sh"), "--fast"]
    assert alpha.protocol == "uci" and alpha.restart == "never"
    assert alpha.options == {"Hash": 64, "Depth": 3}  # only options with a value, + override
    shown = tree / "configs" / ".." / "engines" / "engines.json"
    message = error_of(config(tree, text.replace('name = "Alpha-2"', "").replace(
        'use = "Alpha"\n\n', 'use = "Crafty"\n')))
    assert message.startswith(f"{shown}:18: bots[1].protocol: engine 'Crafty' speaks "
                              "'xboard'"), message
    bad = ENGINES_JSON.replace('"./alpha.sh --fast"', '"./nope"')
    (tree / "engines" / "engines.json").write_text(bad)
    assert error_of(config(tree, text)).startswith(
        f"{shown}:4: bots[0].command: bot 'Alpha': program './nope' not found")
    (tree / "engines" / "engines.json").write_text('{"name": "x"}')
    assert "expected a JSON list of engine objects" in error_of(config(tree, text))
