"""A run's journal is read once, and its games fitted once, for everything that shows them:
building a report, and closing a league night (its standings, its report, the league's fit
and report).

Counted with the real code: every pass over a journal goes through the one line reader
(:class:`arena.rundir.textlines.LineReader`), and every fit through ``fit_ratings``; a fit
"of the games" is one whose counts hold every finished game (the report's progression refits
the first k games at its checkpoints, by design, and those are not counted). The viewer files
read the few records they render by their offsets, not by a pass over the journal.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import ratings
import reports.rating_tables
from arena.cli import main
from arena.league.night import NightSettings, run_night
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.standings import read_summary
from arena.rundir.layout import JOURNAL_FILE
from arena.rundir.textlines import LineReader
from bench.synthetic import BotProfile, round_robin, write_journal
from ratings.counts import Counts
from reports.html import build

ROOT = Path(__file__).resolve().parent.parent
RANDOM = ROOT / "sample_bots" / "random_bot.py"


class Tally:
    """Journal passes and fits, by what they covered."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.passes: Counter[Path] = Counter()
        self.fits: list[tuple[str, float]] = []
        self.on = True
        real_iter = LineReader.__iter__

        def counting_iter(reader: LineReader) -> Iterator[Any]:
            if self.on and reader.path.name == JOURNAL_FILE:
                self.passes[reader.path.resolve()] += 1
            return real_iter(reader)

        monkeypatch.setattr(LineReader, "__iter__", counting_iter)
        for module, where in ((ratings, "league"), (reports.rating_tables, "run")):
            monkeypatch.setattr(module, "fit_ratings", self._counting(
                module.fit_ratings, where))

    def _counting(self, real: Callable[..., Any], where: str) -> Callable[..., Any]:
        def fit(counts: Counts, *args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.fits.append((where, float(counts.total())))
            return real(counts, *args, **kwargs)
        return fit

    def fits_of(self, where: str, games: int) -> int:
        return sum(1 for w, total in self.fits if w == where and total == games)


def test_a_report_reads_the_journal_once_and_fits_its_games_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    records = round_robin("dobutsu", (BotProfile("a"), BotProfile("b"), BotProfile("c")),
                          games_per_pairing=4, seed=3, max_plies=60)
    write_journal(run, records)
    finished = sum(1 for r in records if r.result != "*")
    tally = Tally(monkeypatch)
    built = build(run)
    assert tally.passes == {(run / JOURNAL_FILE).resolve(): 1}
    assert tally.fits_of("run", finished) == 1, tally.fits
    assert "elo" in built.charts  # the whole report was built from that one read


@pytest.mark.slow  # a real night of real games
def test_closing_a_night_reads_its_journal_once_and_fits_each_tally_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "league"
    assert main(["league", "init", str(root), "--game", "dobutsu", "--tc", "10+0.1",
                 "--max-plies", "40", "--placement-opponents", "1"]) == 0
    for name, seed in (("ada", 1), ("bob", 2)):
        assert main(["league", "submit", str(root), name, "--", sys.executable, str(RANDOM),
                     "--seed", str(seed)]) == 0
    tally = Tally(monkeypatch)
    closing: dict[str, Any] = {}
    import arena.run.driver as driver

    real_close = driver.close_session

    def close_session(*args: Any, **kwargs: Any) -> Any:
        tally.passes.clear()
        tally.fits.clear()
        tally.on = True
        try:
            return real_close(*args, **kwargs)
        finally:
            closing.update(passes=dict(tally.passes), fits=list(tally.fits))
            tally.on = False

    monkeypatch.setattr(driver, "close_session", close_session)
    said: list[str] = []
    outcome = run_night(NightSettings(league=root, games=4, plain=True, say=said.append,
                                      warn=said.append, error=said.append))
    assert outcome.status == 0 and outcome.closed, said
    league = LeagueDir(root)
    night = read_summary(league, outcome.night)
    assert night is not None and night.games == outcome.journaled == 4
    journal = league.night(outcome.night).journal.resolve()
    assert closing["passes"] == {journal: 1}, closing
    tally.fits = closing["fits"]
    assert tally.fits_of("run", night.games) == 1, closing  # the night's standings and report
    assert tally.fits_of("league", night.games) == 1, closing  # the snapshot and league report
    assert (league.report_page.is_file() and league.night(outcome.night).report_page.is_file())
