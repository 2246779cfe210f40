"""Opening books: EPD, PGN and PDN files read, checked with the real rules, ordered by the seed.

Good books live in ``tests/data/openings/``; bad ones are written here, each next to the
``FILE:LINE`` its error must name. Every game's position texts and our own PGN export are
read back as books, so the readers accept what the arena itself writes.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from arena.errors import UserError
from arena.formats.schedule import build_schedule
from arena.openings.book import read_book
from arena.settings.config import ConfigError, load_config
from referee.games import game_names, get_game
from referee.record import GameRecord, MoveRecord, Termination
from reports.pgn import game_to_pgn

DATA = Path(__file__).resolve().parent / "data" / "openings"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def config(tmp_path: Path, game: str, openings: str, *, body: str = "", bots: int = 2) -> Path:
    text = f'game = "{game}"\ntc = "10+0.1"\n{body}\n[openings]\n{openings}\n'
    for i in range(bots):
        text += f'[[bots]]\nname = "b{i}"\ncmd = ["python3"]\n'
    return write(tmp_path, "c.toml", text)


def random_line(game: str, plies: int, seed: int) -> list[str]:
    """``plies`` random legal moves from the start that keep the game going."""
    rng = random.Random(seed)
    position = get_game(game).start()
    played: list[str] = []
    while len(played) < plies:
        move = rng.choice(position.legal_moves())
        position.play(move)
        if position.is_over():
            position.pop()
            continue
        played.append(move)
    return played


# --------------------------------------------------------------------------- good books
def test_epd_positions_with_operations_skipped() -> None:
    openings = read_book(DATA / "jungle.epd", "jungle", {})
    assert [o.source for o in openings] == ["jungle.epd:2", "jungle.epd:3", "jungle.epd:5"]
    assert openings[1].start_position == "l5t/5c1/rdp1w1e/7/7/E6/2W1P1R/1C3D1/T5L s"
    assert openings[2].start_position.endswith(" n")
    assert all(not o.moves for o in openings)


def test_windows_line_ends_and_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    book = tmp_path / "w.epd"
    book.write_bytes(b"\xef\xbb\xbfW:W31-50:B1-20\r\nB:W31-50:B1-20\r\n")
    assert [o.start_position for o in read_book(book, "draughts", {})] == [
        "W:W31-50:B1-20", "B:W31-50:B1-20"]
    book = tmp_path / "w.pgn"
    book.write_bytes(b'\xef\xbb\xbf[Event "x"]\r\n\r\n1. 32-28 19-23 *\r\n')
    assert read_book(book, "draughts", {})[0].moves == ("32-28", "19-23")


def test_pdn_games_comments_variations_fen_and_results() -> None:
    openings = read_book(DATA / "draughts.pdn", "draughts", {})
    assert [o.source for o in openings] == ["draughts.pdn:1", "draughts.pdn:11",
                                            "draughts.pdn:21"]
    first, from_fen, glued = openings
    # The comment over two lines, the nested variation and the $1 glyph are skipped.
    assert first.moves == ("34-29", "19-24", "29-23", "18x29", "40-34", "29x40", "45x34",
                           "20-25")
    assert first.start_position == ""
    assert from_fen.start_position == "W:W27,31,33-50:B1-16,18-21"
    assert from_fen.moves == ("34-30", "21x32", "37x28")  # "!" and "?!" dropped
    assert glued.moves == ("32-28", "19-23", "28x19", "14x23")  # "1.32-28", no result


def test_pgn_plies_takes_the_first_plies_of_each_game() -> None:
    whole = read_book(DATA / "dobutsu.pgn", "dobutsu", {})
    assert whole[0].moves == ("b2b3", "b4a3", "a1b2", "a3b2", "C@c2", "E@b4", "c2c3", "b2c1")
    assert whole[1].start_position == "gle/1c1/1C1/ELG[] w - - 0 1"
    assert whole[1].moves == ("b1a2", "b3b2", "c1b1", "a4a3")
    cut = read_book(DATA / "dobutsu.pgn", "dobutsu", {}, plies=3)
    assert [o.moves for o in cut] == [whole[0].moves[:3], whole[1].moves[:3]]
    assert [o.source for o in cut] == ["dobutsu.pgn:1", "dobutsu.pgn:10"]


def test_plies_skips_the_rest_of_each_game_up_to_its_result(tmp_path: Path) -> None:
    book = write(tmp_path, "b.pdn", (
        '[Event "a"]\n\n1. 32-28 19-23\n2. 28x19 14x23\n3. 37-32 10-14 2-0\n'
        '[Event "b"]\n\n1. 31-26 17-21 *\n[Event "c"]\n\n1. 33-29 18-22\n2. 39-33\n'
        '[Event "d"]\n1. 34-30 2-0'))
    whole = read_book(book, "draughts", {})
    assert [o.moves for o in whole] == [
        ("32-28", "19-23", "28x19", "14x23", "37-32", "10-14"), ("31-26", "17-21"),
        ("33-29", "18-22", "39-33"), ("34-30",)]
    cut = read_book(book, "draughts", {}, plies=1)
    assert [o.moves for o in cut] == [("32-28",), ("31-26",), ("33-29",), ("34-30",)]
    assert [o.source for o in cut] == ["b.pdn:1", "b.pdn:6", "b.pdn:9", "b.pdn:13"]


def test_plies_cuts_before_an_illegal_move_is_reached(tmp_path: Path) -> None:
    book = write(tmp_path, "b.pgn", '[Variant "draughts"]\n\n1. 32-28 19-23 2. 28-22 *\n')
    with pytest.raises(UserError, match=r"b\.pgn:3: move '28-22' \(ply 3"):
        read_book(book, "draughts", {})
    assert read_book(book, "draughts", {}, plies=2)[0].moves == ("32-28", "19-23")


@pytest.mark.parametrize("game", game_names())
def test_every_game_reads_its_own_position_texts_as_epd(tmp_path: Path, game: str) -> None:
    rules = get_game(game)
    texts = [rules.new(None, random_line(game, plies, seed)).position()
             for seed, plies in enumerate((0, 1, 2, 5))]
    book = write(tmp_path, "b.epd", "".join(f'{t} id "n{i}"; c0 "x;y";\n' if i % 2 else f"{t}\n"
                                            for i, t in enumerate(texts)))
    openings = read_book(book, game, {})
    assert [o.start_position for o in openings] == texts


@pytest.mark.parametrize("game", game_names())
def test_every_game_reads_our_own_pgn_export_back(tmp_path: Path, game: str) -> None:
    """The PGN ``arena run`` writes (PDN for draughts) is a book: games from a position too."""
    rules = get_game(game)
    records = []
    for seed in range(3):
        moves = random_line(game, 12, seed)
        start = rules.new(None, moves[:2]).position() if seed == 2 else rules.START_POSITION
        start_game = rules.new(start)
        played = moves[2:] if seed == 2 else moves
        sides = []
        for move in played:
            sides.append(start_game.side_to_move)
            start_game.play(move)
        records.append(GameRecord(
            game=game, p1="a", p2="b", result="1/2-1/2", termination=Termination.ADJUDICATION,
            reason="a {comment} with ; and (brackets)", start_position=start,
            moves=[MoveRecord(move=m, side=s, elapsed_ms=1.0, book=i < 2)
                   for i, (m, s) in enumerate(zip(played, sides, strict=True))]))
    suffix = ".pdn" if game == "draughts" else ".pgn"
    book = write(tmp_path, "games" + suffix, "".join(game_to_pgn(r) for r in records))
    openings = read_book(book, game, {}, plies=6)
    assert [o.moves for o in openings] == [tuple(m.move for m in r.moves[:6]) for r in records]
    for opening, record in zip(openings, records, strict=True):
        expected = rules.from_position(record.start_position).position()
        got = rules.new(opening.start_position or None).position()
        assert got == expected


def test_our_lines_format_still_reads_and_plies_cut_its_moves(tmp_path: Path) -> None:
    book = write(tmp_path, "o.txt", "# c\nmoves 32-28 19-23 28x19\n\nfen W:W31-50:B1-20\n")
    openings = read_book(book, "draughts", {}, plies=2)
    assert [(o.moves, o.source) for o in openings] == [(("32-28", "19-23"), "o.txt:2"),
                                                       ((), "o.txt:4")]


# --------------------------------------------------------------------------- bad books
@pytest.mark.parametrize(("name", "text", "game", "error"), [
    ("bad.epd", "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L s\nl5t/1d3c1 s\n", "jungle",
     r"bad\.epd:2: not a jungle position: .*l5t/1d3c1 s"),
    ("bad.epd", "\n\nW:W31-50:B1-20 id \"unclosed;\n", "draughts",
     r"bad\.epd:3: an unterminated string"),
    ("bad.epd", "W:W31-50:B1-20 id \"x\"; c0\n", "draughts",
     r"bad\.epd:1: the last EPD operation does not end with ';'"),
    ("bad.epd", "W:W31-50:B1-20 9 id \"x\";\n", "draughts",
     r"bad\.epd:1: not a draughts position"),
    ("bad.epd", "# nothing but a comment\n", "draughts", r"bad\.epd: no openings in the file"),
    ("bad.pgn", '[Event "a"]\n\n1. b2b3\na4a1 2. b1c2 b3b2 1-0\n', "dobutsu",
     r"bad\.pgn:4: move 'a4a1' \(ply 2 of the opening at line 1\): illegal move"),
    ("bad.pgn", '[Event "a"]\n\n1. b2b3 {never\nclosed\n', "dobutsu",
     r"bad\.pgn:3: a comment '\{' that is never closed"),
    ("bad.pgn", '[Event "a"]\n\n1. b2b3 (1. b1c2\n', "dobutsu",
     r"bad\.pgn:3: a variation '\(' that is never closed"),
    ("bad.pgn", '[Event "a"]\n\n1. b2b3 ) *\n', "dobutsu", r"bad\.pgn:3: '\)' closes no"),
    ("bad.pgn", '[Event "a"]\n[Result 1-0]\n\n*\n', "dobutsu",
     r"bad\.pgn:2: a tag pair that does not read"),
    ("bad.pgn", '[Event "a"]\n[Variant "jungle"]\n\n1. b2b3 *\n', "dobutsu",
     r"bad\.pgn:1: this book game is 'jungle' \(its Variant tag\); the tournament plays "
     "dobutsu"),
    ("bad.pgn", '[Event "a"]\n[FEN "W:W31-50:B1-20"]\n\n*\n', "jungle",
     r"bad\.pgn:1: not a jungle position"),
    ("bad.pgn", '1. b2b3 *\n', "dobutsu", r"bad\.pgn:1: not a PGN file"),
    ("bad.pdn", '[GameType "21"]\n\n1. 11-15 *\n', "draughts",
     r"bad\.pdn:1: GameType '21' is not international draughts"),
    ("bad.pdn", '[Event "x"]\n\n1. 32-28 19-23 2. 28-22 *\n', "draughts",
     r"bad\.pdn:3: move '28-22' \(ply 3 of the opening at line 1\): illegal move '28-22' in "
     r"position .*capture is compulsory"),
    ("bad.pdn", '[Event "x"]\n\n1. 32-28 *\n', "jungle", r"bad\.pdn: PDN is the draughts "),
    ("bad.txt", "moves 32-28\nmoves 32-28 32-28\n", "draughts",
     r"bad\.txt:2: move '32-28' \(ply 2"),
])
def test_a_bad_book_is_an_error_naming_file_and_line(
        tmp_path: Path, name: str, text: str, game: str, error: str) -> None:
    with pytest.raises(UserError, match=error):
        read_book(write(tmp_path, name, text), game, {})


def test_a_book_game_played_to_its_end_asks_for_plies(tmp_path: Path) -> None:
    rules = get_game("dobutsu")
    rng = random.Random(5)
    position, moves = rules.start(), []
    while not position.is_over():
        moves.append(rng.choice(position.legal_moves()))
        position.play(moves[-1])
    book = write(tmp_path, "whole.pgn", f'[Event "x"]\n\n{" ".join(moves)} *\n')
    last = len(moves)
    with pytest.raises(UserError, match=rf"whole\.pgn:3: move '{re.escape(moves[-1])}' \(ply "
                       rf"{last} of the opening at line 1\) ends the game \(p[12] wins: .*\); "
                       rf".*plies = {last - 1} "):
        read_book(book, "dobutsu", {})
    assert read_book(book, "dobutsu", {}, plies=1)[0].moves == tuple(moves[:1])


def test_the_error_names_the_move_that_ends_the_game(tmp_path: Path) -> None:
    """Issue 39: the error named the opening's first line, not the move on line 4."""
    book = write(tmp_path, "dobutsu-ends.pgn",
                 '[Event "x"]\n\n1. b2b3 a4a3\n2. b3b4+ *\n\n[Event "y"]\n\n1. b1c2 *\n')
    with pytest.raises(UserError, match=r"^\S*dobutsu-ends\.pgn:4: move 'b3b4\+' \(ply 3 of the "
                       r"opening at line 1\) ends the game \(p1 wins: lion-captured\); .*"
                       r"plies = 2 "):
        read_book(book, "dobutsu", {})


