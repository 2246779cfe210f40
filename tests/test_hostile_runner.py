"""A tournament with hostile bots through ``arena run``: every game is journaled with the
right loser and termination, the run completes, and no bot process outlives it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from proc_scan import tagged

from referee.record import Termination, decode_record

pytestmark = pytest.mark.slow  # a hostile tournament through `arena run`

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).resolve().parent / "hostile"
FIRST_BOT = Path(__file__).resolve().parent / "bots" / "runner_first_bot.py"

MISBEHAVIOUR = {
    # bot script -> how its games end once it misbehaves (None: it plays correctly)
    "crash_midgame": Termination.CRASH,
    "hang_on_go": Termination.TIME_FORFEIT,
    "flood_no_newline": Termination.PROTOCOL_ERROR,
    "illegal_move": Termination.ILLEGAL_MOVE,
    "fork_setsid": None,
    "first": None,
}


def test_hostile_tournament_completes_with_the_right_forfeits(tmp_path: Path) -> None:
    tag = f"hostile-run-{uuid.uuid4().hex[:10]}"
    # A roomy clock: on a loaded machine a first-legal answer can take a second. The hanging
    # bot's own is short (it is waited out) but holds its two good moves.
    lines = ['game = "jungle"', 'tc = "30+0"', "concurrency = 2", "games_per_pairing = 2",
             "[adjudication]", "max_plies = 12", ""]
    for name in MISBEHAVIOUR:
        script = FIRST_BOT if name == "first" else HOSTILE / f"{name}.py"
        args = [] if name == "first" else [tag]
        argv = ", ".join(f'"{a}"' for a in ["{python}", str(script), *args])
        lines += ["[[bots]]", f'name = "{name}"', f"cmd = [{argv}]"]
        lines += ['tc = "2+0"', ""] if name == "hang_on_go" else [""]
    config = tmp_path / "hostile.toml"
    config.write_text("\n".join(lines))
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out),
         "--no-report", "--plain"],
        capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    records = [decode_record(line) for line in (out / "games.jsonl").read_bytes().splitlines()]
    scheduled = [g["id"] for g in json.loads((out / "schedule.json").read_text())["games"]]
    assert Counter(r.id for r in records) == Counter(scheduled) and len(records) == 30
    for record in records:
        # The first mover misbehaves first (its third move comes before the other's).
        culprits = [side for side, name in enumerate((record.p1, record.p2))
                    if MISBEHAVIOUR[name] is not None]
        if not culprits:
            assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION)
            continue
        side = culprits[0]
        name = (record.p1, record.p2)[side]
        assert (record.termination, record.winner) == (MISBEHAVIOUR[name], 1 - side), \
            f"{record.id} {record.p1}-{record.p2}: {record.reason}"
        assert record.reason.startswith(f"p{side + 1} ({name})")
    deadline = time.monotonic() + 30
    while tagged(tag):
        assert time.monotonic() < deadline, f"left behind: {tagged(tag)}"
        time.sleep(0.1)
