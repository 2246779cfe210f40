"""The names of a run directory's files, in one place, and :class:`RunDir`, which gives their
paths (its base :class:`ReportedDir` is a league directory's too).

A run directory is what ``arena run`` writes and everything else reads (``arena ratings``,
``arena report``, ``arena serve``, a cluster worker's scratch folder, the benchmarks); every
reader and writer takes a file's name from here, never from a string of its own. Nothing here
touches the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from referee.gamefiles import stderr_path, transcript_path

JOURNAL_FILE: Final = "games.jsonl"
"""The journal: one game record per JSON line, the source of truth (:mod:`.journal`)."""
PGN_FILE: Final = "games.pgn"
"""The games as PGN, rebuilt from the journal on every start of a run, then appended."""
LOGS_DIR: Final = "logs"
"""The bots' stderr logs."""
TRANSCRIPTS_DIR: Final = "transcripts"
"""Protocol transcripts of ``debug`` bots, one file per game."""
CONFIG_COPY: Final = "config.toml"
"""The copy of the config the run was played with."""
SCHEDULE_FILE: Final = "schedule.json"
"""The games and the fingerprint that guards resume (:mod:`arena.run.prepare`)."""
LOCK_FILE: Final = ".lock"
"""Held by the one ``arena run`` that writes the directory."""
LIVE_DIR: Final = "live"
"""One file per game in progress, for watchers (:mod:`.live_files`)."""
SESSIONS_FILE: Final = "sessions.jsonl"
"""When each session of ``arena run`` started and ended (:mod:`.sessions`)."""
TUNE_LOG: Final = "tune.jsonl"
"""A tune's iterations, its tuned values and its proof (:mod:`.tunelog`); ``arena tune`` only."""
TUNED_BOTS: Final = "tuned-bots.toml"
"""A tune's result as a bots-file entry (``use`` it in a config)."""
TUNE_PAGE: Final = "tune.html"
"""A tune's own report page (in :data:`REPORT_DIR`), linked from nowhere else but the run's
line at the end and ``arena serve``'s file list."""
REPORT_PAGE: Final = "report.html"
"""The HTML report (``arena report``, rebuilt by ``arena run`` as games finish)."""
REPORT_DIR: Final = "report"
"""The report's own files: charts, the game list, viewer files, the summary cache."""
REPORT_INDEX: Final = "index.js"
"""The game list the report's page loads (in :data:`REPORT_DIR`)."""
SUMMARY_CACHE: Final = "journal-summary.msgpack"
"""The journal's summary as the report last read it (in :data:`REPORT_DIR`): a refresh reads
only the games appended since. Plain msgpack, never a pickle: a run directory may come from
anyone, and nothing in it is executed or unpickled (an old ``journal-summary.pickle`` there is
never opened)."""
GAMES_CSV: Final = "games.csv"
"""The report's game table, one row per game."""
STANDINGS_CSV: Final = "standings.csv"
"""The report's standings table."""
WORKERS_CSV: Final = "workers.csv"
"""The report's results by cluster worker (a cluster run only)."""


class ReportedDir(msgspec.Struct, frozen=True):
    """What every directory the arena writes has: its files under ``root``, the lock its one
    writer holds, and its report (a run's, or a league's over its nights)."""

    root: Path

    @property
    def lock(self) -> Path:
        return self.root / LOCK_FILE

    @property
    def report_page(self) -> Path:
        return self.root / REPORT_PAGE

    @property
    def report_dir(self) -> Path:
        return self.root / REPORT_DIR


class RunDir(ReportedDir, frozen=True):
    """The files of one run, all under ``root``."""

    @property
    def journal(self) -> Path:
        return self.root / JOURNAL_FILE

    @property
    def pgn(self) -> Path:
        return self.root / PGN_FILE

    @property
    def logs(self) -> Path:
        return self.root / LOGS_DIR

    @property
    def transcripts(self) -> Path:
        """Protocol transcripts of ``debug`` bots, one file per game."""
        return self.root / TRANSCRIPTS_DIR

    def stderr_log(self, bot: str, game_id: str = "") -> Path:
        """Where bot ``bot``'s stderr is logged: its pooled process's log, or with
        ``game_id`` the log of that game's own process (the referee's names,
        :func:`referee.gamefiles.stderr_path`)."""
        path = stderr_path(self.logs, bot, game_id)
        assert path is not None  # a log folder gives a path
        return path

    def game_transcript(self, game_id: str) -> Path:
        """Where game ``game_id``'s protocol transcript is written."""
        return transcript_path(self.transcripts, game_id)

    def transcript(self, name: str) -> Path:
        """The transcript a game's record names (its ``transcript`` tag, a file name)."""
        return self.transcripts / name

    @property
    def config(self) -> Path:
        return self.root / CONFIG_COPY

    @property
    def schedule(self) -> Path:
        return self.root / SCHEDULE_FILE

    @property
    def live(self) -> Path:
        return self.root / LIVE_DIR

    @property
    def sessions(self) -> Path:
        return self.root / SESSIONS_FILE

    @property
    def tune_log(self) -> Path:
        return self.root / TUNE_LOG

    @property
    def tuned_bots(self) -> Path:
        return self.root / TUNED_BOTS

    @property
    def tune_page(self) -> Path:
        return self.report_dir / TUNE_PAGE

    @property
    def report_index(self) -> Path:
        return self.report_dir / REPORT_INDEX

    @property
    def summary_cache(self) -> Path:
        return self.report_dir / SUMMARY_CACHE

    @property
    def games_csv(self) -> Path:
        return self.root / GAMES_CSV

    @property
    def standings_csv(self) -> Path:
        return self.root / STANDINGS_CSV

    @property
    def workers_csv(self) -> Path:
        return self.root / WORKERS_CSV