def test_a_finished_position_is_named_by_its_line(tmp_path: Path) -> None:
    book = write(tmp_path, "over.txt", "moves b1c2\nfen 1+Ce/g2/3/ELG[LC] b - - 0 2\n")
    with pytest.raises(UserError, match=r"over\.txt:2: the position already ends the game "
                       r"\(p1 wins: .*\)"):
        read_book(book, "dobutsu", {})


def test_binary_bytes_are_refused_at_once(tmp_path: Path) -> None:
    book = tmp_path / "noise.pgn"
    book.write_bytes(b'[Event "x"]\n\x00\x01' + bytes(range(256)) * 100)
    with pytest.raises(UserError, match=r"noise\.pgn:2"):
        read_book(book, "draughts", {})


# --------------------------------------------------------------------------- the config
@pytest.mark.parametrize(("game", "openings", "error"), [
    ("jungle", 'file = "b.epd"\nplies = 4', r"c\.toml:6: openings\.plies: b\.epd: an EPD book "
     "holds positions"),
    ("jungle", 'file = "b.pdn"', r"c\.toml:5: openings\.file: b\.pdn: PDN is the draughts "
     "notation"),
    ("jungle", 'file = "b.txt"\nformat = "pdn"', r"openings\.format: b\.txt: PDN is the draughts"),
    ("draughts", 'order = "random"', r"openings\.order: 'order' applies to an openings file"),
    ("draughts", 'random_plies = 2\nplies = 3', r"openings\.plies: 'plies' applies to an "),
    ("draughts", 'file = "b.pgn"\norder = "shuffled"', r"openings\.order: Invalid enum value "
     "'shuffled'.*'sequential', 'random'"),
    ("draughts", 'file = "b.pgn"\nplies = 0', r"openings\.plies: Expected `int` >= 1|"
     r"openings\.plies: Expected int >= 1"),
])
def test_config_refuses_books_that_cannot_serve_the_game(
        tmp_path: Path, game: str, openings: str, error: str) -> None:
    for name in ("b.epd", "b.pdn", "b.txt", "b.pgn"):
        write(tmp_path, name, "")
    with pytest.raises(ConfigError, match=error):
        load_config(config(tmp_path, game, openings))


