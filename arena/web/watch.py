"""Following a run directory from outside: what ``arena serve`` pushes to its live page.

The watcher polls the files ``arena run`` writes (it never talks to the runner, so a running
tournament never waits for it): the journal for finished games (read incrementally, from where
it stopped, by the report's reader: a last line still being written is read once complete),
``live/*.jsonl`` for the games in progress (header + one line per move), and
``report/index.js`` for the games the report's viewer already has. Each change makes a new
snapshot (standings, crosstable, finished games, running boards) with a higher version;
:meth:`RunWatcher.wait_newer` hands it to every page that waits for one.

A game is in progress while its live file exists and its record is not in the journal: the
runner journals a game and then removes its file, and a watcher that reads between the two
must not list the game twice (finished and in progress).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgspec
import trio

from arena.rundir.layout import RunDir
from arena.rundir.live_files import LiveHeader
from arena.rundir.textlines import LastLine, LineReader
from arena.web.snapshots import Snapshots
from referee.record import GameRecord, MoveRecord, Termination

POLL_SECONDS: Final = 0.25
FINISHED_SHOWN: Final = 200
"""The newest finished games listed on the page."""
REPORT_DELAY: Final = 2.0
"""Seconds after the last finished game before the report is rebuilt (batches bursts)."""

_move_decoder = msgspec.json.Decoder(MoveRecord)
_header_decoder = msgspec.json.Decoder(LiveHeader)


@dataclass
class LiveGame:
    """One game in progress, as its live file says so far."""

    header: LiveHeader
    moves: list[MoveRecord] = field(default_factory=list)
    offset: int = 0
    """Bytes of the file read so far (always at a line end)."""
    doc: dict[str, Any] | None = None
    diagram: str = ""
    """The position after the moves read, as the rules draw it in text (the page's first
    paint, readable without JavaScript)."""

    def record(self) -> GameRecord:
        """The game so far. Without the header's opening: the referee writes the opening's
        moves to the file as book moves when the game starts, so the board shows exactly the
        plies the file holds (the page's ply count), not an opening not yet played."""
        h = self.header
        return GameRecord(
            game=h.game, p1=h.p1, p2=h.p2, result="*", termination=Termination.INTERRUPT,
            reason="in progress", id=h.id, round=h.round, start_position=h.start_position,
            moves=list(self.moves), time_control=h.time_control,
            started_at=h.started_at, options=dict(h.options),
        )


def read_live(path: Path, known: LiveGame | None) -> LiveGame | None:
    """The game of a live file, continuing ``known`` from its offset; None if unreadable.

    A last line without its newline is one the runner is still writing: it is read next
    time, once complete (the journal's rule); a line that does not decode is skipped."""
    game = known
    lines = LineReader(path, LastLine.PENDING, start=known.offset if known else 0)
    try:
        for line in lines:
            try:
                if game is None:
                    game = LiveGame(_header_decoder.decode(line.data))
                else:
                    game.moves.append(_move_decoder.decode(line.data))
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
            if game is not None:
                game.offset = lines.end
    except OSError:
        return game  # gone (the game was journaled) or unreadable: what was read stands
    if game is not None:
        game.offset = lines.end  # past blank lines too
    return game


def _num(x: float, digits: int = 1) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, digits)


