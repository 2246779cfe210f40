"""The progress of a run that ends at a deadline (a league night): games played, the time left
and how many more games fit by the lengths of the games before, on a clock the test moves;
never ``[1/0] ... eta 0m00s``."""

from __future__ import annotations

import io
import time

from arena.run.progress import Deadline, Progress
from referee.record import GameRecord, Termination


def record(number: int) -> GameRecord:
    return GameRecord(game="dobutsu", p1="a@1", p2="b@1", result="1-0",
                      termination=Termination.NORMAL, reason="", winner=0, id=f"k{number}")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_deadline_run_shows_time_left_and_what_fits() -> None:
    clock = Clock(1_800_000_000.0)
    end = clock.now + 3600
    lengths: list[float] = []
    out = io.StringIO()
    progress = Progress(title="night n1", names=["a@1", "b@1"], total=0, out=out, live=False,
                        deadline=Deadline(end, clock, lambda: lengths, concurrency=2))
    with progress:
        progress.finished(record(1))
        lengths.extend([40.0, 50.0, 60.0])  # the median game: 50 s
        clock.now += 600  # ten minutes later: 50 left, 60 games of 50 s for each of two
        progress.finished(record(2))
        lengths.append(1000.0)  # one long game moves the median to 55 s
        clock.now = end - 130
        progress.finished(record(3))
        clock.now = end + 5  # past the deadline: nothing left, nothing fits
        progress.finished(record(4))
    lines = out.getvalue().splitlines()
    ends = time.strftime("%H:%M", time.localtime(end))
    assert lines[0].startswith("[1 played] k1 a@1 - b@1 1-0")
    assert lines[0].endswith(f"1h00m00s left to {ends}, no game lengths yet")
    assert lines[1].startswith("[2 played] k2")
    assert lines[1].endswith(
        f"50m00s left to {ends}, about 120 more games fit (median game 50.0 s)")
    assert lines[2].endswith(f"2m10s left to {ends}, about 4 more games fit (median game 55.0 s)")
    assert lines[3].endswith(f"0m00s left to {ends}, about 0 more games fit (median game 55.0 s)")
    assert not any("/0]" in line or "eta" in line for line in lines), lines


def test_a_resumed_deadline_run_and_its_live_panel_count_games_played() -> None:
    clock = Clock(1_800_000_000.0)
    out = io.StringIO()
    progress = Progress(title="night n1", names=["a@1", "b@1"], total=0, out=out, live=False,
                        done=[record(1), record(2)],
                        deadline=Deadline(clock.now + 90, clock, lambda: [30.0]))
    with progress:
        pass
    assert out.getvalue().splitlines()[0] == "resuming: 2 games already played"
    head = progress._render().renderables[0]
    text = str(head)
    assert text.startswith("night n1: 2 games played, ") and "/0" not in text
    assert "1m30s left to" in text and "about 3 more games fit (median game 30.0 s)" in text


def test_a_run_without_deadline_still_counts_towards_its_total() -> None:
    out = io.StringIO()
    progress = Progress(title="t", names=["a@1", "b@1"], total=10, out=out, live=False)
    with progress:
        progress.finished(record(1))
    assert out.getvalue().startswith("[1/10] k1 ") and "eta" in out.getvalue()
