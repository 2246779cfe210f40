"""``arena league submit``, ``bots`` and ``retire``: real folders copied into a league's store,
real builds in the sandbox, real check-bot runs (as root, as in CI).

A rejected submission (its build fails, check-bot fails, it hangs at the handshake) leaves a
log and a one-line reason, and the bot's earlier versions stay as they were.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import time
from pathlib import Path

import msgspec
import pytest

from arena.bots import store
from arena.cli import main
from arena.errors import UserError
from arena.league.botfile import infer_cmd, read_bot_file
from arena.league.submit import (
    Checking,
    Copying,
    Finished,
    Submission,
    SubmitEvent,
    Submitted,
    decode_event,
    submit,
)
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import LeagueSettings, load_settings
from arena.leaguedir.standings import Rated, Snapshot, append_snapshot
from arena.leaguedir.versions import Version, read_versions, write_version
from arena.settings.config import ConfigError

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
LEAGUE_TOML = 'game = "dobutsu"\ntc = "2+0.02"\n'
HANDSHAKE_S = 1.0
"""The check's handshake limit in these tests (check-bot's own is 10 s)."""


@pytest.fixture
def league(tmp_path: Path) -> LeagueDir:
    root = tmp_path / "league"
    root.mkdir()
    (root / "league.toml").write_text(LEAGUE_TOML)
    return LeagueDir(root)


@pytest.fixture
def settings(league: LeagueDir) -> LeagueSettings:
    return load_settings(league.config)


def python_bot(folder: Path, seed: int = 1) -> Path:
    """The random sample bot as ``bot.py`` with the protocol package it imports, and a
    bot.toml: a folder an author would submit."""
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "sample_bots" / "random_bot.py", folder / "bot.py")
    shutil.copytree(ROOT / "protocol", folder / "protocol",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text(
        f'cmd = ["{{python}}", "bot.py", "--seed", "{seed}"]\nauthor = "Ada"\n')
    return folder


def hostile_bot(folder: Path, script: str, *args: str, build: str = "") -> Path:
    """A bot of tests/hostile with its shared loop, started as ``{python} SCRIPT ARGS``."""
    folder.mkdir(parents=True)
    shutil.copy(HOSTILE / "_base.py", folder)
    shutil.copy(HOSTILE / script, folder)
    cmd = ", ".join(f'"{a}"' for a in ["{python}", script, *args])
    (folder / "bot.toml").write_text(f"cmd = [{cmd}]\n{build}")
    return folder


def entries(league: LeagueDir) -> list[str]:
    return sorted(p.name for p in league.store.iterdir())


def quiet(event: SubmitEvent) -> None:
    pass


# ----- accepted ----------------------------------------------------------------------------


def test_a_python_bot_is_copied_checked_and_accepted(league: LeagueDir, settings: LeagueSettings,
                                                     tmp_path: Path) -> None:
    folder = python_bot(tmp_path / "author" / "rnd")
    original = (folder / "bot.py").read_bytes()
    v1 = submit(league, settings, Submission("rnd", folder), quiet)
    assert (v1.state, v1.number, v1.author, v1.step) == ("active", 1, "Ada", "")
    assert v1.cmd == ["{python}", "bot.py", "--seed", "1"]
    assert v1.source is not None
    stored = league.stored(v1.source)
    check_log = (league.version_dir("rnd", 1) / "check.log").read_text()
    assert "PASS  15. quit" in check_log and "FAIL" not in check_log

    # The stored copy is root's and nobody may write it: what plays is what was checked.
    for path in [stored, stored / "bot.py", stored / "protocol" / "bot.py"]:
        info = path.stat()
        assert info.st_uid == 0 and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        assert info.st_mode & stat.S_IROTH

    # The same content again: one store entry, a second version; the first stays active.
    v2 = submit(league, settings, Submission("rnd", folder), quiet)
    assert (v2.number, v2.state, v2.source) == (2, "active", v1.source)
    assert entries(league) == [v1.source]
    assert "stored already" in (league.version_dir("rnd", 2) / "build.log").read_text()
    assert [v.state for v in read_versions(league)] == ["active", "active"]

    # The author edits the folder: nothing that plays changes.
    (folder / "bot.py").write_text("raise SystemExit('edited')\n")
    assert (stored / "bot.py").read_bytes() == original


@pytest.mark.needs("gcc")
def test_a_c_bot_is_built_in_the_sandbox_and_a_failing_build_leaves_it_alone(
        league: LeagueDir, settings: LeagueSettings, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "author" / "cbot"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "sample_bots" / "c" / "randbot.c", folder)
    (folder / "bot.toml").write_text(
        'build = ["cc", "-O2", "-std=c99", "-o", "bot", "randbot.c"]\n')
    v1 = submit(league, settings, Submission("cbot", folder), quiet)
    assert v1.state == "active", v1.reason
    assert v1.cmd == ["./bot"]  # found in the built folder: no cmd given
    assert v1.source is not None
    built = league.stored(v1.source) / "bot"
    assert built.stat().st_uid == 0 and built.stat().st_mode & stat.S_IXOTH
    assert "build succeeded" in (league.version_dir("cbot", 1) / "build.log").read_text()

    (folder / "bot.toml").write_text(
        'build = ["sh", "-c", "echo compiling; echo randbot.c:1: error: boom >&2; exit 2"]\n')
    v2 = submit(league, settings, Submission("cbot", folder), quiet)
    assert (v2.state, v2.step) == ("rejected", "build")
    assert v2.reason.startswith("build exited with status 2 after ")
    assert v2.reason.endswith("; see bots/cbot/2/build.log")
    log = (league.version_dir("cbot", 2) / "build.log").read_text()
    assert "compiling" in log and "error: boom" in log
    assert [(v.number, v.state) for v in read_versions(league)] == [(1, "active"),
                                                                     (2, "rejected")]
    assert entries(league) == [v1.source]  # the failed build's copy is gone

    assert main(["league", "bots", str(league.root)]) == 0
    out = capsys.readouterr().out
    assert "cbot  1        active" in out
    assert "cbot  2        rejected" in out
    assert "    build: build exited with status 2 after" in out
    assert "    log: bots/cbot/2/build.log" in out


def test_an_installed_engine_is_submitted_from_the_command_line(
        league: LeagueDir, capsys: pytest.CaptureFixture[str]) -> None:
    script = str(ROOT / "sample_bots" / "random_bot.py")
    status = main(["league", "submit", str(league.root), "engine", "--protocol", "native",
                   "--author", "me", "--option", "Depth=3", "--", sys.executable, script])
    out = capsys.readouterr().out
    assert status == 1, out  # random_bot declares no option Depth: the check says so
    (version,) = read_versions(league)
    assert version.source is None and version.cmd == [sys.executable, script]
    assert (version.author, version.options) == ("me", {"Depth": "3"})
    assert version.step == "check" and "does not declare: Depth" in version.reason

    assert main(["league", "submit", str(league.root), "engine", "--",
                 sys.executable, script]) == 0
    assert [v.state for v in read_versions(league)] == ["rejected", "active"]


def test_submit_tells_its_steps_as_typed_events(
        league: LeagueDir, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--events``: one JSON event per line, which the web decodes (not text to parse); the
    same steps as the lines a person reads."""
    folder = python_bot(tmp_path / "author" / "rnd")
    assert main(["league", "submit", str(league.root), "rnd", str(folder), "--events"]) == 0
    events = [decode_event(line) for line in capsys.readouterr().out.splitlines()]
    assert [type(e) for e in events] == [Submitted, Copying, Checking, Finished]
    assert {e.label for e in events} == {"rnd@1"}
    assert events[-1] == Finished("rnd@1", "active")
    assert [e.text() for e in events] == [
        "rnd@1: submitted", f"rnd@1: copying {folder}", "rnd@1: checking (arena check-bot "
        "dobutsu)", "rnd@1: active"]
    assert main(["league", "submit", str(league.root), "rnd", str(folder)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "rnd@2: active"  # text without it


def test_an_installed_engines_file_arguments_are_kept_absolute(
        league: LeagueDir, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-- python mybot.py`` from the author's folder names that file for good: nights run
    from the league, not from where the version was submitted."""
    monkeypatch.chdir(ROOT / "sample_bots")
    assert main(["league", "submit", str(league.root), "engine", "--", sys.executable,
                 "random_bot.py", "--seed", "3"]) == 0
    (version,) = read_versions(league)
    assert version.cmd == [sys.executable, str(ROOT / "sample_bots" / "random_bot.py"),
                           "--seed", "3"]


# ----- rejected ----------------------------------------------------------------------------


def test_a_bot_that_plays_an_illegal_move_is_rejected_at_check(
        league: LeagueDir, settings: LeagueSettings, tmp_path: Path) -> None:
    folder = hostile_bot(tmp_path / "ill", "illegal_move.py", "tag", "0")
    version = submit(league, settings, Submission("ill", folder), quiet)
    assert (version.state, version.step) == ("rejected", "check")
    assert version.reason.startswith("step 6. position (start position)")
    assert "'a2a5' is not legal" in version.reason
    assert version.reason.endswith("; see bots/ill/1/check.log")
    assert "\n" not in version.reason
    log = (league.version_dir("ill", 1) / "check.log").read_text()
    assert "< bestmove a2a5" in log and "SKIP  15. quit" in log
    assert "the bot's stderr:" in log and "pid " in log


def test_a_bot_that_hangs_at_the_handshake_is_rejected_in_bounded_time(
        league: LeagueDir, settings: LeagueSettings, tmp_path: Path) -> None:
    folder = hostile_bot(tmp_path / "mute", "never_ugiok.py", "tag")
    started = time.monotonic()
    version = submit(league, settings, Submission("mute", folder), quiet,
                     check_timeout=HANDSHAKE_S)
    assert time.monotonic() - started < 10
    assert (version.state, version.step) == ("rejected", "check")
    assert version.reason.startswith("step 2. handshake")
    assert f"within {HANDSHAKE_S:g} s" in version.reason


@pytest.mark.needs("bubblewrap")
def test_the_build_has_no_network(league: LeagueDir, settings: LeagueSettings,
                                  tmp_path: Path) -> None:
    probe = "import socket; socket.create_connection(('1.1.1.1', 53), timeout=5)"
    folder = hostile_bot(tmp_path / "net", "plays_fair.py",
                         build=f'build = ["{{python}}", "-c", "{probe}"]\n')
    version = submit(league, settings, Submission("net", folder), quiet)
    assert (version.state, version.step) == ("rejected", "build"), version.reason
    log = (league.version_dir("net", 1) / "build.log").read_text()
    assert "Network is unreachable" in log


@pytest.mark.parametrize("sandbox", ["auto", "uid"])
def test_the_build_writes_its_own_folder_only(league: LeagueDir, tmp_path: Path,
                                              sandbox: str) -> None:
    """Under bubblewrap and under the ``uid`` containment (no bubblewrap) alike."""
    (league.config).write_text(LEAGUE_TOML + f'sandbox = "{sandbox}"\n')
    settings = load_settings(league.config)
    outside = [tmp_path / "planted", league.root / "planted", league.store / "planted"]
    script = "; ".join([
        *(f"touch {p} 2>/dev/null && echo WROTE {p}" for p in outside),
        "touch ../planted 2>/dev/null && echo WROTE ..",
        "echo made > inside.txt && echo inside-ok",
        "id -u",
        "exit 3",
    ])
    folder = hostile_bot(tmp_path / "w", "plays_fair.py",
                         build=f'build = ["sh", "-c", "{script}"]\n')
    version = submit(league, settings, Submission("w", folder), quiet)
    assert (version.state, version.step) == ("rejected", "build")
    log = (league.version_dir("w", 1) / "build.log").read_text()
    assert "\ninside-ok\n" in log and "\nWROTE" not in log
    uid = int(log.split("inside-ok\n", 1)[1].split()[0])
    assert uid != 0  # never root
    assert not any(p.exists() for p in outside)
    assert not list(league.store.glob("*/planted"))


def test_a_build_that_outlives_its_time_is_killed(league: LeagueDir, tmp_path: Path) -> None:
    (league.config).write_text(LEAGUE_TOML + "[league]\nbuild_seconds = 0.5\n")
    settings = load_settings(league.config)
    folder = hostile_bot(tmp_path / "slow", "plays_fair.py",
                         build='build = ["sh", "-c", "echo started; sleep 60 & sleep 60"]\n')
    started = time.monotonic()
    version = submit(league, settings, Submission("slow", folder), quiet)
    assert time.monotonic() - started < 5
    assert (version.state, version.step) == ("rejected", "build")
    assert version.reason == ("build still running after 0.5 s: killed; see "
                              "bots/slow/1/build.log")


def test_a_bad_bot_toml_is_rejected_naming_its_line(league: LeagueDir, settings: LeagueSettings,
                                                    tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text('author = "x"\ncmd = "python3 bot.py"\n')
    version = submit(league, settings, Submission("bad", folder), quiet)
    assert (version.state, version.step) == ("rejected", "bot.toml")
    assert version.reason.startswith(f"{folder}/bot.toml:2: cmd: Expected array")
    assert 'cmd = ["./bot"]' in version.reason

    (folder / "bot.toml").write_text('protocol = "native"\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"bot.toml:2: name: unknown key 'name'; allowed"):
        read_bot_file(folder, folder)


def test_bad_names_and_missing_folders_take_no_number(league: LeagueDir,
                                                      settings: LeagueSettings,
                                                      tmp_path: Path) -> None:
    with pytest.raises(UserError, match="bot name '../x'"):
        submit(league, settings, Submission("../x", tmp_path), quiet)
    with pytest.raises(UserError, match="no such folder"):
        submit(league, settings, Submission("x", tmp_path / "missing"), quiet)
    with pytest.raises(UserError, match="nothing to submit"):
        submit(league, settings, Submission("x"), quiet)
    assert read_versions(league) == []


# ----- the store ---------------------------------------------------------------------------


def test_the_digest_covers_paths_content_and_the_exec_bit_only(tmp_path: Path) -> None:
    a = tmp_path / "a"
    (a / "sub").mkdir(parents=True)
    (a / "sub" / "x.txt").write_text("x")
    (a / "run").write_text("#!/bin/sh\n")
    (a / ".git").mkdir()
    (a / ".git" / "HEAD").write_text("ref")
    os.symlink("sub/x.txt", a / "link")
    first = store.copy_in(tmp_path / "store", a)
    os.utime(a / "run", (0, 0))
    shutil.rmtree(a / ".git")
    again = store.copy_in(tmp_path / "store", a)
    assert first.digest == again.digest and len(first.digest) == store.DIGEST_CHARS
    assert not (first.tree / ".git").exists() and (first.tree / "link").is_symlink()
    os.chmod(a / "run", 0o755)
    changed = store.copy_in(tmp_path / "store", a)
    assert changed.digest != first.digest
    store.discard(changed)
    assert store.commit(tmp_path / "store", first).name == first.digest
    assert store.commit(tmp_path / "store", again).name == first.digest
    assert [p.name for p in (tmp_path / "store").iterdir()] == [first.digest]


@pytest.mark.parametrize("kind", ["outside", "absolute", "fifo", "setuid", "too-many"])
def test_the_store_refuses_what_a_bot_folder_should_not_hold(
        tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "ok.txt").write_text("fine")
    expected = {"outside": "link.*leads outside", "absolute": "link to an absolute path",
                "fifo": "a special file", "setuid": "a set-user-ID or set-group-ID file",
                "too-many": "more than 1 files"}[kind]
    if kind == "outside":
        os.symlink("../../etc", folder / "escape")
    elif kind == "absolute":
        os.symlink(str(folder / "ok.txt"), folder / "escape")
    elif kind == "fifo":
        os.mkfifo(folder / "escape")
    elif kind == "setuid":
        (folder / "escape").write_text("#!/bin/sh\n")
        os.chmod(folder / "escape", 0o4755)
    else:
        monkeypatch.setattr(store, "MAX_FILES", 1)
        (folder / "escape").write_text("one more")
    with pytest.raises(store.StoreError, match=expected) as caught:
        store.copy_in(tmp_path / "store", folder)
    if kind != "too-many":
        assert str(folder / "escape") in str(caught.value)
    assert not (tmp_path / "store").exists()  # refused while listing: nothing copied


def test_the_command_rule_without_a_cmd(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("")
    assert infer_cmd(tmp_path, tmp_path) == ["{python}", "main.py"]
    (tmp_path / "bot.py").write_text("")
    with pytest.raises(UserError, match="both bot.py and main.py"):
        infer_cmd(tmp_path, tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match="no command"):
        infer_cmd(empty, empty)
    (empty / "bot").write_text("#!/bin/sh\n")
    os.chmod(empty / "bot", 0o755)
    assert infer_cmd(empty, empty) == ["./bot"]


# ----- bots and retire ---------------------------------------------------------------------


def _versions(league: LeagueDir, *specs: tuple[str, int, str]) -> None:
    for name, number, state in specs:
        write_version(league, Version(name=name, number=number, cmd=["./bot"],
                                      submitted_at=0.0, state=state,  # type: ignore[arg-type]
                                      step="check" if state == "rejected" else "",
                                      reason="step 2. handshake: no reply" if state ==
                                      "rejected" else ""))


def test_retire_a_version_or_every_active_version_of_a_bot(
        league: LeagueDir, capsys: pytest.CaptureFixture[str]) -> None:
    _versions(league, ("a", 1, "active"), ("a", 2, "rejected"), ("a", 3, "active"),
              ("b", 1, "active"))
    assert main(["league", "retire", str(league.root), "a@1", "--reason", "superseded"]) == 0
    assert "a@1: retired" in capsys.readouterr().out
    assert main(["league", "retire", str(league.root), "a@1"]) == 2
    assert "a@1 is retired, not active" in capsys.readouterr().err
    assert main(["league", "retire", str(league.root), "a@2"]) == 2
    assert main(["league", "retire", str(league.root), "a@9"]) == 2
    assert "no such version (versions: 1, 2, 3)" in capsys.readouterr().err
    assert main(["league", "retire", str(league.root), "zed"]) == 2
    assert "no bot named 'zed'" in capsys.readouterr().err
    assert main(["league", "retire", str(league.root), "a"]) == 0
    states = {v.label: v.state for v in read_versions(league)}
    assert states == {"a@1": "retired", "a@2": "rejected", "a@3": "retired", "b@1": "active"}
    assert main(["league", "retire", str(league.root), "a"]) == 2
    assert "a has no active version" in capsys.readouterr().err


def test_bots_lists_games_and_ratings_of_the_last_night(
        league: LeagueDir, capsys: pytest.CaptureFixture[str]) -> None:
    _versions(league, ("a", 1, "active"), ("a", 2, "rejected"), ("b", 1, "active"))
    for night, rating in (("2026-01-01", 1400.0), ("2026-01-02", 1512.4)):
        append_snapshot(league, Snapshot(night, 0.0, 10, 10, [
            Rated("a@1", rating, 30.2, 10, 6.0), Rated("b@1", None, None, 10, 4.0)]))
    (league.version_dir("a", 2) / "check.log").write_text("step 2: no reply\n")
    assert main(["league", "bots", str(league.root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["bot", "version", "state", "games", "rating", "author"]
    assert lines[1].split() == ["a", "1", "active", "10", "1512", "±", "30", "-"]
    assert lines[2].split() == ["a", "2", "rejected", "-", "-", "-"]
    assert lines[3] == "    check: step 2. handshake: no reply"
    assert lines[4] == "    log: bots/a/2/check.log"
    assert lines[5].split() == ["b", "1", "active", "10", "order", "only,", "#2", "-"]
    assert lines[-1].startswith("(ratings after night 2026-01-02; order only: ")


def test_bots_and_submit_need_a_league(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["league", "bots", str(tmp_path)]) == 2
    assert "not a league directory" in capsys.readouterr().err


def test_a_version_file_round_trips(league: LeagueDir) -> None:
    _versions(league, ("a", 1, "active"))
    raw = (league.version_dir("a", 1) / "version.json").read_bytes()
    assert msgspec.json.decode(raw, type=Version).label == "a@1"


def test_a_build_over_its_memory_limit_is_killed_and_says_so(league: LeagueDir,
                                                              tmp_path: Path) -> None:
    (league.config).write_text(LEAGUE_TOML + "[league]\nbuild_memory_mb = 64\n")
    settings = load_settings(league.config)
    hog = "b = bytearray(512 << 20); print(len(b))"
    folder = hostile_bot(tmp_path / "hog", "plays_fair.py",
                         build=f'build = ["{{python}}", "-c", "{hog}"]\n')
    version = submit(league, settings, Submission("hog", folder), quiet)
    assert (version.state, version.step) == ("rejected", "build")
    assert version.reason.startswith("build was killed by signal 9 (its memory limit of 64 MiB "
                                     "was reached) after "), version.reason