class RunWatcher(Snapshots):
    """Snapshots of one run directory, refreshed by :meth:`run` (a trio task)."""

    def __init__(self, run_dir: Path, *, rebuild_report: bool = True) -> None:
        from reports.journal_summary import JournalSummary

        super().__init__()
        self.run_dir = run_dir
        self.files = RunDir(run_dir)
        self.rebuild_report = rebuild_report
        self._journal = JournalSummary(path=self.files.journal)
        self._journal_size = -1
        self._live: dict[str, LiveGame] = {}
        self._finished_ids: set[str] = set()
        """Ids of the games in the journal: their live files are leftovers, not games."""
        self._report_keys: set[str] = set()
        self._report_mtime = 0.0
        self._report_page = False
        self._tables: dict[str, Any] = {}
        self._report_due: float | None = None
        self._report_running = False
        self.report_error = ""

    # ----- reading ---------------------------------------------------------------------
    def _poll_journal(self) -> bool:
        from reports.journal_summary import JournalError, update_summary

        path = self._journal.path
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if size == self._journal_size:
            return False
        self._journal_size = size
        if size == 0:
            return False
        try:
            added = update_summary(self._journal)
        except JournalError as exc:
            self._tables["error"] = str(exc)
            return True
        if added:
            self._finished_ids.update(g.id for g in self._journal.games[-added:])
        if added or not self._tables:
            self._tables = self._compute_tables()
            self._report_due = time.monotonic() + REPORT_DELAY
            return True
        return False

    def _compute_tables(self) -> dict[str, Any]:
        from reports import rating_tables, tables
        from reports.rating_tables import rating_text

        journal = self._journal
        games = tables.games_frame(journal)
        bots = journal.bots
        ranking = rating_tables.rank(games, bots, rating_tables.fit_journal(journal))
        standings, order = ranking.standings, ranking.order
        points, count = tables.crosstable(games, order)
        cross = tables.crosstable_display(points, count)
        rows = []
        for r in standings.itertuples(index=False):
            rows.append({
                "rank": int(r.rank), "bot": str(r.bot),
                "elo": rating_text(float(r.elo), float(r.elo_error), str(r.bound),
                                   int(r.group), bool(r.order_only)),
                "games": int(r.games), "wins": int(r.wins), "draws": int(r.draws),
                "losses": int(r.losses), "score_pct": _num(float(r.score_pct)),
                "note": str(r.note),
            })
        return {
            "standings": rows,
            "crosstable": {"bots": order,
                           "cells": [[str(cross.at[a, b]) for b in order] for a in order]},
            "finished": [
                {"key": g.key, "id": g.id, "p1": g.p1, "p2": g.p2, "result": g.result,
                 "termination": g.termination, "plies": g.plies, "reason": g.reason}
                for g in reversed(journal.games[-FINISHED_SHOWN:])
            ],
            "done": len(journal.games),
        }

    def _poll_live(self) -> bool:
        from reports.replay import replay, start_game

        folder = self.files.live
        try:
            paths = {p.name: p for p in folder.glob("*.jsonl")}
        except OSError:
            paths = {}
        changed = False
        for name in list(self._live):
            if name not in paths:
                del self._live[name]
                changed = True
        for name, path in paths.items():
            known = self._live.get(name)
            game = read_live(path, known)
            if game is None:
                continue
            if known is None or game.doc is None or len(game.moves) != len(game.doc["moves"]):
                try:
                    record = game.record()
                    played = replay(record)
                    game.doc = played.doc
                    game.diagram = start_game(msgspec.structs.replace(
                        record, start_position=played.final_position)).diagram()
                except Exception as exc:  # a bad live file must not stop the page
                    game.doc = {"error": f"{type(exc).__name__}: {exc}", "moves": []}
                    game.diagram = ""
                self._live[name] = game
                changed = True
        return changed

    def _poll_report(self) -> bool:
        """The games the report's viewer can open. A build writes ``report/index.js`` before
        ``report.html``, so the first build has a game list but no page for a moment (seconds
        on a loaded machine): until the page exists, no game is offered, or a "view" link would
        lead to a 404."""
        index = self.files.report_index
        try:
            mtime = index.stat().st_mtime
        except OSError:
            return False
        page = self.files.report_page.is_file()
        if (mtime, page) == (self._report_mtime, self._report_page):
            return False
        self._report_mtime, self._report_page = mtime, page
        try:
            text = index.read_text(encoding="utf-8").strip()
            data = json.loads(text[len("arenaIndex("):-2])
        except (OSError, ValueError):
            return False
        self._report_keys = {row[0] for row in data["rows"] if row[9]} if page else set()
        return True

    def pgn(self, key: str) -> str | None:
        """The PGN of the finished game ``key`` (the page's link before the report's viewer
        has it), read back from the journal; None when there is no such game."""
        from reports.journal_summary import read_record
        from reports.pgn import game_to_pgn

        game = next((g for g in reversed(self._journal.games) if g.key == key), None)
        if game is None:
            return None
        return game_to_pgn(read_record(self._journal, game), event=self.run_dir.name)

    async def first_snapshot(self, timeout: float) -> dict[str, Any]:
        """The first snapshot of the run once made (the watcher's first poll), or whatever
        there is after ``timeout`` seconds: the page's first paint waits for it."""
        await self.wait_newer(0, timeout)
        return self.snapshot

    def _schedule_total(self) -> int | None:
        try:
            doc = json.loads(self.files.schedule.read_bytes())
            return int(doc["total"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _make_snapshot(self) -> None:
        self.version += 1
        running = []
        for game in sorted(self._live.values(), key=lambda g: g.header.id):
            h = game.header
            if h.id in self._finished_ids:
                continue  # journaled, its live file not yet removed: finished, not running
            last = game.moves[-1] if game.moves else None
            clocks: list[float | None] = [None, None]
            for move in game.moves:
                if move.clock_ms is not None and move.side in (0, 1):
                    clocks[move.side] = move.clock_ms
            running.append({
                "id": h.id, "game": h.game, "p1": h.p1, "p2": h.p2, "plies": len(game.moves),
                "last": last.move if last else "", "doc": game.doc, "clocks": clocks,
                "time_control": h.time_control, "diagram": game.diagram,
            })
        tables = dict(self._tables)
        for g in tables.get("finished", []):
            g["viewer"] = g["key"] in self._report_keys
        self._publish({
            "version": self.version, "run": self.run_dir.name, "total": self._schedule_total(),
            "running": running, "report": self.files.report_page.is_file(),
            "report_error": self.report_error, **tables,
        })

    def _poll(self) -> bool:
        """Read whatever changed (file reads, tables, replays: run in a worker thread, so a
        long journal never holds up the pages being served)."""
        changed = self._poll_journal()
        changed = self._poll_live() or changed
        return self._poll_report() or changed

    def refresh(self) -> bool:
        """Read whatever changed; True (and a new snapshot) if anything did."""
        changed = self._poll()
        if changed or self.version == 0:
            self._make_snapshot()
        return changed

    # ----- the task --------------------------------------------------------------------
    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            while True:
                if await trio.to_thread.run_sync(self._poll) or self.version == 0:
                    self._make_snapshot()
                due = self._report_due
                if (self.rebuild_report and due is not None and time.monotonic() >= due
                        and not self._report_running):
                    self._report_due = None
                    self._report_running = True
                    nursery.start_soon(self._build_report)
                await trio.sleep(POLL_SECONDS)

    async def _build_report(self) -> None:
        from reports.html import build_report

        try:
            await trio.to_thread.run_sync(build_report, self.run_dir)
            self.report_error = ""
        except Exception as exc:  # the page goes on without a fresh report
            self.report_error = f"report not rebuilt: {type(exc).__name__}: {exc}"
        finally:
            self._report_running = False

