"""`arena perft` and `arena show` run as real processes, on draughts."""

from __future__ import annotations

import subprocess
import sys

import pytest


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )


def test_perft_last_line() -> None:
    run = arena("perft", "draughts", "5")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "perft 5: 27117"
    assert "nodes/s" in lines[-2]


def test_perft_divide_with_position_and_moves() -> None:
    run = arena("perft", "draughts", "2", "--divide")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[:9] == [f"{m}: 9" for m in (
        "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30")]
    assert lines[-1] == "perft 2: 81"
    run = arena("perft", "draughts", "3", "--position", "W:W6,7,8,9,10:B41,42,43,44,45")
    assert run.stdout.splitlines()[-1] == "perft 3: 795"
    run = arena("perft", "draughts", "1", "--moves", "32-28 19-23")
    assert run.stdout.splitlines()[-1] == "perft 1: 1"  # 28x19 is forced


def test_show_position() -> None:
    run = arena("show", "draughts", "--moves", "32-28 19-23")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "position: W:W28,31,33-50:B1-18,20,23" in out
    assert "to move: white (p1)" in out
    assert "legal moves (1): 28x19" in out
    assert out.splitlines()[5].split()[:5] == [".", ".", "w", ".", "."]  # squares 26-30
    assert "game over" not in out


def test_show_finished_game() -> None:
    run = arena("show", "draughts", "--position", "W:W46:B37,41")
    assert run.returncode == 0, run.stderr
    assert "game over: 0-1 (no-moves) white has no legal move" in run.stdout
    assert "legal moves (0):" in run.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "chess"), "unknown game 'chess'; known games: draughts"),
        (("perft", "draughts", "2", "--position", "W:W51:B1"), "square in '51' is outside 1-50"),
        (("show", "draughts", "--moves", "32-28 36-31"),
         "--moves, move 2 ('36-31'): illegal move '36-31' in position 'B:W28,31,33-50:B1-20'"),
        (("show", "draughts", "--moves", "32:28"), "bad draughts move '32:28'"),
        (("perft", "draughts", "-1"), "perft depth must be 0 or more"),
    ],
)
def test_bad_input_is_one_line_error(args: tuple[str, ...], message: str) -> None:
    run = arena(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: ")
    assert message in lines[0]