# --------------------------------------------------------------------------- order
def test_random_order_is_the_seed_s_and_uses_every_opening_before_repeating(
        tmp_path: Path) -> None:
    lines = [f"moves {' '.join(random_line('draughts', 2, seed))}" for seed in range(20)]
    write(tmp_path, "o.txt", "\n".join(lines) + "\n")

    def indices(order: str, seed: int) -> tuple[list[int], str]:
        path = config(tmp_path, "draughts", f'file = "o.txt"\norder = "{order}"',
                      body=f"seed = {seed}\ngames_per_pairing = 40\nrounds = 2", bots=2)
        schedule = build_schedule(load_config(path))
        assert all(a.opening == b.opening for a, b in
                   zip(schedule.games[::2], schedule.games[1::2], strict=True))
        return ([-1 if g.opening_index is None else g.opening_index
                 for g in schedule.games[::2]], schedule.fingerprint)

    sequential, fp_sequential = indices("sequential", 1)
    assert sequential == list(range(20)) * 2
    one, fp_one = indices("random", 1)
    assert indices("random", 1) == (one, fp_one)  # deterministic: resume finds the same games
    assert sorted(one[:20]) == sorted(one[20:]) == list(range(20)) and one != sequential
    other, fp_other = indices("random", 2)
    assert other != one and len({fp_sequential, fp_one, fp_other}) == 3


