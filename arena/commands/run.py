"""``arena run CONFIG.toml``: play (or resume) a tournament and write its journal, PGN and report.

Output directory (``--output``, else the config's ``output``, else ``runs/<config name>``):
``games.jsonl`` (the journal: one game record per line, the source of truth), ``games.pgn``
(rebuilt from the journal on every start, then appended game by game), ``logs/`` (the bots'
stderr), ``config.toml`` (the config used) and ``schedule.json`` (the games and the
fingerprint that guards resume), ``sessions.jsonl`` (when each session started and ended,
the arena version and concurrency, for the report). Running the same command again resumes:
only the games missing from the journal are played.

Exit status: 0 when the schedule is complete, 1 when games failed or are missing, 2 for a
mistake in the command or the config, 3 when the machine or the arena failed (bots that
cannot be started for want of files, processes or memory; a full disk), 130 when stopped.

With ``--cluster`` the games are played by the workers of a Dask cluster
(``arena.cluster.executor``) and everything else stays here. The playing itself is the
library's: :func:`arena.run.driver.run_tournament`; this module parses the arguments.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.run.driver import RunSettings, run_tournament
from arena.say import error_on, say_on, warn_on


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "run",
        help="play a tournament from a TOML config (resumes an existing output directory)",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("config", type=Path, help="tournament config (see examples/*.toml)")
    parser.add_argument("-o", "--output", type=Path, help="output directory (overrides 'output')")
    parser.add_argument("-j", "--concurrency", type=int, help="games at once (overrides config)")
    parser.add_argument("--plain", action="store_true", help="one line per game even on a terminal")
    parser.add_argument("--no-report", action="store_true", help="do not build the HTML report")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the games on a Dask cluster: local:N (N worker processes here) or "
        "tcp://HOST:8786 (a running scheduler); everything else stays on this machine",
    )
    parser.add_argument(
        "--referees",
        type=int,
        metavar="N",
        help="referee processes here, each playing whole games with its own bots (default: "
        "one per 8 games at once, at most one per two cores)",
    )
    parser.add_argument(
        "--think-slots",
        type=int,
        metavar="N",
        help="at most N bots think on a clock at once; a game waits for a slot before its "
        "go, with its clocks stopped (default: the config's think_slots, else the cores; "
        "0: no limit)",
    )
    parser.add_argument("--debug", action="store_true",
                        help="write every bot's protocol lines to transcripts/<game>.log "
                        "(as 'debug = true' on each bot)")
    # The collector stays off until the games begin (arena.startup): the driver settles it.
    parser.set_defaults(func=run, settles=True)


def run(args: argparse.Namespace) -> int:
    return run_tournament(RunSettings(
        config=args.config,
        output=args.output,
        concurrency=args.concurrency,
        plain=args.plain,
        report=not args.no_report,
        cluster=args.cluster,
        referees=args.referees,
        think_slots=args.think_slots,
        debug=args.debug,
        say=say_on(),
        warn=warn_on(),
        error=error_on(),
    )).status
