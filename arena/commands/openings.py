"""``arena openings``: make a balanced opening book, or prune one by the games played from it.

``make GAME --output BOOK`` draws candidate openings by random play, has an engine score each
through the protocol (one search, or with ``--scorer match`` a quick match against itself
from both colours) and writes the balanced ones (:mod:`arena.openings.maker`); ``prune BOOK
RUN_DIR...`` tests each opening of a book against the games runs played from it and drops the
lopsided ones (:mod:`arena.openings.pruner`). Both write any book format the arena reads, the
command line that made the book in its header.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

import msgspec

from arena.commands._arguments import key_values
from arena.errors import UserError
from arena.openings import BookFormat, Opening
from arena.openings.book import book_format, format_problem
from referee.botspec import BotSpec, Protocol
from referee.games import GameError, game_names, is_game

if TYPE_CHECKING:
    from arena.openings.maker import MakeProgress
    from referee.record import GameRecord

DEFAULT_PLIES: Final = 4
DEFAULT_COUNT: Final = 100
DEFAULT_WINDOW: Final = 50
"""Centipawns of the engine's own scale (the sample alpha-beta's: a dobutsu chick, a
draughts man = 100)."""
DEFAULT_LIMIT: Final = "depth=4"
DEFAULT_PAIRS: Final = 1
DEFAULT_LEAN: Final = 0.0
DEFAULT_MATCH_SEED: Final = 101
"""The match scorer's first ``Seed``: apart from the balance benchmark's 1 and 2, so that a
book scored by matches does not replay the benchmark's games."""
FORMATS: Final = ("lines", "epd", "pgn", "pdn")
HEADER_WIDTH: Final = 92
"""A book's header lines are wrapped to this width (the command line is not)."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "openings", help="make a balanced opening book with an engine, or prune one by its games",
        description="Opening books: `make` scores candidate openings with an engine and keeps "
        "the balanced ones; `prune` drops the openings whose games were too lopsided.")
    inner = parser.add_subparsers(dest="openings_command", metavar="SUBCOMMAND", required=True)
    _register_make(inner)
    _register_prune(inner)


def _register_make(inner: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = inner.add_parser(
        "make", help="make a book: random openings an engine scores as balanced",
        description="Draw openings of --plies random moves from the start (each a position "
        "no other reached, none ending the game or a partie, none leaving a win at once), "
        "score each with an engine searching to --limit, and keep those within --window "
        "centipawns of even until --count are found. With --scorer match, the engine plays "
        "each candidate against itself instead, --pairs colour-swapped pairs at --limit per "
        "move (the two copies differ in their Seed option), and a candidate is kept when the "
        "first mover's score is within --lean of 50%%. Resumable: the scores are journaled "
        "in BOOK.making.jsonl; the same command again scores only what is missing.")
    p.add_argument("game", metavar="GAME", help=f"one of: {', '.join(game_names())}")
    p.add_argument("-o", "--output", required=True, type=Path, metavar="BOOK",
                   help="the book to write: .epd, .pgn, .pdn (draughts), else our lines format")
    p.add_argument("--format", choices=FORMATS, help="the book's format when its suffix does "
                   "not say it")
    p.add_argument("--plies", type=int, default=DEFAULT_PLIES,
                   help=f"random plies per opening (default {DEFAULT_PLIES})")
    p.add_argument("--count", type=int, default=DEFAULT_COUNT,
                   help=f"balanced openings wanted (default {DEFAULT_COUNT})")
    p.add_argument("--window", type=int, default=DEFAULT_WINDOW, metavar="CP",
                   help="keep an opening when the engine's score is within CP centipawns of "
                   f"even, never a mate (default {DEFAULT_WINDOW})")
    p.add_argument("--limit", default=DEFAULT_LIMIT, metavar="LIMIT",
                   help=f"each search's limit (a match's: each move's): depth=N, nodes=N or "
                   f"st=SECONDS (default {DEFAULT_LIMIT})")
    p.add_argument("--scorer", choices=("search", "match"), default="search",
                   help="search: one search of the candidate, kept by its score (--window); "
                   "match: the engine against itself from both colours, kept by the first "
                   "mover's score (--lean) (default search)")
    p.add_argument("--pairs", type=int, default=DEFAULT_PAIRS,
                   help="match: colour-swapped pairs of games per candidate (default "
                   f"{DEFAULT_PAIRS})")
    p.add_argument("--lean", type=float, default=DEFAULT_LEAN, metavar="PERCENT",
                   help="match: keep a candidate when the first mover's score is within "
                   "PERCENT points of 50%% (default 0: exactly half the points)")
    p.add_argument("--match-seed", type=int, default=DEFAULT_MATCH_SEED, metavar="S",
                   help="match: pair k is played by the engine with Seed S+2k against "
                   f"S+2k+1 (default {DEFAULT_MATCH_SEED})")
    p.add_argument("--seed", type=int, default=1, help="decides the candidates (default 1)")
    p.add_argument("--engine", metavar="CMD",
                   help="the engine's command line, or an entry of --bots-file (default: the "
                   "sample alpha-beta, sample_bots/alphabeta.py)")
    p.add_argument("--protocol", choices=("native", "uci", "hub"),
                   help="the engine's protocol (default native, or its bots file entry's)")
    p.add_argument("--bots-file", type=Path, metavar="FILE",
                   help="a bots file whose entry --engine names")
    p.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE",
                   help="an engine option, sent with setoption (repeatable)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option, e.g. target=5 for donkan (repeatable)")
    p.add_argument("--concurrency", type=int, default=1,
                   help="engine processes searching at once (default 1)")
    p.set_defaults(func=make)


def _register_prune(inner: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = inner.add_parser(
        "prune", help="drop the openings of a book whose games were lopsided",
        description="Test every opening of BOOK against the games the runs played from it "
        "(the first mover's wins against its losses, exact binomial, adjusted for the number "
        "of openings: Benjamini-Hochberg) and list the openings found unbalanced; with "
        "--output, write the book without them, each opening's statistics as its comment.")
    p.add_argument("book", type=Path, metavar="BOOK")
    p.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR",
                   help="run directories (their games.jsonl), e.g. a league's nights/*")
    p.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="write the kept openings here (the format from its suffix)")
    p.add_argument("--format", choices=FORMATS, help="BOOK's format when its suffix does not "
                   "say it")
    p.add_argument("--output-format", choices=FORMATS,
                   help="the output's format when its suffix does not say it")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="the false discovery rate: drop an opening when its adjusted p-value is "
                   "at most this (default 0.05)")
    p.add_argument("--game", help="the book's game (default: the runs' game)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option the book was played with (repeatable; default: those "
                   "of the runs' first game)")
    p.set_defaults(func=prune)


# --------------------------------------------------------------------------- make
def _sample_alphabeta() -> list[str]:
    """The sample alpha-beta bot's command: the arena's Python and the installed script."""
    spec = importlib.util.find_spec("sample_bots")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("the sample bots are not installed; give the engine with --engine")
    script = Path(next(iter(spec.submodule_search_locations))) / "alphabeta.py"
    return [sys.executable, str(script)]


def _engine_spec(args: argparse.Namespace) -> BotSpec:
    """The engine to score with: a bots file entry, a command line, or the sample alpha-beta."""
    protocol: Protocol | None = args.protocol
    options: dict[str, str | int | float | bool] = dict(
        key_values(args.engine_option, "--engine-option", "NAME=VALUE"))
    if args.engine is None:
        spec = BotSpec(name="alphabeta", cmd=_sample_alphabeta(), protocol=protocol or "native")
    elif args.bots_file is not None and _entry(args.bots_file, args.engine):
        from arena.settings.botsfile import read_bots_file

        spec = read_bots_file(args.bots_file).prepared(args.engine.strip())
        spec = msgspec.structs.replace(spec, protocol=protocol or spec.protocol)
    else:
        try:
            cmd = shlex.split(args.engine)
        except ValueError as exc:
            raise UserError(f"--engine: cannot split {args.engine!r}: {exc}") from None
        if not cmd:
            raise UserError("--engine: empty command")
        cmd = [word.replace("{python}", sys.executable) for word in cmd]
        if shutil.which(cmd[0]) is None and not os.path.exists(cmd[0]):
            raise UserError(f"--engine {args.engine!r}: program {cmd[0]!r} not found")
        spec = BotSpec(name=_name_from(cmd), cmd=cmd, protocol=protocol or "native")
    if options:
        spec = msgspec.structs.replace(spec, options={**spec.options, **options})
    return spec


def _entry(path: Path, name: str) -> bool:
    from arena.settings.botsfile import read_bots_file

    return read_bots_file(path).index(name.strip()) is not None


def _name_from(cmd: list[str]) -> str:
    """``python bots/x.py`` -> ``x``; ``/usr/games/fairy-stockfish`` -> ``fairy-stockfish``."""
    for word in cmd[1:]:
        base, ext = os.path.splitext(os.path.basename(word))
        if ext in (".py", ".js", ".mjs", ".sh", ".rb", ".pl", ".jar") and base:
            return base
    return os.path.basename(cmd[0]) or cmd[0]


def _output_format(path: Path, declared: BookFormat | None, game: str) -> BookFormat:
    fmt = book_format(path, declared)
    if (problem := format_problem(fmt, game, None)) is not None:
        raise UserError(f"{path}: {problem}")
    return fmt


def _make_command(args: argparse.Namespace) -> str:
    """The command line that makes this book again, every setting spelt out."""
    words = ["arena", "openings", "make", args.game, "--plies", str(args.plies), "--count",
             str(args.count)]
    if args.scorer == "match":
        words += ["--scorer", "match", "--pairs", str(args.pairs), "--lean", f"{args.lean:g}",
                  "--match-seed", str(args.match_seed)]
    else:
        words += ["--window", str(args.window)]
    words += ["--limit", args.limit, "--seed", str(args.seed)]
    if args.engine is not None:
        words += ["--engine", args.engine]
    if args.bots_file is not None:
        words += ["--bots-file", str(args.bots_file)]
    if args.protocol is not None:
        words += ["--protocol", args.protocol]
    for item in args.engine_option:
        words += ["--engine-option", item]
    for item in args.option:
        words += ["--option", item]
    if args.format is not None:
        words += ["--format", args.format]
    words += ["--output", str(args.output)]
    return shlex.join(words)


def make(args: argparse.Namespace) -> int:
    import trio

    from arena.openings.maker import (
        MakeJournal,
        MakeSettings,
        Window,
        make_book,
        search_limit,
    )
    from arena.openings.writer import BookLine, write_book
    from referee.adjudication import Adjudication
    from referee.gameoptions import game_options_for

    if not is_game(args.game):
        raise UserError(f"unknown game {args.game!r}; known games: {', '.join(game_names())}")
    for flag, value in (("--plies", args.plies), ("--count", args.count),
                        ("--concurrency", args.concurrency)):
        if value < 1:
            raise UserError(f"{flag} must be at least 1, got {value}")
    if args.window < 0:
        raise UserError(f"--window must be 0 or more, got {args.window}")
    if args.scorer == "match" and args.pairs < 1:
        raise UserError(f"--pairs must be at least 1, got {args.pairs}")
    if not 0 <= args.lean <= 50:
        raise UserError(f"--lean must be from 0 to 50 (percent), got {args.lean:g}")
    fmt = _output_format(args.output, args.format, args.game)
    search_limit(args.limit)  # a bad limit is an error before any engine starts
    options = game_options_for(args.game, key_values(args.option, "--option"), Adjudication())
    engine = _engine_spec(args)
    settings = MakeSettings(game=args.game, options=options, plies=args.plies, seed=args.seed,
                            limit=args.limit, engine=list(engine.cmd), protocol=engine.protocol,
                            engine_options={k: str(v) for k, v in engine.options.items()})
    if args.scorer == "match":
        from arena.openings.selfplay import MATCH_MAX_PLIES

        settings = msgspec.structs.replace(settings, scorer="match", pairs=args.pairs,
                                           match_seed=args.match_seed,
                                           max_plies=MATCH_MAX_PLIES)
    window = Window(cp=args.window, lean=args.lean / 100)
    journal = MakeJournal(args.output)
    shown = _Progress(sys.stderr)
    try:
        made = trio.run(lambda: make_book(settings, engine, journal, count=args.count,
                                          window=window, concurrency=args.concurrency,
                                          progress=shown))
    except KeyboardInterrupt:
        shown.end()
        print(f"arena: interrupted; the scores so far are in {journal.path}: run the same "
              "command again to go on", file=sys.stderr)
        return 130
    shown.end()
    if not made.openings:
        flag = "--lean" if args.scorer == "match" else "--window"
        raise UserError(f"none of the {made.scored} candidates scored as balanced; widen "
                        f"{flag} or change --plies ({journal.path} keeps the scores)")
    header = [
        f"{len(made.openings)} balanced {args.game} openings, made by:",
        f"  {_make_command(args)}",
        *textwrap.wrap(
            f"Each opening: {args.plies} random plies from the start, a position no other "
            "opening reaches, the game (and its partie) still going, no win at once for the "
            f"side to move; kept when {_kept_when(args, engine.name)}. {made.scored} "
            f"candidates scored. {_comment_says(args)}", HEADER_WIDTH),
    ]
    lines = [BookLine(Opening(moves=s.moves), s.describe(engine.name)) for s in made.openings]
    write_book(args.output, fmt, args.game, options, header, lines)
    journal.close(remove=True)
    print(f"arena: wrote {len(made.openings)} openings to {args.output} ({made.scored} "
          f"candidates scored by {engine.name})")
    if made.exhausted:
        print(f"arena: warning: {args.game} has no more distinct positions {args.plies} plies "
              f"deep: {len(made.openings)} of the {args.count} wanted; try more --plies",
              file=sys.stderr)
    return 0


def _kept_when(args: argparse.Namespace, engine: str) -> str:
    if args.scorer != "match":
        return f"{engine} searching to {args.limit} scores it within {args.window} cp of even"
    from arena.openings.selfplay import MATCH_MAX_PLIES

    games = 2 * args.pairs
    return (f"{engine} playing itself from it, {games} games at {args.limit} a move (colours "
            f"swapped, the two copies with Seed {args.match_seed} and up; a draw at "
            f"{MATCH_MAX_PLIES} plies), gives the first mover "
            + ("exactly half the points" if args.lean == 0 else
               f"within {args.lean:g} points of 50%"))


def _comment_says(args: argparse.Namespace) -> str:
    if args.scorer == "match":
        return ("Each comment: the first mover's (p1's) points of its games and its wins, "
                "draws and losses.")
    return ("Each comment: the score for p1 (the side that moves first), the engine, its "
            "depth, its move.")


class _Progress:
    """One line on stderr: rewritten in place on a terminal, else printed every 10 s."""

    EVERY_S: Final = 10.0

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.last = 0.0
        self.first_kept: int | None = None
        self.shown = False

    def __call__(self, progress: MakeProgress) -> None:
        now = time.monotonic()
        if self.first_kept is None:
            self.first_kept = progress.kept
        if not self.tty and now - self.last < self.EVERY_S and progress.kept < progress.count:
            return
        self.last = now
        elapsed = now - self.started
        gained = progress.kept - self.first_kept
        eta = ""
        if gained > 0 and progress.kept < progress.count:
            left = (progress.count - progress.kept) * elapsed / gained
            eta = f", about {_duration(left)} left"
        line = (f"openings: {min(progress.kept, progress.count)}/{progress.count} balanced, "
                f"{progress.scored} "
                f"candidates scored ({progress.resumed} from the journal){eta}")
        self.stream.write(f"\r\x1b[K{line}" if self.tty else line + "\n")
        self.stream.flush()
        self.shown = True

    def end(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# --------------------------------------------------------------------------- prune
def prune(args: argparse.Namespace) -> int:
    from arena.openings.book import read_book
    from arena.openings.pruner import prune as verdicts_of
    from arena.openings.scoring import OpeningKeys, Tally
    from arena.openings.writer import BookLine, write_book
    from arena.rundir.journal import iter_records
    from arena.rundir.layout import RunDir
    from referee.gameoptions import game_options_for

    if not 0 < args.alpha < 1:
        raise UserError(f"--alpha must lie between 0 and 1, got {args.alpha}")
    journals = []
    for run in args.runs:
        journal = RunDir(run).journal
        if not journal.is_file():
            raise UserError(f"{run}: not a run directory (no {journal.name})")
        journals.append(journal)
    first = _first_record(journals)
    game = args.game or (first.game if first is not None else None)
    if game is None:
        raise UserError("the runs have no games; give --game to read the book anyway")
    if not is_game(game):
        raise UserError(f"unknown game {game!r}; known games: {', '.join(game_names())}")
    given = dict(key_values(args.option, "--option"))
    if not given and first is not None and first.game == game:
        given = dict(first.options)  # the options the runs played with (Donkan's target...)
    try:
        options = game_options_for(game, given)
    except GameError as exc:
        raise UserError(f"--option: {exc}") from None
    openings = read_book(args.book, game, options, fmt=args.format)
    keys = OpeningKeys(game, options)
    tally = Tally()
    for journal in journals:
        for record in iter_records(journal):
            tally.add(record, game, keys)
    book_keys = [keys.key(o.start_position, o.moves) for o in openings]
    verdicts = verdicts_of(openings, book_keys, tally.by_key, args.alpha)
    dropped = [v for v in verdicts if v.dropped]
    played = sum(1 for v in verdicts if v.results.games)
    if tally.counted and not played:
        shown = " ".join(f"{k}={v}" for k, v in sorted(options.items())) or "none"
        raise UserError(f"none of the {tally.counted} games of the runs began from an opening "
                        f"of {args.book} (game options {shown}): another book, or other game "
                        "options (--option KEY=VALUE)")
    print(f"{args.book}: {len(openings)} openings, {played} played in {tally.counted} games of "
          f"{len(journals)} run(s); {len(dropped)} found unbalanced (false discovery rate "
          f"{args.alpha:g})")
    for verdict in sorted(dropped, key=lambda v: v.adjusted):
        print(f"  dropped {_shown(verdict.opening)}  {verdict.comment()}")
    if tally.faulted or tally.other_game or tally.unreadable:
        print(f"  not counted: {tally.faulted} games ended by a bot's fault or unfinished, "
              f"{tally.other_game} of another game, {tally.unreadable} from openings these "
              "rules cannot play")
    if args.output is not None:
        fmt = _output_format(args.output, args.output_format, game)
        header = [
            f"{len(openings) - len(dropped)} openings of {args.book.name} kept by:",
            f"  {_prune_command(args)}",
            *textwrap.wrap(
                f"{tally.counted} games of {len(journals)} run(s). Each comment: the opening's "
                "source, the first mover's (p1's) score with its 95% interval and W/D/L, the "
                "exact binomial p-value of its wins against its losses, and that p-value "
                "adjusted for the number of openings tested (Benjamini-Hochberg).",
                HEADER_WIDTH),
            *(f"Dropped: {_shown(v.opening)}  {v.comment()}" for v in dropped),
        ]
        kept = [BookLine(v.opening, v.comment()) for v in verdicts if not v.dropped]
        write_book(args.output, fmt, game, options, header, kept)
        print(f"arena: wrote {len(kept)} openings to {args.output}")
    return 0


def _first_record(journals: Sequence[Path]) -> GameRecord | None:
    """The runs' first game: its game and options are the book's unless given."""
    from arena.rundir.journal import iter_records

    for journal in journals:
        for record in iter_records(journal):
            return record
    return None


def _shown(opening: Opening) -> str:
    moves = f"moves {' '.join(opening.moves)}" if opening.moves else ""
    if opening.start_position:
        return f"{opening.source} (fen {opening.start_position}{' ' + moves if moves else ''})"
    return f"{opening.source} ({moves})"


def _prune_command(args: argparse.Namespace) -> str:
    words = ["arena", "openings", "prune", str(args.book), *map(str, args.runs),
             "--alpha", f"{args.alpha:g}"]
    if args.game:
        words += ["--game", args.game]
    for item in args.option:
        words += ["--option", item]
    words += ["--output", str(args.output)]
    return shlex.join(words)