def test_a_book_s_sources_go_on_each_game_s_order(tmp_path: Path) -> None:
    write(tmp_path, "book.pdn", (DATA / "draughts.pdn").read_text())
    path = config(tmp_path, "draughts", 'file = "book.pdn"\nplies = 4',
                  body="games_per_pairing = 6")
    games = build_schedule(load_config(path)).games
    assert [g.opening.source for g in games] == [
        "book.pdn:1", "book.pdn:1", "book.pdn:11", "book.pdn:11", "book.pdn:21", "book.pdn:21"]
    assert [len(g.opening.moves) for g in games[::2]] == [4, 3, 4]


def test_a_league_night_draws_book_openings_at_random_unless_sequential(tmp_path: Path) -> None:
    """The league's planner (its ``_opening`` step, given the night's name and the config)."""
    from types import SimpleNamespace

    from arena.league.plan import Planner

    write(tmp_path, "book.pdn", (DATA / "draughts.pdn").read_text())

    def sources(order: str) -> list[str]:
        loaded = load_config(config(tmp_path, "draughts", f'file = "book.pdn"\n{order}'))
        night = SimpleNamespace(loaded=loaded, state=SimpleNamespace(name="2026-01-01"),
                                _openings=None)
        return [Planner._opening(night, n)[0].source for n in range(1, 13)]  # type: ignore[arg-type]

    assert sources('order = "sequential"') == ["book.pdn:1", "book.pdn:11", "book.pdn:21"] * 4
    drawn = sources("")
    assert drawn == sources('order = "random"') == sources("")  # the seed's, every time
    assert set(drawn) == {"book.pdn:1", "book.pdn:11", "book.pdn:21"}
    assert drawn != sources('order = "sequential"')
