"""``arena league run DIR``: play one night of the league (or resume the open one); with
``--nightly``, every night on a schedule (:mod:`arena.league.nightly`).

Exit status as ``arena run``: 0 when the night closed (its budget spent, its ratings stored,
its report built), 1 when games failed (run again to play them), 2 for a mistake in the
command or ``league.toml``, 3 on a fault of the machine or the arena, 130 when stopped (run
again to resume the night).
"""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Callable
from pathlib import Path

from arena.errors import UserError


def _clock_time(text: str) -> datetime.time:
    try:
        return datetime.time.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected HH:MM (a time of day), got {text!r}") from None


def _positive(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    """An argparse type: a positive ``kind``, with a one-line error naming the value."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value
    return parse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run", help="play one night (or resume the open one) into DIR/nights/<date>/; "
        "with --nightly, every night on a schedule",
        description="Play one night: new versions first play placement games against a "
        "spread of the field, then the night pairs versions where the ratings are least "
        "known. Without --until, --hours or --games the night plays league.toml's "
        "night_games. Stopped (Ctrl-C, SIGKILL), the same command resumes it exactly. With "
        "--nightly the command stays: it opens a night at each window's start, closes it at "
        "the window's end and sleeps until the next.")
    p.add_argument("dir", type=Path, metavar="DIR")
    budget = p.add_argument_group("how long the night lasts (the first one reached ends it)")
    budget.add_argument("--until", type=_clock_time, metavar="HH:MM",
                        help="start no game that cannot finish before this time of day")
    budget.add_argument("--hours", type=_positive(float), metavar="H",
                        help="start no game that cannot finish within H hours")
    budget.add_argument("--games", type=_positive(int), metavar="N",
                        help="play N games (rounded up to whole colour pairs)")
    p.add_argument("--nightly", nargs="?", const="", metavar="HH:MM-HH:MM",
                   help="play every night from START to END (local time; e.g. 22:00-07:00, "
                   "the end on the next day when not later), until stopped; without a value, "
                   "league.toml's [league] schedule")
    p.add_argument("--night", metavar="NAME",
                   help="the night's folder name (default: today's date, or the open night)")
    p.add_argument("-j", "--concurrency", type=_positive(int), metavar="N",
                   help="games at once (default: league.toml's concurrency)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="play on a Dask cluster: local:N or tcp://HOST:8786")
    p.add_argument("--referees", type=_positive(int), metavar="N",
                   help="referee processes here, each playing whole games with its own bots "
                   "(default: one per 8 games at once, at most one per two cores)")
    p.add_argument("--think-slots", type=int, metavar="N",
                   help="at most N bots think on a clock at once (default: league.toml's "
                   "think_slots, else the cores; 0: no limit)")
    p.add_argument("--plain", action="store_true", help="one line per game, no live display")
    p.add_argument("--no-report", action="store_true", help="build no reports")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arena.league.night import NightSettings, run_night

    if args.night is not None and ("/" in args.night or args.night.startswith(".")):
        raise UserError(f"--night {args.night!r}: a folder name, without '/' or a leading '.'")
    settings = NightSettings(
        league=args.dir, until=args.until, hours=args.hours, games=args.games,
        night=args.night, concurrency=args.concurrency, cluster=args.cluster,
        referees=args.referees, think_slots=args.think_slots, plain=args.plain,
        report=not args.no_report)
    if args.nightly is None:
        return run_night(settings).status
    from arena.league.nightly import NightlySettings, run_nightly
    from arena.leaguedir.nightwindow import parse_window

    clash = [flag for flag, value in (("--until", args.until), ("--hours", args.hours),
                                      ("--night", args.night)) if value is not None]
    if clash:
        raise UserError(f"--nightly decides when each night ends and its name; drop "
                        f"{' and '.join(clash)}")
    try:
        window = parse_window(args.nightly) if args.nightly else None
    except ValueError as exc:
        raise UserError(f"--nightly {args.nightly}: {exc}") from None
    return run_nightly(NightlySettings(night=settings, window=window))
