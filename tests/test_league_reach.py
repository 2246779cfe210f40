"""A submitted version reaches its own folder only: a command whose file argument or program
leads out of the version's folder is rejected at submission with the path named; what a build
leaves in the store (links out, FIFOs, set-id files, more than the upload limits) is refused
before the copy is frozen and kept.

Real submissions (real copies, builds in the sandbox, check-bot runs) as root, as in CI; the
rule itself (:func:`arena.league.reach.outside_reach`) on real files and links.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
import test_league_submit
from test_league_submit import HOSTILE, LEAGUE_TOML, entries, quiet

from arena.league.reach import outside_reach
from arena.league.submit import Submission, submit
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import load_settings
from arena.leaguedir.versions import Version

league = test_league_submit.league  # the fixture: a league folder with its league.toml


def fair_bot(folder: Path, cmd: str, build: str = "", **files: str) -> Path:
    """The control bot of the hostile suite (``plays_fair.py``) with ``cmd`` (a TOML list's
    inside) and ``build`` in its bot.toml, and ``files`` (name -> text) beside it."""
    folder.mkdir(parents=True)
    shutil.copy(HOSTILE / "_base.py", folder)
    shutil.copy(HOSTILE / "plays_fair.py", folder)
    for name, text in files.items():
        (folder / name).write_text(text)
    (folder / "bot.toml").write_text(f"cmd = [{cmd}]\n" + (f"build = [{build}]\n" if build
                                                           else ""))
    return folder


def submitted(league: LeagueDir, folder: Path, name: str = "b",
              toml: str = LEAGUE_TOML) -> Version:
    league.config.write_text(toml)
    return submit(league, load_settings(league.config), Submission(name, folder), quiet)


# ----- the command -------------------------------------------------------------------------


def test_a_file_argument_outside_the_folder_is_rejected_naming_it(league: LeagueDir,
                                                                  tmp_path: Path) -> None:
    """The issue's bot: an absolute league file as an argument (bubblewrap then bound its
    folder for the bot); also ``..`` from the stored folder, and a league path that is not
    there yet (a later version's log), which a night would have bound."""
    config = str(league.config)
    later = str(league.root / "bots" / "bob" / "7" / "check.log")
    for n, arg in enumerate([config, "../../league.toml", later], 1):
        folder = fair_bot(tmp_path / f"a{n}", f'"{{python}}", "plays_fair.py", "{arg}"')
        version = submitted(league, folder)
        assert (version.state, version.step) == ("rejected", "check"), version
        target = os.path.realpath(league.root / "league.toml") if n < 3 else later
        assert version.reason == (f"cmd argument {arg!r} leads outside the bot's folder (to "
                                  f"{target}): a bot may name files of its own folder only")
        log = (league.version_dir("b", n) / "check.log").read_text()
        assert f"[arena] {version.reason}" in log
        assert "PASS" not in log  # never started


def test_arguments_that_stay_inside_or_name_no_file_are_accepted(league: LeagueDir,
                                                                 tmp_path: Path) -> None:
    folder = fair_bot(tmp_path / "ok", '"{python}", "sub/../plays_fair.py", "tag", "2", '
                      '"book.txt", "/tmp/scratch", "--depth", "6"', **{"book.txt": "e4\n"})
    (folder / "sub").mkdir()
    version = submitted(league, folder)
    assert version.state == "active", version.reason


def test_a_program_outside_the_folder_is_rejected_an_interpreter_on_path_is_not(
        league: LeagueDir, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    program = elsewhere / "run"
    program.write_text(f"#!{sys.executable}\n")
    program.chmod(0o755)
    version = submitted(league, fair_bot(tmp_path / "p1", f'"{program}", "plays_fair.py"'))
    assert (version.state, version.step) == ("rejected", "check")
    assert version.reason.startswith(f"cmd's program '{program}' is {program}, outside the "
                                     "bot's folder")

    python3 = shutil.which("python3")
    assert python3 is not None
    version = submitted(league, fair_bot(tmp_path / "p2", '"python3", "plays_fair.py"'))
    assert version.state == "active", version.reason


def test_the_rule_follows_every_link_of_the_program_and_the_arguments(tmp_path: Path) -> None:
    """On real links, as the store could never hold them (it refuses links out): each hop
    of the program's chain is a folder a contained bot would see."""
    league = tmp_path / "league"
    folder = league / "store" / "abc"
    folder.mkdir(parents=True)
    (league / "league.toml").write_text("")
    other = league / "store" / "def"
    other.mkdir()
    (other / "bot").write_text("#!/bin/sh\n")
    (other / "bot").chmod(0o755)
    (folder / "own").write_text("#!/bin/sh\n")
    (folder / "own").chmod(0o755)
    os.symlink("own", folder / "inside")
    os.symlink(str(other / "bot"), folder / "out")
    os.symlink("../def/bot", folder / "hop")
    os.symlink("hop", folder / "chain")  # chain -> hop -> ../def/bot
    home, root = str(folder), str(league)

    def reason(*argv: str) -> str | None:
        resolved = [os.path.join(home, argv[0]) if not os.path.isabs(argv[0]) else argv[0],
                    *argv[1:]]
        return outside_reach(list(argv), resolved, home, root)

    assert reason("own") is None and reason("inside", "own") is None
    for name in ("out", "hop", "chain"):
        found = reason(name)
        assert found is not None and "is a link that leads outside" in found, found
        assert str(other) in found
    assert reason("{python}", "own") is None  # the arena's own interpreter
    found = reason("own", "out")
    assert found is not None and found.startswith("cmd argument 'out' leads outside")
    assert reason("own", "/dev/null") is None  # not a file: nothing a bot's view binds
    found = reason("own", str(league / "store" / "def"))  # a folder, inside the league
    assert found is not None and str(other) in found


# ----- what a build leaves -----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["absolute link", "link out", "fifo", "setuid"])
def test_what_a_build_leaves_is_held_to_the_rules_of_a_copy(league: LeagueDir, tmp_path: Path,
                                                            kind: str) -> None:
    """The issue's build made ``os.symlink('/LEAGUE/league.toml', 'leak')`` and a FIFO: they
    were frozen into the store. Now the version is rejected at its build, the path named,
    and its copy is not kept."""
    make = {
        "absolute link": f"os.symlink({str(league.config)!r}, 'leak')",
        "link out": "os.symlink('../../../league.toml', 'leak')",
        "fifo": "os.mkfifo('leak')",
        "setuid": "open('leak', 'w').close(); os.chmod('leak', 0o4755)",
    }[kind]
    expected = {
        "absolute link": f"a symbolic link to an absolute path ({league.config})",
        "link out": "a symbolic link that leads outside the folder (../../../league.toml)",
        "fifo": "a special file (FIFO, socket or device)",
        "setuid": "a set-user-ID or set-group-ID file",
    }[kind]
    folder = fair_bot(tmp_path / "w", '"{python}", "plays_fair.py"',
                      build=f'"{{python}}", "-c", "import os; {make}"')
    version = submitted(league, folder)
    assert (version.state, version.step) == ("rejected", "build"), version
    assert version.reason.startswith(f"build output: {folder}/leak: {expected}"), \
        version.reason
    assert entries(league) == []  # nothing kept in the store, no .incoming-* left


def test_a_build_that_writes_more_than_the_upload_limits_is_rejected_with_its_size(
        league: LeagueDir, tmp_path: Path) -> None:
    limits = LEAGUE_TOML + "[league]\nunpacked_mb = 2\nupload_files = 20\n"
    big = "open('big', 'wb').write(bytes(3 << 20))"
    folder = fair_bot(tmp_path / "big", '"{python}", "plays_fair.py"',
                      build=f'"{{python}}", "-c", "{big}"')
    version = submitted(league, folder, toml=limits)
    assert (version.state, version.step) == ("rejected", "build"), version
    size = (3 << 20) + sum(p.stat().st_size for p in folder.iterdir())
    assert version.reason == (f"build output {size / (1 << 20):,.0f} MB ({size:,} bytes) is "
                              "more than unpacked_mb = 2")

    many = "[open(f'f{i}', 'w').close() for i in range(30)]"
    folder = fair_bot(tmp_path / "many", '"{python}", "plays_fair.py"',
                      build=f'"{{python}}", "-c", "{many}"')
    version = submitted(league, folder, toml=limits)
    assert (version.state, version.step) == ("rejected", "build"), version
    assert version.reason == (f"build output: {folder}: more than 20 files and folders; the "
                              "league allows upload_files = 20")

    # Within the limits, with a file of its own making: accepted, frozen as root's.
    small = "open('data.bin', 'wb').write(bytes(1000))"
    folder = fair_bot(tmp_path / "small", '"{python}", "plays_fair.py", "data.bin"',
                      build=f'"{{python}}", "-c", "{small}"')
    version = submitted(league, folder, toml=limits)
    assert version.state == "active", version.reason
    assert version.source is not None
    made = league.stored(version.source) / "data.bin"
    assert made.stat().st_uid == 0 and stat.S_IMODE(made.stat().st_mode) == 0o644
