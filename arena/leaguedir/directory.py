"""The names of a league directory's files, in one place, and :class:`LeagueDir`.

A league directory::

    league.toml               what the league plays and its nightly policy (:mod:`.leaguetoml`)
    store/<hash>/             each submitted folder, once, named by its content's hash
    bots/<name>/<n>/          one version: version.json, build.log, check.log
    bots/<name>/try-<k>/      a submission without a number yet (pending) or for good
                              (rejected), with the same files
    nights/<night>/           one night: a run directory (games.jsonl, PGN, logs, report)
                              plus night.json, plan.jsonl and, once closed, tally.json
    history.jsonl             one rating snapshot per closed night
    authors.json              the authors (a hash of each one's token) and the bots each owns
    submissions/<id>/         one web submission: its upload, progress.log and job.json
    report.html, report/      the league report; export/ holds its CSV and JSON
    .lock                     held by the one command that writes the league

Every reader and writer takes a name from here. Nothing here touches the disk but the
listing helpers, which only read directory entries.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from arena.rundir.layout import ReportedDir, RunDir

LEAGUE_FILE: Final = "league.toml"
STORE_DIR: Final = "store"
BOTS_DIR: Final = "bots"
NIGHTS_DIR: Final = "nights"
HISTORY_FILE: Final = "history.jsonl"
"""One :class:`~arena.leaguedir.standings.Snapshot` per closed night, appended, never rewritten."""
AUTHORS_FILE: Final = "authors.json"
"""The authors who may submit over the web and which bot names each owns
(:mod:`arena.league.authors`)."""
SUBMISSIONS_DIR: Final = "submissions"
"""The web server's queue of submissions, one folder each (:mod:`arena.web.queue`)."""
# The league's lock (``.lock``, held for a short write of the version registry:
# :mod:`arena.league.lock`) and its report are named as a run's (:class:`ReportedDir`).
NIGHTS_LOCK: Final = ".lock"
"""In ``nights/``: held by the one ``arena league run`` playing a night, the whole night."""
EXPORT_DIR: Final = "export"

VERSION_FILE: Final = "version.json"
ATTEMPT_PREFIX: Final = "try-"
"""``bots/<name>/try-K/``: submission ``K`` of a bot, before it has a number (pending) or for
good (rejected): :mod:`.versions`."""
BUILD_LOG: Final = "build.log"
CHECK_LOG: Final = "check.log"

NIGHT_FILE: Final = "night.json"
"""A night's budget, when it started and when it closed (:mod:`arena.league.night`)."""
PLAN_FILE: Final = "plan.jsonl"
"""The games a night decided to play, written before they are played: a resumed night plays
the planned games missing from its journal before it plans more."""
TALLY_FILE: Final = "tally.json"
"""A closed night's games folded into counts (:mod:`ratings.tally`): what a finished night
cannot change, so the fit and the report never read its journal again."""

NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A bot's name: it is a folder name and half of a version label (``NAME@N``)."""


class LeagueDir(ReportedDir, frozen=True):
    """The files of one league, all under ``root`` (its lock and report as every directory
    the arena writes has them)."""

    @property
    def config(self) -> Path:
        return self.root / LEAGUE_FILE

    @property
    def store(self) -> Path:
        return self.root / STORE_DIR

    @property
    def bots(self) -> Path:
        return self.root / BOTS_DIR

    @property
    def nights(self) -> Path:
        return self.root / NIGHTS_DIR

    @property
    def history(self) -> Path:
        return self.root / HISTORY_FILE

    @property
    def authors(self) -> Path:
        return self.root / AUTHORS_FILE

    @property
    def submissions(self) -> Path:
        return self.root / SUBMISSIONS_DIR

    @property
    def nights_lock(self) -> Path:
        return self.nights / NIGHTS_LOCK

    @property
    def export(self) -> Path:
        return self.root / EXPORT_DIR

    def stored(self, digest: str) -> Path:
        """The store's copy of a submitted folder."""
        return self.store / digest

    def version_dir(self, name: str, number: int) -> Path:
        return self.bots / name / str(number)

    def night(self, name: str) -> RunDir:
        return RunDir(self.nights / name)

    def night_file(self, name: str) -> Path:
        return self.nights / name / NIGHT_FILE

    def plan(self, name: str) -> Path:
        return self.nights / name / PLAN_FILE

    def tally(self, name: str) -> Path:
        return self.nights / name / TALLY_FILE

    def night_names(self) -> list[str]:
        """Every night that has begun, oldest first (names sort by date, then ``-2``...)."""
        if not self.nights.is_dir():
            return []
        names = [p.name for p in self.nights.iterdir() if (p / NIGHT_FILE).is_file()]
        return sorted(names, key=night_sort_key)


def night_sort_key(name: str) -> tuple[str, int]:
    """``2026-12-02`` before ``2026-12-02-2`` before ``2026-12-02-10``."""
    head, _, tail = name.rpartition("-")
    if head and tail.isdigit() and len(tail) < 4:
        return head, int(tail)
    return name, 1


def is_league(path: Path) -> bool:
    """Whether ``path`` is a league directory (it holds ``league.toml``)."""
    return (path / LEAGUE_FILE).is_file()
