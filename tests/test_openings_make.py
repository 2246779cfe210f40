"""``arena openings make``: candidates drawn by the rules, scored by a real engine process
through the protocol, the balanced ones written as a book the arena's own reader reads.

The engines are real child processes started as in a game (the sample alpha-beta by default,
Fairy-Stockfish where installed); the journal that makes a make resumable is a real file,
killed half-way by hand (its last line torn) before the make is run again.
"""

from __future__ import annotations

import itertools
import re
import shlex
import sys
from pathlib import Path

import pytest
import trio
from system_packages import FAIRY_STOCKFISH

from arena.cli import main
from arena.errors import UserError
from arena.openings import Opening
from arena.openings.book import read_book
from arena.openings.candidates import candidates
from arena.openings.maker import MakeJournal, MakeSettings, Scored, make_book, search_limit
from arena.openings.writer import BookLine, book_text
from referee.botspec import BotSpec
from referee.games import GAME_NAMES, get_game

ROOT = Path(__file__).resolve().parents[1]
ALPHABETA = [sys.executable, str(ROOT / "sample_bots" / "alphabeta.py")]
MAKE = ["openings", "make", "dobutsu", "--plies", "4", "--count", "6", "--limit", "depth=2"]


# --------------------------------------------------------------------------- candidates
@pytest.mark.parametrize("game", GAME_NAMES)
def test_candidates_are_distinct_unfinished_and_the_same_every_time(game: str) -> None:
    rules = get_game(game)
    plies = 12 if game == "dvonn" else 4
    drawn = list(itertools.islice(candidates(game, {}, plies, 3), 40))
    assert drawn == list(itertools.islice(candidates(game, {}, plies, 3), 40))
    assert drawn != list(itertools.islice(candidates(game, {}, plies, 4), 40))
    keys = set()
    for candidate in drawn:
        board = rules.start()
        for move in candidate.moves:
            board.play(move)
            assert not board.is_over()
            state = board.round_state()
            assert state is None or not state.parties  # no partie ends in an opening
        assert len(candidate.moves) == plies and board.position() == candidate.position
        assert not board.wins_at_once()
        keys.add(board.repetition_key())
    assert len(keys) == len(drawn)
    assert [c.index for c in drawn] == sorted({c.index for c in drawn})


def test_candidates_end_when_the_game_has_no_more_positions() -> None:
    """Dobutsu has a few dozen positions 3 plies deep: the sequence ends, each once."""
    drawn = list(candidates("dobutsu", {}, 3, 1))
    assert 40 < len(drawn) < 80
    assert len({c.position for c in drawn}) == len(drawn)


# --------------------------------------------------------------------------- the writer
@pytest.mark.parametrize(("game", "fmt"), [
    (game, fmt) for game in GAME_NAMES for fmt in ("lines", "epd", "pgn")
] + [("draughts", "pdn")])
def test_every_format_written_is_read_back_by_the_book_reader(
        tmp_path: Path, game: str, fmt: str) -> None:
    drawn = list(itertools.islice(candidates(game, {}, 12 if game == "dvonn" else 3, 1), 5))
    lines = [BookLine(Opening(moves=c.moves), f'score {i} "quoted" {{braces}} #hash')
             for i, c in enumerate(drawn)]
    suffix = "txt" if fmt == "lines" else fmt
    path = tmp_path / f"book.{suffix}"
    header = ["made by: arena openings make", "second line"]
    path.write_text(book_text(fmt, game, {}, header, lines),  # type: ignore[arg-type]
                    encoding="utf-8")
    openings = read_book(path, game, {})
    assert len(openings) == len(drawn)
    for opening, candidate in zip(openings, drawn, strict=True):
        if fmt == "epd":
            assert opening.start_position == candidate.position and not opening.moves
        else:
            assert opening.moves == candidate.moves and not opening.start_position
    text = path.read_text()
    assert "made by: arena openings make" in text and "score 0" in text


