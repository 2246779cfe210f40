"""The newest night of a league, followed for months: what ``arena serve LEAGUE`` shows at
``/live``.

A league's server outlives its nights: it may start before the first one and run while
hundreds open and close. :class:`NightFollower` looks at the league's nights every
:data:`FOLLOW_SECONDS`; when a newer night has begun it follows that one instead (a
:class:`~arena.web.watch.RunWatcher` of its run directory, the previous one stopped), so the
live page moves on by itself. Each snapshot of the night followed is published again with the
follower's own version, which only grows, so a page that waited on the old night's stream
gets the new night's first snapshot as the next one. When a night closes, the league's report
is rebuilt by the ``league run`` that closed it; if it is still older than the night's tally
:data:`REPORT_GRACE_SECONDS` later (that run had ``--no-report``, or was killed), the server
rebuilds it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Final

import trio

from arena.leaguedir.directory import LeagueDir
from arena.web.snapshots import Snapshots
from arena.web.watch import RunWatcher

FOLLOW_SECONDS: Final = 1.0
"""How often the league's nights are looked at (a new night, a night closed)."""
REPORT_GRACE_SECONDS: Final = 30.0
"""How long after a night's tally appears the closing ``league run`` has to rebuild the
league's report before the server does it."""
NO_NIGHT: Final = "no night yet"


class NightFollower(Snapshots):
    """Snapshots of the league's newest night, whichever it is now (:meth:`run`: a trio task)."""

    def __init__(self, league: LeagueDir, *, rebuild_report: bool = True,
                 report_grace: float = REPORT_GRACE_SECONDS) -> None:
        super().__init__()
        self.league = league
        self.rebuild_report = rebuild_report
        self.report_grace = report_grace
        self.watcher: RunWatcher | None = None
        self._scope: trio.CancelScope | None = None
        self._tallies: dict[str, float] = {}
        """Each closed night's tally and when it was first seen."""
        self._rebuilt: set[str] = set()
        self._looked = False
        self.report_error = ""

    @property
    def run_dir(self) -> Path | None:
        """The night followed now (its files are served under ``/run/``)."""
        return None if self.watcher is None else self.watcher.run_dir

    def title(self) -> str:
        night = self.run_dir
        return f"Arena live: night {night.name}" if night is not None else "Arena live"

    def pgn(self, key: str) -> str | None:
        return None if self.watcher is None else self.watcher.pgn(key)

    async def first_snapshot(self, timeout: float) -> dict[str, Any]:
        await self.wait_newer(0, timeout)
        return self.snapshot

    # ----- the task ----------------------------------------------------------------------
    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            while True:
                newest, closed = await trio.to_thread.run_sync(self._look)
                if newest != self.run_dir:
                    self._follow(nursery, newest)
                self._closed(nursery, closed)
                await trio.sleep(FOLLOW_SECONDS)

    def _look(self) -> tuple[Path | None, dict[str, Path]]:
        """The newest night's folder, and every closed night's tally (by night)."""
        names = self.league.night_names()
        tallies = {name: self.league.tally(name) for name in names}
        closed = {name: path for name, path in tallies.items() if path.is_file()}
        return (self.league.night(names[-1]).root if names else None), closed

    def _follow(self, nursery: trio.Nursery, night: Path | None) -> None:
        if self._scope is not None:
            self._scope.cancel()
        self.watcher = None if night is None else RunWatcher(
            night, rebuild_report=self.rebuild_report)
        if self.watcher is None:
            self._forward({"run": NO_NIGHT, "total": None, "running": [], "standings": [],
                           "finished": [], "done": 0, "report": False})
            return
        self._scope = trio.CancelScope()
        nursery.start_soon(self._watch, self.watcher, self._scope)

    async def _watch(self, watcher: RunWatcher, scope: trio.CancelScope) -> None:
        """Run ``watcher`` and publish each of its snapshots as the follower's, until the
        follower moves on to a newer night."""
        with scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(watcher.run)
                seen = 0
                while True:
                    snap = await watcher.wait_newer(seen, FOLLOW_SECONDS * 10)
                    if snap is not None:
                        seen = int(snap["version"])
                        self._forward(snap)

    def _forward(self, snap: dict[str, Any]) -> None:
        self.version += 1
        self._publish({**snap, "version": self.version,
                       "report_error": snap.get("report_error") or self.report_error})

    # ----- the league's report -----------------------------------------------------------
    def _closed(self, nursery: trio.Nursery, closed: dict[str, Path]) -> None:
        """Rebuild the league's report once a night that closed while the server ran is
        newer than it for :attr:`report_grace` seconds."""
        now = trio.current_time()
        first, self._looked = not self._looked, True
        for name in closed:
            if name not in self._tallies:
                # Nights closed before the server started are not waited for: the report
                # they left is theirs.
                self._tallies[name] = -math.inf if first else now
        if not self.rebuild_report:
            return
        due = [name for name, seen in self._tallies.items()
               if name not in self._rebuilt and now - seen >= self.report_grace]
        if not due:
            return
        self._rebuilt.update(due)
        stale = [name for name in due if self._older_report(closed[name])]
        if stale:
            nursery.start_soon(self._build_report)

    def _older_report(self, tally: Path) -> bool:
        try:
            return self.league.report_page.stat().st_mtime < tally.stat().st_mtime
        except OSError:
            return True

    async def _build_report(self) -> None:
        from reports.league_report import build_league_report

        try:
            await trio.to_thread.run_sync(build_league_report, self.league.root)
            self.report_error = ""
        except Exception as exc:  # the pages go on with the report there is
            self.report_error = f"league report not rebuilt: {type(exc).__name__}: {exc}"
