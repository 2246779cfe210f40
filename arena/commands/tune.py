"""``arena tune CONFIG.toml``: tune a bot's options by games (SPSA), then prove the tune.

The config is a tournament config with a ``[tune]`` section (docs/tune.md): the bot, the
options to move (each with its start, its steps, and its range when the bot does not declare
one) and the budget in games. The bot with ``θ + c Δ`` plays itself with ``θ - c Δ`` in colour
pairs, ``θ`` moves with each pair's result; then the tuned values play the start values until
an SPRT decides. The run directory holds what a run's does (journal, PGN, logs, report) and
``tune.jsonl`` (every iteration's values), ``tuned-bots.toml`` (the tuned bot as a bots-file
entry) and ``report/tune.html``. Running the same command again resumes.

Exit status: 0 once the proof has decided (or stopped at its most games), 1 when games
failed or are missing, 2 for a mistake in the command or the config, 3 when the machine or the
arena failed, 130 when stopped.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.say import error_on, say_on, warn_on


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "tune",
        help="tune a bot's options by games (SPSA), then prove the tune with an SPRT",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("config", type=Path, help="tournament config with a [tune] section")
    parser.add_argument("-o", "--output", type=Path, help="output directory (overrides 'output')")
    parser.add_argument("-j", "--concurrency", type=int, help="games at once (overrides config)")
    parser.add_argument("--plain", action="store_true", help="one line per game even on a terminal")
    parser.add_argument("--no-report", action="store_true", help="do not build the HTML report")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play the games on a Dask cluster: local:N or tcp://HOST:8786")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arena.tune.session import TuneSettings, run_tune

    return run_tune(TuneSettings(
        config=args.config, output=args.output, concurrency=args.concurrency,
        plain=args.plain, report=not args.no_report, cluster=args.cluster,
        say=say_on(), warn=warn_on(), error=error_on(),
    )).status
