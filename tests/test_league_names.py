"""Bot names and authors: a rejected submission takes no name; a name held only by rejected
versions is free for anyone; a pending first submission holds its name against another
author; ``arena league author list`` says which is which.

Real submissions (copies and check-bot runs) into a league on disk, real ``authors.json``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_bounded_input import request
from test_league_submissions import bearer, server
from test_league_submit import HOSTILE, LEAGUE_TOML, quiet

from arena.cli import main
from arena.errors import UserError
from arena.league.authors import (
    add_author,
    bots_of,
    claim_bot,
    may_submit,
    owner_of,
    read_authors,
    settle_claims,
)
from arena.league.lock import league_lock
from arena.league.submit import Submission, submit
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import LeagueSettings, load_settings
from arena.leaguedir.versions import Version, read_versions, write_version


@pytest.fixture
def league(tmp_path: Path) -> LeagueDir:
    root = tmp_path / "league"
    root.mkdir()
    (root / "league.toml").write_text(LEAGUE_TOML)
    league = LeagueDir(root)
    add_author(league, "ada")
    add_author(league, "bob")
    return league


@pytest.fixture
def settings(league: LeagueDir) -> LeagueSettings:
    return load_settings(league.config)


def bot(folder: Path, script: str = "plays_fair.py") -> Path:
    folder.mkdir(parents=True)
    shutil.copy(HOSTILE / "_base.py", folder)
    shutil.copy(HOSTILE / script, folder)
    (folder / "bot.toml").write_text(f'cmd = ["{{python}}", "{script}", "tag", "0"]\n')
    return folder


def listed(capsys: pytest.CaptureFixture[str], league: LeagueDir) -> dict[str, str]:
    """``arena league author list``: author -> the rest of their line."""
    assert main(["league", "author", "list", str(league.root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    return {line.split()[0]: line.split("bots: ", 1)[1] for line in lines}


def test_a_rejected_upload_leaves_the_name_free_for_another_author(
        league: LeagueDir, settings: LeagueSettings, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    garbage = bot(tmp_path / "garbage", "illegal_move.py")
    first = submit(league, settings, Submission("shiny", garbage, author="ada"), quiet)
    assert (first.state, first.step) == ("rejected", "check")
    assert read_authors(league).bots == {}
    # Ada still finds her rejected version (and reads its logs) while the name is free.
    assert owner_of(league, "shiny") == "ada" and bots_of(league, "ada") == ["shiny"]
    assert may_submit(league, "shiny", "bob") is None
    assert listed(capsys, league)["ada"] == "-  rejected (the name is free): shiny@1"

    second = submit(league, settings, Submission("shiny", bot(tmp_path / "good"),
                                                 author="bob"), quiet)
    assert (second.label, second.state) == ("shiny@2", "active"), second.reason
    assert read_authors(league).bots == {"shiny": "bob"}
    assert read_authors(league).claims == {}  # ada's claim went with the name
    assert owner_of(league, "shiny") == "bob" and bots_of(league, "ada") == []
    refused = may_submit(league, "shiny", "ada")
    assert refused is not None and "belongs to author 'bob'" in refused
    with pytest.raises(UserError, match="belongs to author 'bob'"):
        submit(league, settings, Submission("shiny", garbage, author="ada"), quiet)
    assert listed(capsys, league) == {"ada": "-", "bob": "shiny"}


def test_a_pending_first_submission_holds_its_name_until_it_ends(league: LeagueDir) -> None:
    """Under the lock, as submit takes it: the claim, then the pending version."""
    with league_lock(league):
        claim_bot(league, "race", 1, "ada")
        write_version(league, Version("race", 1, ["./bot"], 0.0, author="ada"))
    refused = may_submit(league, "race", "bob")
    assert refused is not None and "belongs to author 'ada' (a submission of theirs is " \
        "pending)" in refused
    with league_lock(league), pytest.raises(UserError, match="pending"):
        claim_bot(league, "race", 2, "bob")
    assert may_submit(league, "race", "ada") is None  # her own second submission may go on

    with league_lock(league):
        write_version(league, Version("race", 1, ["./bot"], 0.0, state="rejected",
                                      author="ada"))
        settle_claims(league)
    assert may_submit(league, "race", "bob") is None
    assert read_authors(league).bots == {}


def test_names_of_rejected_versions_only_from_an_earlier_arena_are_freed(
        league: LeagueDir, settings: LeagueSettings, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An earlier arena gave a name at the first submission: ``authors.json`` names 30
    garbage bots as ada's. None is hers now; the next write of the file forgets them."""
    raw = json.loads(league.authors.read_text())
    raw["bots"] = {f"junk{i}": "ada" for i in range(30)} | {"real": "ada"}
    league.authors.write_text(json.dumps(raw))
    for i in range(30):
        write_version(league, Version(f"junk{i}", 1, ["./bot"], 0.0, state="rejected",
                                      author="ada"))
    write_version(league, Version("real", 1, ["./bot"], 0.0, state="active", author="ada"))
    write_version(league, Version("real", 2, ["./bot"], 0.0, state="rejected", author="ada"))

    assert listed(capsys, league)["ada"] == "real"
    assert may_submit(league, "junk7", "bob") is None
    refused = may_submit(league, "real", "bob")
    assert refused is not None and "belongs to author 'ada'" in refused
    assert len(read_authors(league).bots) == 31  # read, not written yet

    add_author(league, "carol")  # any write
    assert read_authors(league).bots == {"real": "ada"}

    version = submit(league, settings, Submission("junk7", bot(tmp_path / "b"), author="bob"),
                     quiet)
    assert (version.label, version.state) == ("junk7@2", "active"), version.reason
    assert read_authors(league).bots == {"real": "ada", "junk7": "bob"}


