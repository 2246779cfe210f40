"""``arena openings prune``: a test per opening over the games runs played from a book.

The runs are journals written here with known results (the pruner reads them with the
arena's journal reader, as it reads any run directory): ten openings of a dobutsu book, one
of them planted so that the first mover wins every game played from it, whoever that is.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from arena.cli import main
from arena.openings import Opening
from arena.openings.book import read_book
from arena.openings.candidates import candidates
from arena.openings.pruner import prune
from arena.openings.scoring import FirstMover
from arena.rundir.journal import write_records
from referee.games import get_game
from referee.record import GameRecord, Termination

PAIRS = 8
"""Colour pairs per opening in each run: 16 games, as two runs of 8."""


def book(tmp_path: Path, count: int = 10) -> tuple[Path, list[tuple[str, ...]]]:
    lines = [c.moves for c in itertools.islice(candidates("dobutsu", {}, 4, 5), count)]
    path = tmp_path / "book.txt"
    path.write_text("# ten openings\n" + "".join(f"moves {' '.join(m)}\n" for m in lines))
    return path, lines


def record(number: int, moves: tuple[str, ...], result: str, flip: bool,
           termination: Termination = Termination.NORMAL) -> GameRecord:
    p1, p2 = ("alpha", "beta") if flip else ("beta", "alpha")
    return GameRecord(
        game="dobutsu", p1=p1, p2=p2, result=result, termination=termination, reason="",
        winner={"1-0": 0, "0-1": 1}.get(result), id=f"g{number}",
        start_position="gle/1c1/1C1/ELG[] w - - 0 1", opening=list(moves))


def run(tmp_path: Path, name: str, lines: list[tuple[str, ...]], planted: int,
        seed: int) -> Path:
    """A run directory: every opening played by colour pairs, results drawn at even odds
    (wins, draws, losses as 2:1:2), except the planted one, which p1 always wins."""
    rng = random.Random(seed)
    records = []
    number = 0
    for index, moves in enumerate(lines):
        for _ in range(PAIRS):
            for flip in (False, True):
                number += 1
                result = "1-0" if index == planted else \
                    rng.choice(["1-0", "1-0", "1/2-1/2", "0-1", "0-1"])
                records.append(record(number, moves, result, flip))
        # A crash says nothing about the opening: never counted.
        records.append(record(number + 1, moves, "0-1", False, Termination.CRASH))
        number += 1
    out = tmp_path / name
    out.mkdir()
    write_records(out / "games.jsonl", records)
    return out


def test_a_planted_lopsided_opening_is_dropped_and_the_balanced_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, lines = book(tmp_path)
    runs = [run(tmp_path, "run1", lines, planted=3, seed=1),
            run(tmp_path, "run2", lines, planted=3, seed=2)]
    out = tmp_path / "pruned.txt"
    assert main(["openings", "prune", str(path), *map(str, runs), "--output", str(out)]) == 0
    said = capsys.readouterr().out
    assert "10 openings, 10 played in 320 games of 2 run(s); 1 found unbalanced" in said
    assert f"dropped book.txt:5 (moves {' '.join(lines[3])})  book.txt:5: p1 100% [" in said
    assert "of 32 (+32 =0 -0)" in said and "20 games ended by a bot's fault" in said
    kept = read_book(out, "dobutsu", {})
    assert [o.moves for o in kept] == [m for i, m in enumerate(lines) if i != 3]
    text = out.read_text()
    assert text.startswith("# 9 openings of book.txt kept by:\n#   arena openings prune ")
    assert f"# Dropped: book.txt:5 (moves {' '.join(lines[3])})" in text
    body = [line for line in text.splitlines() if line.startswith("moves")]
    assert all(" of 32 (+" in line and ", p " in line and "(adjusted " in line for line in body)


def test_without_output_the_book_is_only_listed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, lines = book(tmp_path)
    runs = [run(tmp_path, "run1", lines, planted=0, seed=3)]
    assert main(["openings", "prune", str(path), str(runs[0])]) == 0
    said = capsys.readouterr().out
    assert "dropped book.txt:2 " in said and "wrote" not in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.txt", "run1"]


def test_a_moderate_record_is_chance_and_a_long_one_is_not() -> None:
    """Not a fixed threshold: 7 wins in 10 decisive games is kept, 35 in 50 is dropped."""
    short = FirstMover(wins=7, draws=4, losses=3)
    long = FirstMover(wins=35, draws=20, losses=15)
    assert short.score == long.score
    openings = [Opening(moves=("a",), source="b:1"), Opening(moves=("b",), source="b:2")]
    results = {"k1": short, "k2": long}
    one = prune(openings[:1], ["k1"], results)[0]
    two = prune(openings[1:], ["k2"], results)[0]
    assert not one.dropped and one.p_value > 0.3
    assert two.dropped and two.p_value < 0.01
    assert "b:2: p1 64% [" in two.comment() and "of 70 (+35 =20 -15)" in two.comment()


def test_the_adjustment_keeps_chance_lopsidedness_among_many_openings() -> None:
    """Among 200 sound openings some look lopsided by chance (p < 0.05 unadjusted); the
    false discovery rate keeps them."""
    rng = random.Random(7)
    openings, keys, results = [], [], {}
    for i in range(200):
        wins = sum(rng.random() < 0.5 for _ in range(20))
        results[f"k{i}"] = FirstMover(wins=wins, losses=20 - wins)
        openings.append(Opening(moves=(str(i),), source=f"b:{i}"))
        keys.append(f"k{i}")
    verdicts = prune(openings, keys, results)
    assert any(v.p_value < 0.05 for v in verdicts)
    assert not any(v.dropped for v in verdicts)


def test_the_interval_holds_the_score_and_narrows_with_games() -> None:
    few, many = FirstMover(wins=3, draws=2, losses=1), FirstMover(wins=30, draws=20, losses=10)
    for results in (few, many):
        low, high = results.interval()
        assert low < results.points / results.games < high
    assert many.interval()[1] - many.interval()[0] < few.interval()[1] - few.interval()[0]
    all_won = FirstMover(wins=5)
    assert all_won.interval()[1] == 1.0 and all_won.interval()[0] < 1.0
    assert FirstMover().text() == "no games" and FirstMover().p_value() == 1.0


def test_runs_of_another_game_or_no_run_are_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = book(tmp_path)
    assert main(["openings", "prune", str(path), str(tmp_path / "nowhere")]) == 2
    assert "nowhere: not a run directory (no games.jsonl)" in capsys.readouterr().err


def test_a_book_is_read_with_the_game_options_the_runs_played(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Donkan run to one point (``target = 1``): its records' positions are not those the
    book leads to in the default round of 10, so the runs' own options are the book's unless
    --option says otherwise; a book none of whose openings the games began from is an
    error, not an empty verdict."""
    options = {"target": "1", "draw_rules": "true"}
    lines = [c.moves for c in itertools.islice(candidates("donkan", options, 4, 5), 6)]
    path = tmp_path / "donkan.txt"
    path.write_text("".join(f"moves {' '.join(m)}\n" for m in lines))
    start = get_game("donkan").new(None, (), **options).position()  # as the runner writes it
    records = [GameRecord(game="donkan", p1=p1, p2=p2, result="1-0" if i == 0 else result,
                          termination=Termination.NORMAL, reason="", id=f"g{i}-{p1}",
                          winner=0 if i == 0 or result == "1-0" else 1, opening=list(moves),
                          start_position=start, options=options)
               for i, moves in enumerate(lines) for _ in range(PAIRS)
               for (p1, p2), result in ((("alpha", "beta"), "1-0"), (("beta", "alpha"), "0-1"))]
    out = tmp_path / "run"
    out.mkdir()
    write_records(out / "games.jsonl", records)
    assert main(["openings", "prune", str(path), str(out)]) == 0
    said = capsys.readouterr().out
    assert "6 openings, 6 played in 96 games of 1 run(s); 1 found unbalanced" in said
    assert f"dropped donkan.txt:1 (moves {' '.join(lines[0])})" in said
    # Read with the default options (a round of 10), the openings lead to other positions.
    other = tmp_path / "other.txt"
    other.write_text("".join(f"moves {' '.join(c.moves)}\n"
                             for c in itertools.islice(candidates("donkan", {}, 4, 6), 6)))
    assert main(["openings", "prune", str(other), str(out)]) == 2
    assert ("none of the 96 games of the runs began from an opening of "
            f"{other} (game options draw_rules=true target=1): another book, or other game "
            "options (--option KEY=VALUE)") in capsys.readouterr().err
