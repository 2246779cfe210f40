"""``arena league init DIR --game G --tc TC``: a new league directory with its ``league.toml``.

The file is written with every key of the nightly policy spelled out and commented, so that
the league's owner reads what can be changed; it is checked as the league will read it before
it is kept.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.atomicfile import write_with
from arena.errors import UserError
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.leaguetoml import (
    DEFAULT_NIGHT_GAMES,
    DEFAULT_PLACEMENT_OPPONENTS,
    load_settings,
)
from referee.games import game_names, is_game


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("init", help="make a league directory (writes DIR/league.toml)",
                       description="Make a league directory and its league.toml: the game, "
                       "the time control and the nightly policy. Bots are submitted later "
                       "(`arena league submit`).")
    p.add_argument("dir", type=Path, metavar="DIR")
    p.add_argument("--game", required=True, help=f"one of: {', '.join(game_names())}")
    p.add_argument("--tc", required=True, help="time control, e.g. 10+0.1 or st=0.05")
    p.add_argument("--event", help="the league's name in reports (default: DIR's name)")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    p.add_argument("--openings", metavar="FILE",
                   help="openings file (copied into DIR; each opening played twice, colours "
                   "swapped); default: the game's book in examples/openings/")
    p.add_argument("--random-plies", type=int, metavar="N",
                   help="random openings of N plies instead of a file (0: the start position)")
    p.add_argument("--max-plies", type=int, help="adjudicate a draw after this many plies")
    p.add_argument("--night-games", type=int, default=DEFAULT_NIGHT_GAMES,
                   help=f"games in a night given no --until/--hours/--games (default "
                   f"{DEFAULT_NIGHT_GAMES})")
    p.add_argument("--placement-opponents", type=int, default=DEFAULT_PLACEMENT_OPPONENTS,
                   help="opponents of a new version's placement games (default "
                   f"{DEFAULT_PLACEMENT_OPPONENTS})")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)


def league_toml(args: argparse.Namespace, openings_name: str | None) -> str:
    """The text of a new ``league.toml``."""
    def q(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = [
        "# A league: versions of bots submitted over time (`arena league submit`), played",
        "# night after night (`arena league run`), rated over all nights. Every game key of a",
        "# tournament config applies (see examples/README.md); bots are not listed here.",
        f"game = {q(args.game)}",
        f"tc = {q(args.tc)}",
    ]
    if args.event:
        lines.append(f"event = {q(args.event)}")
    lines += [f"concurrency = {args.concurrency}", f"seed = {args.seed}", ""]
    if openings_name or args.random_plies:
        lines.append("[openings]")
        lines.append(f"file = {q(openings_name)}" if openings_name
                     else f"random_plies = {args.random_plies}")
        lines.append("")
    if args.max_plies:
        lines += ["[adjudication]", f"max_plies = {args.max_plies}", ""]
    lines += [
        "# Every version's limits (as a bot's [limits] in a tournament config).",
        "[limits]",
        "memory_mb = 1024",
        "",
        "[league]",
        "# A new version first plays this many opponents spread over the field's ratings,",
        "# placement_pairs colour pairs (two games, colours swapped) against each.",
        f"placement_opponents = {args.placement_opponents}",
        "placement_pairs = 1",
        '# "information": then pair where the ratings are least known (close ratings, wide',
        '# error bars, few games between the two); "round-robin": cycle every pair.',
        'pairing = "information"',
        "# Games in a night when `arena league run` is given no --until, --hours or --games.",
        f"night_games = {args.night_games}",
        "# A submission's build (bot.toml's build command): wall-clock and memory limits.",
        "build_seconds = 600",
        "build_memory_mb = 2048",
        "# An uploaded archive (.tar.gz, .tgz, .tar, .zip) or single source file: its size,",
        "# what it may unpack to, its files and folders, its longest path. Anything over a",
        "# limit is refused before it is unpacked (zip bombs, a million tiny files).",
        "upload_mb = 20",
        "unpacked_mb = 200",
        "upload_files = 2000",
        "upload_path_chars = 200",
        "# `arena serve DIR --submissions`: submissions an author may have waiting at once",
        "# (each author's are built one at a time).",
        "pending_per_author = 3",
        '# cluster = "tcp://scheduler:8786"   # play the nights on a Dask cluster',
        "",
        "[league.verdict]",
        "# Is a new version better than its previous one? A sequential test (pentanomial",
        "# SPRT) of their colour pairs, looked at after every night until it decides:",
        "# H0 at most elo0, H1 at least elo1 stronger (logistic Elo); alpha, beta: its",
        "# errors; undecided after max_games; share: of each night's pairs (after",
        "# placement) given to the open tests. See docs/ratings.md.",
        "elo0 = 0",
        "elo1 = 30",
        "alpha = 0.05",
        "beta = 0.05",
        "max_games = 2000",
        "share = 0.25",
        "",
    ]
    return "\n".join(lines)


def _random(plies: int | None) -> str:
    return f"{plies} random plies" if plies else "the start position"


def run(args: argparse.Namespace) -> int:
    league = LeagueDir(args.dir)
    if not is_game(args.game):
        raise UserError(f"unknown game {args.game!r}; known games: {', '.join(game_names())}")
    if league.config.exists():
        raise UserError(f"{league.config} exists already; a league is made once")
    if args.openings and args.random_plies is not None:
        raise UserError("give either --openings or --random-plies, not both")
    league.root.mkdir(parents=True, exist_ok=True)
    from arena.openings.shipped import shipped_book

    openings_name = None
    source = Path(args.openings) if args.openings else \
        shipped_book(args.game) if args.random_plies is None else None
    if source is not None:
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise UserError(f"cannot read openings file {source}: {exc.strerror or exc}") from None
        openings_name = source.name
        (league.root / openings_name).write_bytes(data)
    text = league_toml(args, openings_name)

    def checked(tmp: Path) -> None:  # a league.toml that would not load is never written
        tmp.write_text(text, encoding="utf-8")
        load_settings(tmp)

    write_with(league.config, checked)
    print(f"arena: league {league.root} made ({args.game}, tc {args.tc}, openings "
          f"{openings_name or _random(args.random_plies)}); next: "
          f"`arena league submit {league.root} NAME FOLDER`, then `arena league run "
          f"{league.root}`")
    return 0