def test_the_owners_rejected_bot_frees_its_name_and_the_owners_bot_keeps_it(
        league: LeagueDir, settings: LeagueSettings, tmp_path: Path) -> None:
    kept = submit(league, settings, Submission("house", bot(tmp_path / "h")), quiet)
    assert kept.state == "active"
    refused = may_submit(league, "house", "ada")
    assert refused is not None and "submitted by the league's owner" in refused
    gone = submit(league, settings, Submission("tried", bot(tmp_path / "t",
                                                            "illegal_move.py")), quiet)
    assert gone.state == "rejected"
    assert may_submit(league, "tried", "ada") is None
    assert [v.label for v in read_versions(league)] == ["house@1", "tried@1"]


@pytest.mark.slow
def test_a_freed_names_earlier_versions_stay_their_authors_on_the_web(
        tmp_path: Path, settings: LeagueSettings) -> None:
    """Bob takes the name ada's rejected upload left free: on a real server bob reads the logs
    of his own version of it, not those of ada's rejected one (her code's check log)."""
    root = tmp_path / "web-league"
    root.mkdir()
    (root / "league.toml").write_text(LEAGUE_TOML)
    league = LeagueDir(root)
    add_author(league, "ada")
    bob = add_author(league, "bob")
    first = submit(league, settings, Submission("shiny", bot(tmp_path / "garbage",
                                                              "illegal_move.py"),
                                                author="ada"), quiet)
    assert first.state == "rejected"
    second = submit(league, settings, Submission("shiny", bot(tmp_path / "good"),
                                                 author="bob"), quiet)
    assert second.state == "active", second.reason
    with server(league, tmp_path / "serve.log") as url:
        status, body = request(url, "GET", "/authors/bob/logs/shiny/2/check.log", bearer(bob))
        assert status == 200, body
        status, body = request(url, "GET", "/authors/bob/logs/shiny/1/check.log", bearer(bob))
        assert status == 403 and b"illegal" not in body, body
        status, body = request(url, "GET", "/authors/bob", bearer(bob))
        assert status == 200 and b"shiny@1" not in body and b"shiny@2" in body
