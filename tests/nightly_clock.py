"""``arena league run --nightly`` as a real process on a clock that moves with the games.

Run as ``python tests/nightly_clock.py LEAGUE WINDOW START STEP NIGHTS``: the real scheduler
(:func:`arena.league.nightly.run_nightly`) with its clock and sleep handed in, as a test of
hours-long nights needs. The clock reads ``START`` plus ``STEP`` seconds for every game in the
league's journals plus every second slept; a sleep adds its seconds to ``LEAGUE/clock.json``
(written atomically) and returns at once. Killed and started again, the process reads the
same time from the same files: the journals and what it slept before.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from arena.atomicfile import write_atomic
from arena.league.night import NightSettings
from arena.league.nightly import NightlySettings, run_nightly
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.nightwindow import parse_window


class JournalsClock:
    def __init__(self, league: LeagueDir, start: float, step: float) -> None:
        self.league, self.start, self.step = league, start, step
        self.file = league.root / "clock.json"
        self.slept = json.loads(self.file.read_text())["slept"] if self.file.exists() else 0.0

    def games(self) -> int:
        return sum(path.read_bytes().count(b"\n")
                   for path in self.league.nights.glob("*/games.jsonl"))

    def __call__(self) -> float:
        return self.start + self.slept + self.step * self.games()

    def sleep(self, seconds: float) -> None:
        self.slept += seconds
        write_atomic(self.file, json.dumps({"slept": self.slept}).encode())


def main(argv: list[str]) -> int:
    root, window, start, step, nights = argv
    league = LeagueDir(Path(root))
    clock = JournalsClock(league, float(start), float(step))
    return run_nightly(NightlySettings(
        night=NightSettings(league=league.root, plain=True, report=False, clock=clock),
        window=parse_window(window), sleep=clock.sleep, nights=int(nights)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
