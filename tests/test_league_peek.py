"""Nobody reads what is not theirs: a submitted bot that looks for the league's files
(``authors.json``, ``league.toml``, another version's stored code and check log, a night's
logs) finds none of them, when ``check-bot`` starts it at submission and in a night, with
bubblewrap and without.

The probe (``tests/hostile/league_peek.py``) gets the paths from a file in its own folder,
not as arguments (the league refuses arguments that lead out of a bot's folder,
test_league_reach.py). The league lies in a folder every user may enter, its files made as
the league makes them (``league.toml`` and the logs 0644): nothing but the containment
stands between the bot and them. The league is driven through the ``arena`` command, as its
users drive it; without bubblewrap, with a PATH that holds no ``bwrap``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_hostile_no_bwrap import path_without_bwrap
from test_league_submit import hostile_bot

from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.versions import read_versions

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
REFUSED = ("ENOENT", "EACCES")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="the arena as root, as CI runs it")]


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user may enter, outside /tmp (bubblewrap gives a bot a /tmp of its
    own, which would hide a league there whatever the view): where a league's owner would
    keep one (/srv/league)."""
    base = Path(tempfile.mkdtemp(prefix="arena-peek-", dir="/var/tmp"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("bwrap", ["with", "without"])
def test_a_bot_finds_no_league_file_at_its_check_or_in_a_night(
        open_folder: Path, tmp_path: Path, bwrap: str) -> None:
    env = dict(os.environ)
    if bwrap == "without":
        env["PATH"] = path_without_bwrap(tmp_path / "bin")
        for tool in ("true", "sh", "python3"):  # what league.toml's check and bots run
            found = shutil.which(tool)
            assert found is not None
            (tmp_path / "bin" / tool).symlink_to(found)

    def arena(*argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-m", "arena.cli", *argv], capture_output=True,
                              text=True, timeout=300, cwd=ROOT, env=env)
        assert done.returncode == 0, f"arena {' '.join(argv)}: {done.returncode}\n" \
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done

    root = open_folder / "league"
    league = LeagueDir(root)
    arena("league", "init", str(root), "--game", "dobutsu", "--tc", "5+0.05", "--max-plies",
          "16", "--concurrency", "1", "--placement-opponents", "1")
    arena("league", "author", "add", str(root), "ada")
    for name in ("alpha", "beta"):
        arena("league", "submit", str(root), name,
              str(hostile_bot(tmp_path / name, "plays_fair.py")), "--author", "ada")
    arena("league", "run", str(root), "--games", "2", "--night", "n1", "--plain",
          "--no-report")
    alpha = next(v for v in read_versions(league) if v.name == "alpha")
    assert alpha.source is not None
    night_logs = sorted(p for p in league.night("n1").logs.rglob("*") if p.is_file())
    assert night_logs, "the first night left no log to look for"
    targets = [league.authors, league.config, league.stored(alpha.source) / "plays_fair.py",
               league.version_dir("alpha", 1) / "check.log", night_logs[0],
               league.night("n2").logs]
    assert all(os.stat(t).st_mode & 0o004 for t in targets[1:5])  # readable by all

    probe = hostile_bot(tmp_path / "probe", "league_peek.py", "peek", "0")
    (probe / "targets.txt").write_text("".join(f"{t}\n" for t in targets))
    arena("league", "submit", str(root), "probe", str(probe))
    check_log = (league.version_dir("probe", 1) / "check.log").read_text()
    arena("league", "run", str(root), "--games", "2", "--night", "n2", "--plain",
          "--no-report")
    stderr = "".join(p.read_text(errors="replace") for p in league.night("n2").logs.rglob("*")
                     if p.is_file() and "probe" in str(p.relative_to(league.night("n2").logs)))

    for when, text in (("start", check_log), ("go", stderr)):
        seen = dict(re.findall(rf"^reach {when} (\S+) (\S+)$", text, re.M))
        assert seen.get("own") == "ok", f"the probe did not look at {when}:\n{text[-3000:]}"
        for target in targets:
            assert seen.get(str(target)) in REFUSED, (when, str(target), seen)
