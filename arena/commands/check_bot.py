"""``arena check-bot``: numbered protocol conformance steps for one bot, PASS/FAIL each.

The steps and their typed result are the library's (:mod:`arena.bots.conformance`); this
command turns its arguments into a bot spec, prints the check's log as it comes and exits 1
when a step failed.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import trio

from arena.bots.conformance import check
from arena.commands._arguments import key_values
from arena.errors import UserError
from referee.botspec import BotSpec
from referee.games import game_names


def bot_name(cmd: list[str]) -> str:
    """The bot's own name for messages: its script or program file (``python3 mybot.py`` is
    ``mybot.py``), not the interpreter."""
    for arg in cmd[1:]:
        if not arg.startswith("-") and Path(arg).is_file():
            return Path(arg).name
    return Path(cmd[0]).name


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "check-bot", help="check that a bot speaks the protocol (numbered PASS/FAIL steps)",
        description="Run protocol conformance steps against a bot: arena check-bot GAME -- CMD",
    )
    parser.add_argument("game", choices=game_names())
    _add_options(parser)
    parser.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the bot's command")
    parser.set_defaults(func=run)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", choices=("native", "uci", "hub"), default="native")
    parser.add_argument("--variant", help="UCI_Variant value (uci protocol; default: the game)")
    parser.add_argument("--no-legal", action="store_true", help="do not send 'legal' lines")
    parser.add_argument("--cwd", help="the bot's working directory (Scan: its own folder)")
    parser.add_argument("--bot-option", action="append", default=[], metavar="NAME=VALUE",
                        help="set the bot's option NAME to VALUE instead of its default, "
                        "from the handshake on (repeatable)")


def run(args: argparse.Namespace) -> int:
    cmd = list(args.cmd)
    if "--" in cmd:
        # options written after GAME land in the remainder: read them here
        at = cmd.index("--")
        options = argparse.ArgumentParser(prog="arena check-bot GAME", add_help=False)
        _add_options(options)
        try:
            options.parse_args(cmd[:at], namespace=args)
        except SystemExit:
            raise UserError(f"bad options before '--': {' '.join(cmd[:at])}") from None
        cmd = cmd[at + 1 :]
    if not cmd:
        raise UserError("no bot command: use arena check-bot GAME -- CMD ARGS...")
    if args.protocol == "hub" and args.game != "draughts":
        raise UserError(f"the hub protocol is for draughts engines; it cannot play {args.game}")
    bot_options: dict[str, str | int | float | bool] = {
        **key_values(args.bot_option, "--bot-option", "NAME=VALUE")}
    spec = BotSpec(name=bot_name(cmd), cmd=cmd, protocol=args.protocol, variant=args.variant,
                   legal=not args.no_legal, cwd=args.cwd, options=bot_options)
    with tempfile.TemporaryDirectory(prefix="arena-check-") as tmp:
        result = trio.run(check, spec, args.game, Path(tmp) / "stderr.log")
    print("all steps passed" if result.passed else "the bot failed a step")
    return 0 if result.passed else 1
