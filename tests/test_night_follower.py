"""The league server's follower of nights (:mod:`arena.web.nightfollow`), in-process on the
hand-made league of :mod:`league_fixture`: it moves to each newer night as it begins, its
versions only grow, and the league's report is rebuilt when a night's close left it older
than the night's tally, once the closing run has had its grace (a few seconds here)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import trio
from league_fixture import OPEN_NIGHT, make_league

from arena.leaguedir.directory import NIGHT_FILE, LeagueDir
from arena.web.nightfollow import FOLLOW_SECONDS, NightFollower

GRACE = 6.0


async def wait_for(follower: NightFollower, night: str) -> dict[str, object]:
    version = 0
    with trio.fail_after(120):
        while True:
            snap = await follower.wait_newer(version, 60)
            if snap is not None:
                version = int(snap["version"])  # type: ignore[call-overload]
                if snap.get("run") == night:
                    return snap


@pytest.mark.slow  # a league report built twice, and the grace waited for
async def test_the_follower_moves_on_and_refreshes_the_league_report(tmp_path: Path) -> None:
    league = LeagueDir(make_league(tmp_path / "league", night_reports=False).root)
    assert not league.report_page.exists()
    follower = NightFollower(league, report_grace=GRACE)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(follower.run)
        first = await wait_for(follower, OPEN_NIGHT)
        assert follower.run_dir == league.night(OPEN_NIGHT).root
        # Nights closed before the server started: a missing report is built at once.
        with trio.fail_after(120):
            while not league.report_page.exists():
                await trio.sleep(FOLLOW_SECONDS)

        # A newer night begins: the follower moves to it, its version above the last one.
        (league.nights / "2026-03-04").mkdir()
        (league.nights / "2026-03-04" / NIGHT_FILE).write_text(json.dumps({}) + "\n")
        second = await wait_for(follower, "2026-03-04")
        assert int(second["version"]) > int(first["version"])  # type: ignore[call-overload]
        assert follower.title() == "Arena live: night 2026-03-04"

        # It closes, and its run leaves no league report: the server builds one, not before
        # the grace the closing run has.
        built = league.report_page.stat().st_mtime
        tally = league.tally("2026-03-04")
        tally.write_bytes(league.tally("2026-03-02").read_bytes())
        os.utime(tally, (built + 5, built + 5))
        seen = trio.current_time()
        with trio.fail_after(GRACE + 120):
            while league.report_page.stat().st_mtime <= built:
                await trio.sleep(FOLLOW_SECONDS / 4)
        assert trio.current_time() - seen >= GRACE - FOLLOW_SECONDS, "rebuilt within the grace"
        nursery.cancel_scope.cancel()
