"""Crash safety of ``arena run``: SIGKILLed ten times at seeded random moments in one
tournament (once with a torn journal line left behind), then resumed to the end. The moments
are events, not times: the schedule just ready, a game just journaled, a game in progress
(its live file there, its bots running), chosen by a seeded draw for each kill. Every
scheduled game is in the journal exactly once, no corrupt line is accepted, and no bot
outlives a SIGKILLed runner: not the polite ones (stdin EOF), not one hanging in a search,
not one that ignores quit and SIGTERM (PR_SET_PDEATHSIG)."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from proc_scan import tagged

from referee.record import Termination, decode_record

pytestmark = pytest.mark.slow  # ten SIGKILLs of `arena run`, then resume

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).resolve().parent / "hostile"
FIRST_BOT = Path(__file__).resolve().parent / "bots" / "runner_first_bot.py"
KILLS = 10
TORN_AFTER_KILL = 5
TORN = b'{"game":"jungle","p1":"torn-wri'


def wait_none_left(tag: str, wait: float = 15.0) -> None:
    deadline = time.monotonic() + wait
    while left := tagged(tag):
        assert time.monotonic() < deadline, f"bots outlived the SIGKILLed runner: {left}"
        time.sleep(0.05)


MOMENTS = ("ready", "journaled", "playing")
"""When a kill comes: the run's first line said (the schedule ready, the first bots starting),
a game journaled (its ``[k/24]`` line), a game in progress (a live file in ``live/``)."""


def wait_moment(proc: subprocess.Popen[str], moment: str, live: Path) -> None:
    """Wait (on the run's output or its live files, never a set time) for ``moment``."""
    assert proc.stdout is not None
    if moment == "journaled":
        while not (line := proc.stdout.readline()).startswith("["):  # [k/24] a game
            assert line, proc.communicate()[1]
    elif moment == "playing":
        deadline = time.monotonic() + 60
        while not (live.is_dir() and any(live.iterdir())):
            assert time.monotonic() < deadline and proc.poll() is None, "no game started"
            time.sleep(0.02)


def write_config(tmp: Path, tag: str) -> Path:
    lines = ['game = "jungle"', 'tc = "0.5+0"', "concurrency = 2", "games_per_pairing = 4",
             "[adjudication]", "max_plies = 16", ""]
    bots = {
        "first0": [str(FIRST_BOT), "--delay", "0.01", "--last"],
        "first1": [str(FIRST_BOT), "--delay", "0.01"],
        "hanger": [str(HOSTILE / "hang_on_go.py"), "4"],
        "stubborn": [str(HOSTILE / "ignore_sigterm.py")],
    }
    for name, args in bots.items():
        # The tag rides along as an ignored last argument (first_bot takes no positional).
        args = [*args[:1], tag, *args[1:]] if "hostile" in args[0] else args
        argv = ", ".join(f'"{a}"' for a in ["{python}", *args])
        # Unsandboxed: a kill may come as the first games start, and a bubblewrap start per
        # bot on a loaded machine would leave few finished games before the kills.
        lines += ["[[bots]]", f'name = "{name}"', f"cmd = [{argv}]", 'sandbox = "none"']
        if "hostile" not in args[0]:
            lines.append(f'env = {{ ARENA_TEST_TAG = "{tag}" }}')
        if name != "hanger":  # only the hanger's time is waited out; the others' is roomy
            lines.append('tc = "30+0"')
        lines.append("")
    config = tmp / "crash.toml"
    config.write_text("\n".join(lines))
    return config


def test_ten_sigkills_then_resume_every_game_exactly_once(tmp_path: Path) -> None:
    rng = random.Random(8_2026)
    tag = f"crash-resume-{uuid.uuid4().hex[:10]}"
    config = write_config(tmp_path, tag)
    out = tmp_path / "out"
    journal = out / "games.jsonl"
    argv = [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out),
            "--no-report", "--plain"]
    counts: list[int] = []
    for kill in range(1, KILLS + 1):
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        header = proc.stdout.readline()  # printed once the schedule is ready
        assert "to play" in header, proc.communicate()[1]
        # One run sees a game journaled, however loaded the machine; the others a seeded draw.
        wait_moment(proc, "journaled" if kill == 2 else rng.choice(MOMENTS), out / "live")
        assert proc.poll() is None, "the run ended before its kill: make it longer"
        proc.send_signal(signal.SIGKILL)
        _, stderr = proc.communicate(timeout=30)
        if kill == TORN_AFTER_KILL + 1:
            assert "torn last line" in stderr, stderr  # found and truncated on resume
        wait_none_left(tag)
        counts.append(len(journal.read_bytes().splitlines()) if journal.exists() else 0)
        if kill == TORN_AFTER_KILL:  # as if killed in the middle of writing a record
            with open(journal, "ab") as f:
                f.write(TORN)
    scheduled = [g["id"] for g in json.loads((out / "schedule.json").read_text())["games"]]
    assert counts[-1] < len(scheduled), counts  # the kills landed before the end
    assert counts == sorted(counts) and counts[-1] > 0, counts
    final = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    wait_none_left(tag)
    data = journal.read_bytes()
    assert data.endswith(b"\n") and TORN not in data and b"torn-wri" not in data
    records = [decode_record(line) for line in data.splitlines()]  # every line decodes
    assert Counter(r.id for r in records) == Counter(scheduled)
    assert len(records) == len(scheduled) == 24
    assert all(r.termination != Termination.INTERRUPT and r.result != "*" for r in records)
    for record in records:
        if "hanger" in (record.p1, record.p2) and record.termination == Termination.TIME_FORFEIT:
            assert (record.p1, record.p2)[1 - record.winner] == "hanger"  # type: ignore[operator]
