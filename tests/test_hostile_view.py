"""A bot sees its own folder only: a ``{python}`` bot without ``cwd``, run by ``arena run`` in
the default sandbox, cannot open its opponent's script, another run's journal or a config
beside its config (all of which it could read before: its folder defaulted to the config's,
and ``{python}`` bound the whole project), and still plays its games.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_hostile_bots import CAP, GAME, HOSTILE

ROOT = Path(__file__).resolve().parent.parent
OPPONENT = ROOT / "sample_bots" / "random_bot.py"

pytestmark = [pytest.mark.slow, pytest.mark.needs("bubblewrap")]


def test_a_python_bot_without_cwd_reads_nothing_of_the_others(tmp_path: Path) -> None:
    old_run = tmp_path / "runs" / "earlier"
    old_run.mkdir(parents=True)
    (old_run / "games.jsonl").write_text('{"id": "r1-p01-g1"}\n')
    beside = tmp_path / "other.toml"
    beside.write_text('game = "jungle"\n')
    config = tmp_path / "run.toml"
    targets = [OPPONENT, old_run / "games.jsonl", beside, config]
    peek = ["{python}", str(HOSTILE / "peek.py"), "peek-tag", "2"]
    config.write_text("\n".join([
        f'game = "{GAME}"', 'tc = "10+0"', "games_per_pairing = 2", "[adjudication]",
        f"max_plies = {CAP.max_plies}",
        "[[bots]]", 'name = "peek"', "cmd = [" + ", ".join(f'"{a}"' for a in peek) + "]",
        f'env = {{ PEEK = "{":".join(map(str, targets))}" }}',
        "[[bots]]", 'name = "random"', f'cmd = ["{{python}}", "{OPPONENT}"]', ""]))
    out = tmp_path / "runs" / "now"
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(config), "--output",
                           str(out), "--no-report", "--plain"], capture_output=True, text=True,
                          timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    assert all(r["termination"] in ("normal", "adjudication") for r in records), records
    logs = "\n".join(p.read_text() for p in (out / "logs" / "peek").rglob("*.stderr.log"))
    for target in targets:
        said = [line for line in logs.splitlines() if line.startswith(f"peek {target} ")]
        assert said, logs
        assert all(line.endswith(("refused FileNotFoundError", "refused PermissionError"))
                   for line in said), said
