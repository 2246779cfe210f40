"""``arena ratings``: rate the players of run directories, games.jsonl journals, PGN files and
leagues, all their games in one fit."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from arena.errors import UserError
from arena.leaguedir.directory import is_league
from arena.rundir.results import read_results
from ratings import fit_ratings
from ratings.tally import Tally, merge, tally
from reports.rating_tables import format_csv, format_json, format_pairs, format_table

DESCRIPTION = """\
Maximum-likelihood ratings like Ordo's (`ordo -a 0 -W -D`): draws count half a point, the
first mover's advantage and the draw rate for equal opponents are fitted. "White advantage" in
the table is the first mover's (p1's) advantage, whatever the game; the name is Ordo's, kept
so that Ordo readers parse our output. ERROR is the 95% half-width; the "+/-" after the white
advantage and the draw rate is one standard deviation, as in Ordo. A player who won (lost)
every game gets a bounded rating and a note. When the results only order the players (a
perfect ladder, or groups one of which never lost to the other), no finite rating exists
across them: the table ranks them by group, shows `order` instead of a rating where only the
place is known, rates a group of two or more inside itself only, and states the known order
under the table. Unfinished games (*) are skipped.
"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "ratings",
        help="Ordo-style ratings, error bars and draw rate from a run or a PGN file",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", nargs="+",
                        help="run directory, games.jsonl journal, PGN file or league directory "
                        "(several: one fit over all their games)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--csv", action="store_true",
                     help="print player,rating,error,points,played,group")
    out.add_argument(
        "--json", action="store_true", help="print the full fit (LOS matrix, pairwise, ...)"
    )
    parser.add_argument(
        "--scale",
        choices=("ordo", "elo"),
        default="ordo",
        help="ordo: 76%% expected score = 202 points (Ordo's default); elo: 400*log10",
    )
    parser.add_argument(
        "--no-white-advantage",
        action="store_true",
        help="do not fit the first mover's advantage (it is then 0)",
    )
    parser.add_argument(
        "--anchor",
        metavar="NAME=ELO",
        help="fix one player's rating (default: the pool averages --average)",
    )
    parser.add_argument("--average", type=float, default=0.0, help="pool average (default 0)")
    parser.add_argument(
        "--errors",
        choices=("hessian", "simulation", "none"),
        default="hessian",
        help="error bars: analytic (default) or simulated replays like Ordo's -s",
    )
    parser.add_argument(
        "--simulations", type=int, default=1000, help="replays for --errors simulation"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for --errors simulation")
    parser.add_argument(
        "--pairs", action="store_true", help="also print head-to-head lines (W/L/D, Elo, LOS)"
    )
    parser.set_defaults(func=run)


def parse_anchor(text: str) -> tuple[str, float]:
    name, sep, value = text.rpartition("=")
    if not sep or not name:
        raise UserError(f"--anchor: expected NAME=ELO, got {text!r}")
    try:
        return name, float(value)
    except ValueError:
        raise UserError(f"--anchor: rating {value!r} is not a number") from None


def warn(text: str) -> None:
    print(f"arena: warning: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    anchor = parse_anchor(args.anchor) if args.anchor else None
    if args.simulations < 2:
        raise UserError(f"--simulations: need at least 2, got {args.simulations}")
    games = gather(args.path)
    where = " ".join(args.path)
    if not games.games:
        raise UserError(f"{where}: no finished games to rate")
    counts = games.counts()
    if anchor is not None and anchor[0] not in counts.players:
        raise UserError(f"--anchor: no player named {anchor[0]!r} in {where}")
    try:
        fit = fit_ratings(
            counts,
            scale=args.scale,
            white_advantage=not args.no_white_advantage,
            anchor=anchor,
            average=args.average,
            errors=args.errors,
            simulations=args.simulations,
            seed=args.seed,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    pairs = {key: dataclasses.replace(stats, scale=args.scale)
             for key, stats in games.head_to_head().items()}
    if args.json:
        sys.stdout.write(format_json(fit, pairs))
    elif args.csv:
        sys.stdout.write(format_csv(fit))
    else:
        sys.stdout.write(format_table(fit))
        if args.pairs:
            sys.stdout.write("\n" + format_pairs(pairs))
    return 0


def gather(paths: list[str]) -> Tally:
    """Every finished game of ``paths`` as one tally: a league's closed nights as they were
    folded when they closed, everything else game by game."""
    from arena.leaguedir.directory import LeagueDir
    from arena.leaguedir.standings import all_games

    parts = []
    for path in paths:
        if is_league(Path(path)):
            parts.append(all_games(LeagueDir(Path(path)), warn))
        else:
            parts.append(tally(read_results(path, warn)))
    return merge(parts)
