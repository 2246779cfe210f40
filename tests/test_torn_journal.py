"""A journal whose last line is still being written: ``arena ratings``, ``arena report`` and the
watcher behind ``arena serve`` all see the same complete games, and each picks up the last one
once its newline is there (issue 23: ratings used to exit 2, "Input data was truncated")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.web.watch import RunWatcher
from referee.record import GameRecord, MoveRecord, Termination, encode_record

GAMES = [("alpha", "beta", "1-0"), ("beta", "gamma", "1/2-1/2"), ("gamma", "alpha", "0-1"),
         ("alpha", "gamma", "1-0")]


def line(index: int) -> bytes:
    p1, p2, result = GAMES[index]
    record = GameRecord(
        game="dobutsu", p1=p1, p2=p2, result=result, termination=Termination.NORMAL,
        reason="test", winner={"1-0": 0, "0-1": 1}.get(result), id=f"r1-p{index}-g1",
        moves=[MoveRecord(move="b2b3", side=0, elapsed_ms=4.0)],
    )  # fmt: skip
    return encode_record(record) + b"\n"


def rated_games(run: Path, capsys: pytest.CaptureFixture[str]) -> int:
    """Games ``arena ratings RUN_DIR --json`` counts (each game is two players' games)."""
    assert main(["ratings", str(run), "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    return sum(player["played"] for player in fit["players"]) // 2


def reported_games(run: Path, capsys: pytest.CaptureFixture[str]) -> int:
    assert main(["report", str(run), "--viewer-limit", "0"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    return int(first.split("(")[1].split()[0])  # "<path> (3 games, 3 viewers, 0.4 s)"


def test_a_half_written_last_line_is_a_game_not_yet_written_for_every_reader(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    run.mkdir()
    journal = run / "games.jsonl"
    fourth = line(3)
    journal.write_bytes(line(0) + line(1) + line(2) + fourth[:40])
    watcher = RunWatcher(run, rebuild_report=False)
    watcher.refresh()

    assert rated_games(run, capsys) == 3
    assert rated_games(journal, capsys) == 3
    assert reported_games(run, capsys) == 3
    assert watcher.snapshot["done"] == 3 and "error" not in watcher.snapshot
    assert [g["id"] for g in watcher.snapshot["finished"]] == ["r1-p2-g1", "r1-p1-g1",
                                                               "r1-p0-g1"]

    # The runner finishes the line: every reader now has the fourth game.
    with journal.open("ab") as fh:
        fh.write(fourth[40:])
    assert watcher.refresh()
    assert watcher.snapshot["done"] == 4
    assert rated_games(run, capsys) == 4
    assert reported_games(run, capsys) == 4  # read on from the report's summary cache
