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
from ratings.prior import DEFAULT_PARENT_SD, DEFAULT_SD, Prior, version_parents
from ratings.tally import Tally, merge, tally
from reports.pair_text import format_pairs
from reports.rating_tables import format_csv, format_json, format_table

DESCRIPTION = """\
Bayesian ratings: the Ordo-style model (draws count half a point, the first mover's advantage
and the draw rate for equal opponents fitted) with a Gaussian prior on every rating (sd
--prior points around the pool; a league version NAME@N around its previous version, sd
--parent-prior). RATING is the posterior's mode, ERROR the half-width of its 95% credible
interval. Every player gets a finite rating whatever the results; where the results only
order the players (a perfect ladder, a bot that won every game, a group that never scored
against another) the distances rest on the prior: those players are marked, their intervals
are wide, and the known order is stated under the table. With --prior off: maximum
likelihood like Ordo's (`ordo -a 0 -W -D`): a player who won (lost) every game gets a bounded
rating, and results that only order the players show `order` instead of a rating. "White
advantage" is the first mover's (p1's), whatever the game (Ordo's name, kept so that Ordo
readers parse our output); the "+/-" after it and after the draw rate is one standard
deviation. Unfinished games (*) are skipped.
"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "ratings",
        help="ratings and credible intervals (or Ordo-style) of runs, PGN files, leagues",
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
    parser.add_argument("--prior", metavar="SD|off", default=f"{DEFAULT_SD:g}",
                        help="width of every rating's prior in points (narrower is stronger; "
                        f"default {DEFAULT_SD:g}); off: maximum likelihood, as Ordo")
    parser.add_argument("--parent-prior", metavar="SD", type=float, default=DEFAULT_PARENT_SD,
                        help="width of a version NAME@N's prior around NAME's previous "
                        f"version (default {DEFAULT_PARENT_SD:g})")
    parser.set_defaults(func=run)


def parse_anchor(text: str) -> tuple[str, float]:
    name, sep, value = text.rpartition("=")
    if not sep or not name:
        raise UserError(f"--anchor: expected NAME=ELO, got {text!r}")
    try:
        return name, float(value)
    except ValueError:
        raise UserError(f"--anchor: rating {value!r} is not a number") from None


def parse_prior(text: str, parent_sd: float, players: list[str]) -> Prior | None:
    """``--prior`` and ``--parent-prior``: None for ``off``; versions ``NAME@N`` are centred on
    their previous version."""
    if text.strip().lower() == "off":
        return None
    try:
        sd = float(text)
    except ValueError:
        raise UserError(f"--prior: expected a width in points or 'off', got {text!r}") from None
    try:
        return Prior(sd=sd, parents=version_parents(players), parent_sd=parent_sd)
    except ValueError as exc:
        raise UserError(f"--prior/--parent-prior: {exc}") from None


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
    prior = parse_prior(args.prior, args.parent_prior, counts.players)
    if prior is not None and args.errors == "simulation":
        raise UserError("--errors simulation: replays are for the maximum-likelihood fit; "
                        "add --prior off")
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
            prior=prior,
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
