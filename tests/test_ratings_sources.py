"""Reading results: run directories, games.jsonl journals, PGN tag sections, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import UserError
from arena.rundir.results import read_results
from referee.record import GameRecord, Termination, encode_record


def record(p1: str, p2: str, result: str, **tags: str) -> bytes:
    winner = {"1-0": 0, "0-1": 1}.get(result)
    rec = GameRecord(
        game="jungle",
        p1=p1,
        p2=p2,
        result=result,
        termination=Termination.INTERRUPT if result == "*" else Termination.NORMAL,
        reason="test",
        winner=winner,
        tags=dict(tags),
    )
    return encode_record(rec)


def write_run(directory: Path, lines: list[bytes]) -> Path:
    directory.mkdir()
    (directory / "games.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return directory


def test_run_directory_and_journal(tmp_path: Path) -> None:
    run = write_run(
        tmp_path / "run",
        [
            record("alpha", "beta", "1-0", pair="o1"),
            record("beta", "alpha", "1/2-1/2", pair="o1"),
            record("alpha", "beta", "*"),
            b"",
            record("beta", "alpha", "0-1"),
        ],
    )
    games = read_results(run)
    assert [(g.first, g.second, g.score, g.pair) for g in games] == [
        ("alpha", "beta", 1.0, "o1"),
        ("beta", "alpha", 0.5, "o1"),
        ("beta", "alpha", 0.0, None),
    ]
    assert games[2].where.endswith("games.jsonl:5")
    assert read_results(run / "games.jsonl") == games


def test_bad_journal_line_names_file_and_line(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [record("a", "b", "1-0"), b'{"game": "jungle", "p1": 3}'])
    with pytest.raises(UserError, match=r"games\.jsonl:2: not a game record"):
        read_results(run)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(record("a", "b", "2-0") + b"\n")
    with pytest.raises(UserError, match=r"bad\.jsonl:1: field 'result': unknown result '2-0'"):
        read_results(bad)


def test_missing_paths(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        read_results(tmp_path / "nothing.pgn")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="not a run directory"):
        read_results(tmp_path / "empty")


PGN = """\
[Event "x"]
[White "Alpha \\"A\\" One"]
[Black "beta"]
[Result "1-0"]

1. e4 {a comment with [brackets] inside
[White "not a tag"]} e5 1-0

[White "beta"]
[Black "Alpha \\"A\\" One"]
[Result "*"]
*
[White "beta"]
[Black "gamma"]
[Result "1/2-1/2"]
[Round "3"]
1/2-1/2
"""


def test_pgn_tags_only(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    games = read_results(path)
    assert [(g.first, g.second, g.score) for g in games] == [
        ('Alpha "A" One', "beta", 1.0),
        ("beta", "gamma", 0.5),
    ]
    assert games[1].where == f"{path}:13"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[White "a"]\n[Result "1-0"]\n\n1-0\n', r":1: game without tag Black"),
        (
            '[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n'
            '[White "a"]\n[Black "b"]\n[Result "2-0"]\n',
            r":5: tag Result: unknown result '2-0'",
        ),
        ('[White "a"]\n[Black "b"\n', r":2: malformed tag line"),
        ('[White "a"]\n[Black "a"]\n[Result "1-0"]\n', r":1: player 'a' plays against itself"),
    ],
)
def test_bad_pgn_names_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text(text)
    with pytest.raises(UserError, match=r"bad\.pgn" + message):
        read_results(path)


def test_cli_on_a_run_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = []
    for _ in range(5):
        lines += [record("alpha", "beta", "1-0"), record("beta", "alpha", "1/2-1/2")]
        lines += [record("beta", "gamma", "1-0"), record("gamma", "beta", "0-1")]
        lines += [record("gamma", "alpha", "1/2-1/2"), record("alpha", "gamma", "0-1")]
    run = write_run(tmp_path / "run", lines)
    assert main(["ratings", str(run)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[1] == "beta"  # 15/20 points, the best score
    assert "White advantage = " in out and "Draw rate (equal opponents) = " in out
    empty = write_run(tmp_path / "empty", [record("a", "b", "*")])
    assert main(["ratings", str(empty)]) == 2
    assert "no finished games" in capsys.readouterr().err