def test_a_pgn_book_from_a_position_numbers_the_second_players_first_move(
        tmp_path: Path) -> None:
    board = get_game("draughts").start()
    board.play("32-28")
    start = board.position()
    opening = Opening(start_position=start, moves=("19-23", "28x19"))
    path = tmp_path / "b.pdn"
    path.write_text(book_text("pdn", "draughts", {}, [], [BookLine(opening, "c")]))
    assert "1... 19-23 2. 28x19" in path.read_text()
    assert read_book(path, "draughts", {})[0].moves == opening.moves


# --------------------------------------------------------------------------- the limit
@pytest.mark.parametrize(("text", "error"), [
    ("10+0.1", "a clock has no meaning"), ("inf", "no limit"), ("depth=x", "--limit 'depth=x'"),
])
def test_a_limit_that_is_no_search_limit_is_refused(text: str, error: str) -> None:
    with pytest.raises(UserError, match=error):
        search_limit(text)
    assert search_limit("depth=3").depth == 3 and search_limit("st=0.2").movetime == 200


# --------------------------------------------------------------------------- whole makes
def _error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The error ``arena ARGS`` stops with (exit status 2, one line on stderr)."""
    capsys.readouterr()
    assert main(list(args)) == 2
    return capsys.readouterr().err


def _make(tmp_path: Path, name: str, *extra: str) -> Path:
    out = tmp_path / name
    assert main([*MAKE, "--output", str(out), *extra]) == 0
    return out


@pytest.mark.slow
def test_make_writes_balanced_distinct_openings_and_its_command_makes_them_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = _make(tmp_path, "book.txt")
    assert "wrote 6 openings" in capsys.readouterr().out
    openings = read_book(book, "dobutsu", {})
    assert len(openings) == 6
    assert len({o.moves for o in openings}) == 6 and all(len(o.moves) == 4 for o in openings)
    text = book.read_text().splitlines()
    assert text[0].startswith("# 6 balanced dobutsu openings, made by:")
    command = shlex.split(text[1].removeprefix("#"))
    assert command[:3] == ["arena", "openings", "make"]
    comments = [line.split("#", 1)[1] for line in text if line.startswith("moves")]
    scores = [int(c.split()[1]) for c in comments]
    assert all(abs(score) <= 50 for score in scores), comments
    assert all("(alphabeta, depth 2, best " in c for c in comments)
    assert not (tmp_path / "book.txt.making.jsonl").exists()
    # The header's command, run again (its output elsewhere), writes the same openings.
    again = tmp_path / "again.txt"
    assert main([*command[1:command.index("--output")], "--output", str(again)]) == 0
    body = [line for line in text if not line.startswith("#")]
    assert [line for line in again.read_text().splitlines() if not line.startswith("#")] == body


@pytest.mark.slow
def test_an_interrupted_make_resumes_to_the_book_a_whole_one_writes(tmp_path: Path) -> None:
    """A make of 3 openings left its journal (as Ctrl-C does), with a torn last line: the make
    of 6 reads it, scores only the rest, with two engines, and writes what one whole make of 6
    with one engine writes."""
    whole = _make(tmp_path, "whole.txt")
    book = tmp_path / "book.txt"
    settings = MakeSettings(game="dobutsu", options={}, plies=4, seed=1, limit="depth=2",
                            engine=ALPHABETA, protocol="native", engine_options={})
    engine = BotSpec(name="alphabeta", cmd=ALPHABETA)
    journal = MakeJournal(book)
    made = trio.run(lambda: make_book(settings, engine, journal, count=3, window=50))
    assert len(made.openings) == 3 and journal.path.exists()
    with journal.path.open("ab") as fh:
        fh.write(b'{"index": 99, "moves": ["b1')  # killed mid-write
    assert main([*MAKE, "--output", str(book), "--concurrency", "2"]) == 0
    def openings(path: Path) -> list[str]:
        return [line for line in path.read_text().splitlines() if not line.startswith("#")]

    assert openings(book) == openings(whole) and len(openings(book)) == 6


@pytest.mark.slow
def test_a_resume_with_other_settings_is_refused_naming_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "book.txt"
    settings = MakeSettings(game="dobutsu", options={}, plies=5, seed=1, limit="depth=2",
                            engine=ALPHABETA, protocol="native", engine_options={})
    journal = MakeJournal(book)
    journal.open(settings)
    journal.append(Scored(index=0, moves=("b1c2",), position="x", cp=0, mate=None, depth=2,
                          best="c1c2"))
    journal.close()
    assert re.search(r"book\.txt\.making\.jsonl:1: this book was begun with plies 5 \(now 4\)",
                     _error(capsys, *MAKE, "--output", str(book)))
    journal.path.write_text("not json\n")
    assert re.search(r"making\.jsonl:1: not a line of a book's making journal",
                     _error(capsys, *MAKE, "--output", str(book)))


@pytest.mark.slow
def test_an_engine_that_reports_no_score_stops_the_make_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    engine = f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}"
    error = _error(capsys, *MAKE, "--output", str(tmp_path / "b.txt"), "--engine", engine)
    assert re.search(r"engine 'random_bot' gave no score for candidate 0 \(moves .*\): a "
                     r"book's engine must report", error), error


@pytest.mark.parametrize(("extra", "error"), [
    (["--limit", "1+0"], "--limit '1+0': a clock has no meaning"),
    (["--output", "b.pdn"], "PDN is the draughts notation"),
    (["--engine", "no-such-engine"], "program 'no-such-engine' not found"),
    (["--count", "0"], "--count must be at least 1"),
    (["--engine-option", "Depth"], "--engine-option 'Depth': expected NAME=VALUE"),
])
def test_bad_arguments_are_errors_before_any_engine_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
        error: str) -> None:
    args = [*MAKE, "--output", str(tmp_path / "b.txt"), *extra]
    if "b.pdn" in extra:
        args = [*MAKE, "--output", str(tmp_path / "b.pdn")]
    assert error in _error(capsys, *args)
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
@pytest.mark.needs("fairy-stockfish")
def test_fairy_stockfish_scores_a_dobutsu_book_through_uci(tmp_path: Path) -> None:
    book = tmp_path / "fsf.pgn"
    assert main(["openings", "make", "dobutsu", "--plies", "6", "--count", "4", "--limit",
                 "depth=6", "--engine", FAIRY_STOCKFISH, "--protocol", "uci", "--output",
                 str(book)]) == 0
    text = book.read_text()
    assert text.count("(fairy-stockfish, depth 6, best ") == 4
    assert len(read_book(book, "dobutsu", {})) == 4
    assert not (tmp_path / "fsf.pgn.making.jsonl").exists()


MISBEHAVE = Path(__file__).resolve().parent / "bots" / "misbehave.py"


@pytest.mark.slow
def test_an_engine_that_crashes_is_restarted_and_asked_again(tmp_path: Path) -> None:
    """tests/bots/misbehave.py crashes at its third search, every process: each crash costs a
    restart, never a candidate."""
    engine = shlex.join([sys.executable, str(MISBEHAVE), "crash", "2"])
    book = _make(tmp_path, "book.txt", "--engine", engine)
    assert len(read_book(book, "dobutsu", {})) == 6
    assert book.read_text().count("(misbehave, depth 1, best ") == 6


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["crash", "hang"])
def test_an_engine_that_fails_twice_stops_the_make_naming_the_candidate(
        tmp_path: Path, mode: str) -> None:
    settings = MakeSettings(game="dobutsu", options={}, plies=4, seed=1, limit="depth=2",
                            engine=[sys.executable, str(MISBEHAVE), mode, "0"],
                            protocol="native", engine_options={})
    engine = BotSpec(name="bad", cmd=settings.engine, sandbox="none")
    with pytest.raises(UserError, match=r"engine 'bad' failed twice on candidate 0 \(moves "):
        trio.run(lambda: make_book(settings, engine, MakeJournal(tmp_path / "b.txt"), count=2,
                                   window=50, timeout=1.0))


# --------------------------------------------------------------------------- forced moves
@pytest.mark.slow
def test_a_position_with_one_legal_move_is_scored_after_it_at_the_full_depth(
        tmp_path: Path) -> None:
    """Draughts makes a capture compulsory: candidate 7 of seed 1 (20 plies) leaves p1 one
    legal move. The sample alpha-beta answers such a position after one ply of search; the
    book must carry a search to the limit, made after the forced move."""
    drawn = list(itertools.islice(candidates("draughts", {}, 20, 1), 8))
    boards = [get_game("draughts").new(None, c.moves) for c in drawn]
    forced = [i for i, board in enumerate(boards) if len(board.legal_moves()) == 1]
    assert forced, "no forced position among the first candidates: pick another seed"
    book = tmp_path / "book.txt"
    assert main(["openings", "make", "draughts", "--plies", "20", "--count", "8", "--window",
                 "100000", "--limit", "depth=3", "--output", str(book)]) == 0
    comments = [line.split("#", 1)[1] for line in book.read_text().splitlines()
                if line.startswith("moves")]
    assert len(comments) == 8
    for i in forced:
        only = boards[i].legal_moves()[0]
        assert f"(alphabeta, depth 3, best {only})" in comments[i], comments[i]


# --------------------------------------------------------------------------- the match scorer
MATCH = ["openings", "make", "dobutsu", "--plies", "4", "--scorer", "match", "--limit",
         "depth=1", "--match-seed", "7"]


def _match_results(book: Path) -> list[tuple[str, tuple[int, int, int]]]:
    """Each opening's moves and the first mover's (wins, draws, losses) from its comment."""
    out = []
    for line in book.read_text().splitlines():
        found = re.fullmatch(r"moves (.*?)  # p1 [\d.]+/2 \(\+(\d) =(\d) -(\d)\) "
                             r"\(alphabeta against itself\)", line)
        if found:
            out.append((found[1], (int(found[2]), int(found[3]), int(found[4]))))
    return out


@pytest.mark.slow
def test_the_match_scorer_plays_both_colours_and_keeps_the_even_ones(tmp_path: Path) -> None:
    """With --lean 50 every candidate is kept with the results of its two games; with --lean 0
    exactly those whose first mover took half the points, in the same order (the games are
    the same: depth-limited searches and fixed seeds)."""
    every = tmp_path / "every.txt"
    assert main([*MATCH, "--count", "8", "--lean", "50", "--output", str(every)]) == 0
    results = _match_results(every)
    assert len(results) == 8 and all(sum(r) == 2 for _, r in results)
    even = [moves for moves, (w, d, lost) in results if w + d / 2 == 1]
    assert 0 < len(even) < 8, results  # some lopsided, some even: the filter has work
    book = tmp_path / "even.txt"
    assert main([*MATCH, "--count", str(len(even)), "--output", str(book)]) == 0
    assert [moves for moves, _ in _match_results(book)] == even
    text = book.read_text()
    assert "--scorer match --pairs 1 --lean 0 --match-seed 7" in text.splitlines()[1]
    assert "gives the first mover exactly half the points" in " ".join(text.splitlines()[:8])


def test_the_match_scorers_bad_arguments_are_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "b.txt")
    assert "--pairs must be at least 1" in _error(capsys, *MATCH, "--pairs", "0", "-o", out)
    assert "--lean must be from 0 to 50" in _error(capsys, *MATCH, "--lean", "60", "-o", out)
    assert not list(tmp_path.iterdir())
