"""Protocol transcripts: a ``debug`` bot's every line, both ways, with millisecond times, one
file per game (as cutechess ``-debug``), linked from the report's game viewer: the referee's
part with scripted bots, ``arena run --debug`` with real ones."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from scripted import hub_bot, play_scripted
from scripted import random_bot as scripted_random
from trio.testing import MockClock

from referee.record import decode_record

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
LINE = re.compile(r"^ *(-?\d+\.\d{3}) (\S+) ([<>]) (.*)$")
"""ms since the game started (negative: the handshake before it), bot, direction, line."""


def lines_of(path: Path) -> list[tuple[float, str, str, str]]:
    out = []
    for raw in path.read_text().splitlines():
        m = LINE.match(raw)
        assert m, f"not a transcript line: {raw!r}"
        out.append((float(m[1]), m[2], m[3], m[4]))
    return out


async def test_a_debug_bot_gets_a_transcript_of_its_game(tmp_path: Path,
                                                         autojump_clock: MockClock) -> None:
    """The referee's transcript of a game between scripted bots (a native one and a Hub one,
    tests/scripted.py); test_arena_run_debug_... writes them from real processes."""
    native = scripted_random("rnd", 1, debug=True)
    hub = hub_bot("hub", debug=True)
    quiet = scripted_random("quiet", 2)
    with trio.fail_after(120):
        record = await play_scripted("draughts", native, hub, tc="5+0.05", game_id="g1",
                                     transcript_dir=tmp_path / "transcripts")
        other = await play_scripted("draughts", quiet, quiet, tc="5+0.05", game_id="g2",
                                    transcript_dir=tmp_path / "transcripts")
    path = tmp_path / "transcripts" / "g1.log"
    assert record.tags["transcript"] == "g1.log"
    entries = lines_of(path)
    said = [(who, arrow, text) for _, who, arrow, text in entries]
    # Both bots, from the handshake on, in order, with times that never go back.
    assert ("rnd", ">", "ugi") in said and ("rnd", "<", "ugiok") in said
    assert ("hub", ">", "hub") in said and ("hub", "<", "wait") in said
    assert ("hub", ">", "go think") in said
    assert any(who == "hub" and text.startswith("done move=") for who, _, text in said)
    assert any(who == "rnd" and text.startswith("bestmove ") for who, _, text in said)
    assert said.index(("hub", ">", "init")) < said.index(("hub", ">", "new-game"))
    sent_go = sum(1 for who, arrow, text in said if who == "rnd" and text.startswith("go "))
    assert sent_go == sum(1 for m in record.moves if m.side == 0)
    for name in ("rnd", "hub"):
        times = [t for t, who, *_ in entries if who == name]
        assert times == sorted(times)
    # A game without a debug bot writes nothing.
    assert "transcript" not in other.tags and not (tmp_path / "transcripts" / "g2.log").exists()


@pytest.mark.slow
def test_arena_run_debug_writes_one_transcript_per_game_and_the_report_links_it(
        tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(f'''
game = "dobutsu"
format = "round-robin"
games_per_pairing = 2
tc = "2+0.02"
concurrency = 2
seed = 3

[adjudication]
max_plies = 40

[[bots]]
name = "a"
cmd = ["{{python}}", "{RANDOM_BOT}", "--seed", "1"]

[[bots]]
name = "b"
cmd = ["{{python}}", "{RANDOM_BOT}", "--seed", "2"]
''')
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(config), "--output",
                           str(out), "--debug"], capture_output=True, text=True, timeout=240,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    records = [decode_record(line) for line in (out / "games.jsonl").read_bytes().splitlines()]
    assert len(records) == 2
    for record in records:
        path = out / "transcripts" / record.tags["transcript"]
        said = [text for _, _, _, text in lines_of(path)]
        assert "uginewgame" in said and said.count("uginewgame") == 2  # both bots, one game
        assert any(text.startswith("gameover ") for text in said)
    index = (out / "report" / "index.js").read_text()
    for record in records:
        assert f'"transcripts/{record.tags["transcript"]}"' in index
    assert 'id="v-transcript"' in (out / "report.html").read_text()
