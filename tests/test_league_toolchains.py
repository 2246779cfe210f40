"""The recipes of examples/README.md, "Bots in other languages": each example folder of
``examples/bots/`` submitted to a real league, built in the sandbox (bubblewrap: no network
but a loopback) with its ``bot.toml``'s ``build`` and ``[env]``, then checked by check-bot.

Tested here, each where its Debian package is installed (``.ci/run`` installs them all): C
with make (gcc), Rust with vendored crates, offline (cargo; rustup's proxy resolved to the real
toolchain), Go with a vendored module (golang-go), JavaScript with a committed
``node_modules`` (nodejs). Java (javac) is documented only: no package the project installs
brings a JDK.

Also: a version manager's shim that cannot be resolved is refused before the build, saying
what to give; ``[env]`` may not set the sandbox's own variables; ``toolchain`` must exist.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from system_packages import require
from test_league_submit import LEAGUE_TOML, quiet

from arena.league.botfile import read_bot_file
from arena.league.submit import Submission, submit
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import LeagueSettings, load_settings
from arena.settings.located import ConfigError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "bots"
RECIPES = {"c": "gcc", "rust": "cargo", "go": "golang-go", "js": "nodejs"}
"""Example folder -> the Debian package whose toolchain builds or runs it."""


@pytest.fixture
def league(tmp_path: Path) -> LeagueDir:
    root = tmp_path / "league"
    root.mkdir()
    (root / "league.toml").write_text(LEAGUE_TOML)
    return LeagueDir(root)


@pytest.fixture
def settings(league: LeagueDir) -> LeagueSettings:
    return load_settings(league.config)


def example(name: str, tmp_path: Path) -> Path:
    """The author's copy of an example folder (no build products in it)."""
    folder = tmp_path / "author" / name
    shutil.copytree(EXAMPLES / name, folder, ignore=shutil.ignore_patterns("target", "randbot"))
    if name == "c":
        shutil.copy(EXAMPLES / "c" / "randbot.c", folder / "randbot.c")
    return folder


@pytest.mark.slow
@pytest.mark.needs("bubblewrap")
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_recipe_is_built_offline_in_the_sandbox_and_accepted(
        name: str, league: LeagueDir, settings: LeagueSettings, tmp_path: Path) -> None:
    require(RECIPES[name])
    folder = example(name, tmp_path)
    version = submit(league, settings, Submission(name, folder), quiet)
    log = league.bots / name / version.ref / "build.log"
    shown = log.read_text() if log.is_file() else ""
    assert (version.state, version.label) == ("active", f"{name}@1"), (version.reason, shown)
    assert version.env == dict(read_bot_file(folder, folder).env)
    if name == "rust":
        cargo = shutil.which("cargo")
        assert cargo is not None
        if os.path.basename(os.path.realpath(cargo)) == "rustup":  # rustup's proxy: resolved
            assert "is a version manager's shim: building with " in shown, shown
            real = shown.split("building with ", 1)[1].split()[0]
            assert os.path.basename(real) == "cargo" and "toolchains" in real, real
    if name in ("rust", "go"):
        assert "build succeeded" in shown, shown


@pytest.mark.needs("bubblewrap")
def test_a_shim_that_names_no_real_program_is_refused_before_the_build(
        league: LeagueDir, settings: LeagueSettings, tmp_path: Path) -> None:
    """A rustup-style proxy (``cargo`` a link to ``rustup``) whose manager cannot say which
    program it runs: rejected at the build before anything runs, saying what to give."""
    bin_dir = tmp_path / "toolbin"
    bin_dir.mkdir()
    manager = bin_dir / "rustup"
    manager.write_text("#!/bin/sh\necho 'error: no default toolchain is configured' >&2\n"
                       "exit 1\n")
    manager.chmod(0o755)
    (bin_dir / "cargo").symlink_to("rustup")
    folder = example("rust", tmp_path)
    (folder / "bot.toml").write_text(
        f'build = ["{bin_dir}/cargo", "build", "--release", "--offline"]\n'
        'cmd = ["./target/release/randbot"]\n')
    version = submit(league, settings, Submission("shimmed", folder), quiet)
    assert (version.state, version.step) == ("rejected", "build"), version.reason
    assert "is a rustup shim" in version.reason, version.reason
    assert "`rustup which cargo`" in version.reason
    assert "no default toolchain is configured" in version.reason
    log = (league.bots / "shimmed" / version.ref / "build.log").read_text()
    assert "[arena] build:" not in log  # refused before the build started


@pytest.mark.parametrize(("text", "problem"), [
    ('[env]\nPATH = "/opt/rust/bin"\n', "PATH is the sandbox's own"),
    ('[env]\nLD_PRELOAD = "x.so"\n', "LD_PRELOAD is the sandbox's own"),
    ('[env]\n"1X" = "y"\n', "'1X' is not a variable name"),
    ('[env]\n"A-B" = "y"\n', "'A-B' is not a variable name"),
    ('toolchain = "relative/bin"\n', "is not an absolute path"),
    ('toolchain = "/no/such/toolchain/bin"\n', "no such folder on this machine"),
])
def test_env_and_toolchain_are_checked(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / "bot.toml").write_text(text)
    with pytest.raises(ConfigError, match="bot.toml") as caught:
        read_bot_file(tmp_path, Path("mybot"))
    assert problem in str(caught.value), str(caught.value)
    assert str(caught.value).startswith("mybot/bot.toml")


def test_env_and_a_toolchain_reach_the_build(tmp_path: Path) -> None:
    from arena.league.build import build_spec

    (tmp_path / "bot.toml").write_text('toolchain = "/usr/bin"\n[env]\nGOFLAGS = "-mod=vendor"\n')
    bot_file = read_bot_file(tmp_path, Path("mybot"))
    built = build_spec("b build", ["sh", "-c", "true"], tmp_path, 512, "auto", bot_file.env,
                       bot_file.toolchain or "")
    assert built.spec.cmd[0] == "/usr/bin/sh"  # found in the toolchain first
    assert built.spec.env["GOFLAGS"] == "-mod=vendor"
    assert built.spec.env["PATH"].startswith("/usr/bin:")
