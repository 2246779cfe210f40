"""What a bot's command may point at: its own folder and its runtime, nothing its author can
add. A path named in the command, or a program's symlink, that leads outside the bot's folder
is refused before the bot starts, naming the path (:func:`referee.process.botview.bot_view`);
real files and links, no process.

Before, the view bound the folder of every file argument and every hop of a symlink chain
wherever it pointed: a league bot read other authors' stored code and the league's settings
by naming them in its ``bot.toml``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from referee.botspec import BotSpec
from referee.process import botview
from referee.process.boterrors import BotStartError
from referee.process.botview import bot_view, contained

PYTHON3 = shutil.which("python3", path="/usr/bin:/bin")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A bot folder with its script, and a secret beside it (another author's file)."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("print('bot')\n")
    secret = tmp_path / "league" / "authors.json"
    secret.parent.mkdir()
    secret.write_text("{}")
    return folder, secret


def view_of(folder: Path, *cmd: str | Path, cwd: bool = True):  # type: ignore[no-untyped-def]
    argv = [str(part) for part in cmd]
    spec = BotSpec(name="b", cmd=argv, cwd=str(folder) if cwd else None)
    return bot_view(spec, contained(spec, argv)[0])


def test_a_script_in_the_folder_is_bound_with_it(layout: tuple[Path, Path]) -> None:
    folder, _ = layout
    view = view_of(folder, sys.executable, "bot.py", "/dev/null", "/tmp", "--hash=64", "3")
    assert str(folder) in view.binds


@pytest.mark.parametrize("form", ["absolute", "relative", "option", "link"])
def test_a_command_naming_a_path_outside_the_folder_is_refused_naming_it(
        layout: tuple[Path, Path], form: str) -> None:
    folder, secret = layout
    arg = {"absolute": str(secret), "relative": f"../league/{secret.name}",
           "option": f"--book={secret}", "link": "leak"}[form]
    if form == "link":  # what a build may leave: a link that the command then names
        (folder / "leak").symlink_to(secret)
    with pytest.raises(BotStartError) as refused:
        view_of(folder, sys.executable, "bot.py", arg)
    message = str(refused.value)
    assert "outside its folder" in message and str(folder) in message, message
    assert (str(secret) in message or arg in message), message


def test_a_script_outside_the_cwd_is_refused(layout: tuple[Path, Path], tmp_path: Path) -> None:
    folder, _ = layout
    other = tmp_path / "elsewhere.py"
    other.write_text("")
    with pytest.raises(BotStartError, match="elsewhere.py, outside its folder"):
        view_of(folder, sys.executable, other)


def test_a_program_linked_out_of_the_folder_is_refused(layout: tuple[Path, Path]) -> None:
    folder, secret = layout
    engine = secret.parent / "bin" / "engine"
    engine.parent.mkdir()
    engine.write_text("#!/bin/sh\n")
    engine.chmod(0o755)
    (folder / "engine").symlink_to(engine)  # another version's program: its folder not bound
    with pytest.raises(BotStartError, match=r"its program .*engine leads to .*league/bin/engine"):
        view_of(folder, folder / "engine")


@pytest.mark.skipif(PYTHON3 is None, reason="no system python3")
def test_a_program_linked_to_the_system_or_the_arenas_python_is_fine(
        layout: tuple[Path, Path]) -> None:
    folder, _ = layout
    (folder / "sys-python").symlink_to(str(PYTHON3))
    assert view_of(folder, folder / "sys-python", "bot.py").binds == [str(folder)]
    (folder / "venv-python").symlink_to(os.path.realpath(sys.executable))  # a build's venv
    assert str(folder) in view_of(folder, folder / "venv-python", "bot.py").binds


def test_an_installed_engine_outside_brings_its_install_folder(tmp_path: Path) -> None:
    prefix = tmp_path / "engines" / "scan"
    (prefix / "bin").mkdir(parents=True)
    program = prefix / "bin" / "scan"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    spec = BotSpec(name="scan", cmd=[str(program)])
    view = bot_view(spec, [str(program)])
    assert str(prefix) in view.binds


def test_a_runtime_inside_a_hidden_folder_is_refused(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    league = tmp_path / "league"
    prefix = league / "store" / "abc"
    (prefix / "bin").mkdir(parents=True)
    program = prefix / "bin" / "engine"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(botview, "_hidden", {str(league)})
    mine = tmp_path / "mine"
    mine.mkdir()
    spec = BotSpec(name="thief", cmd=[str(program)], cwd=str(mine))
    with pytest.raises(BotStartError, match=r"needs .*store/abc, inside .*league, which no bot"):
        bot_view(spec, [str(program)])
