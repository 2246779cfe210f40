"""``arena league tune DIR NAME@N TUNE.toml``: tune a stored version's options as the league
plays it (:mod:`arena.tune.leagueform`), then print the command that submits the tuned
values as the bot's next version. ``TUNE.toml`` holds only ``[tune]`` (docs/tune.md); the
tune runs in ``DIR/tunes/NAME-N`` unless ``--output`` says otherwise. Exit status as
``arena tune``'s."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.say import error_on, say_on, warn_on


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("tune", help="tune a stored version's options (SPSA), then prove "
                            "the tune; prints how to submit the result",
                            description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("dir", type=Path, help="the league directory")
    parser.add_argument("label", metavar="NAME[@N]", help="the version (default: the newest)")
    parser.add_argument("tune_file", metavar="TUNE.toml", type=Path,
                        help="a file holding only [tune]")
    parser.add_argument("-o", "--output", type=Path, help="output directory")
    parser.add_argument("-j", "--concurrency", type=int, help="games at once")
    parser.add_argument("--plain", action="store_true", help="one line per game")
    parser.add_argument("--no-report", action="store_true", help="do not build the HTML report")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arena.rundir.tunelog import read_tune_log
    from arena.tune.leagueform import default_output, league_tune_config, submit_hint
    from arena.tune.session import TuneSettings, run_tune

    say = say_on()
    loaded, version = league_tune_config(args.dir, args.label, args.tune_file)
    outcome = run_tune(TuneSettings(
        config=loaded, output=args.output or default_output(args.dir, version),
        concurrency=args.concurrency, plain=args.plain, report=not args.no_report,
        say=say, warn=warn_on(), error=error_on()))
    log = read_tune_log(outcome.run_dir.tune_log)
    if log.tuned is not None and log.began is not None:
        values = dict(zip(log.began.options, log.tuned.values, strict=True))
        say(f"arena: submit the tuned values as {version.name}'s next version with:\n  "
            + submit_hint(args.dir, version, values))
    return outcome.status
