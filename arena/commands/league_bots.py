"""``arena league submit``, ``bots`` and ``retire``: a league's versions, added, listed, retired.

``submit`` makes a version ``NAME@N`` of a folder, an archive of one or a single source file
(copied, built, checked: :mod:`arena.league.submit`) or of an installed engine's command;
``bots`` lists every version with its state, games and rating (the last night's snapshot), and
for a rejected one the step, the one-line reason and the log; ``retire`` takes versions out of
the nights (they stay in the history and the ratings).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Final

import msgspec

from arena.commands._arguments import key_values
from arena.errors import UserError
from arena.league.lock import league_lock
from arena.leaguedir.directory import BUILD_LOG, CHECK_LOG, LeagueDir, is_league
from arena.leaguedir.leaguetoml import load_settings
from arena.leaguedir.standings import Rated, read_history
from arena.leaguedir.versions import Version, parse_label, read_versions, write_version
from arena.settings.config import OptionValue


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    submit = sub.add_parser(
        "submit", help="submit a bot's folder (or an installed engine) as a new version NAME@N",
        usage="arena league submit DIR NAME [FOLDER|FILE] [--protocol P] [--option K=V ...] "
        "[--author A] [-- CMD ...]",
        description="Copy FOLDER into the league's store (later edits of FOLDER change nothing "
        "that plays), run its bot.toml build in the sandbox, check it with check-bot's steps; "
        "the version is then active, or rejected with its step, reason and log. FILE instead "
        "of FOLDER: a .tar.gz, .tgz, .tar or .zip of the bot's folder, or one source file, "
        "unpacked as an uploaded one is (league.toml's upload limits). "
        "For an installed engine: arena league submit DIR NAME -- CMD ARGS...")
    submit.add_argument("dir", type=Path, help="the league directory")
    _submit_options(submit)
    submit.add_argument("rest", nargs=argparse.REMAINDER,
                        metavar="NAME [FOLDER|FILE] [-- CMD ...]",
                        help="the bot's name (letters, digits, '.', '_', '-'); its folder (its "
                        "bot.toml says cmd, build, protocol, options) or an archive of it or "
                        "one source file; and/or -- then the bot's command (relative to the "
                        "folder when there is one)")
    submit.set_defaults(func=run_submit)

    bots = sub.add_parser(
        "bots", help="list the versions: state, games, rating, and why a version was rejected",
        description="Every version of every bot: its state (pending, active, rejected, "
        "retired), games and rating after the last night, and for a rejected version the "
        "failing step, the one-line reason and its log.")
    bots.add_argument("dir", type=Path, help="the league directory")
    bots.set_defaults(func=run_bots)

    retire = sub.add_parser(
        "retire", help="take NAME (all its active versions) or NAME@N out of the nights",
        description="A retired version plays no more games; its games and rating stay in the "
        "history.")
    retire.add_argument("dir", type=Path, help="the league directory")
    retire.add_argument("label", metavar="NAME[@N]")
    retire.add_argument("--reason", default="", help="a note kept with the version")
    retire.set_defaults(func=run_retire)


def _submit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", choices=("native", "uci", "hub"), default=None,
                        help="the bot's protocol (default: bot.toml's, else native)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="an option of the bot, sent with setoption (repeatable; wins over "
                        "bot.toml's [options])")
    parser.add_argument("--author", default=None, help="who submitted it (default: bot.toml's)")
    parser.add_argument("--events", action="store_true",
                        help="tell each step as a JSON line on stdout (for programs: the web's "
                        "submission queue reads them) instead of a line of text")


def _league(path: Path) -> LeagueDir:
    if not is_league(path):
        raise UserError(f"{path}: not a league directory (no league.toml); create one with "
                        "arena league init")
    return LeagueDir(path)


def run_submit(args: argparse.Namespace) -> int:
    from arena.league.submit import Submission, SubmitEvent, encode_event, say_events, submit

    # NAME, FOLDER and the options after them land in the remainder (argparse drops a --
    # right after the positionals, and NAME -- CMD would read as NAME FOLDER): read them
    # here, the command after --.
    rest = list(args.rest)
    at = rest.index("--") if "--" in rest else len(rest)
    rest, cmd = rest[:at], rest[at + 1 :]
    if not rest:
        raise UserError("no bot name: arena league submit DIR NAME [FOLDER|FILE] [-- CMD ...]")
    parser = argparse.ArgumentParser(prog="arena league submit DIR", add_help=False)
    _submit_options(parser)
    parser.add_argument("name")
    parser.add_argument("folder", nargs="?", type=Path)  # or a file: an upload
    args.folder = None
    try:
        parser.parse_intermixed_args(rest, namespace=args)
    except SystemExit:
        raise UserError(f"bad arguments before '--': {' '.join(rest)}") from None
    league = _league(args.dir)
    settings = load_settings(league.config)
    options: dict[str, OptionValue] = {**key_values(args.option, "--option", "NAME=VALUE")}
    given: Path | None = args.folder
    upload = given if given is not None and given.is_file() else None

    def as_json(event: SubmitEvent) -> None:
        sys.stdout.write(encode_event(event).decode())
        sys.stdout.flush()

    version = submit(league, settings, Submission(
        name=args.name, folder=None if upload else given, upload=upload, cmd=cmd or None,
        protocol=args.protocol, options=options, author=args.author),
        as_json if args.events else say_events)
    return 0 if version.state == "active" else 1


def run_bots(args: argparse.Namespace) -> int:
    league = _league(args.dir)
    sys.stdout.write(bots_table(league))
    return 0


def bots_table(league: LeagueDir) -> str:
    """The versions as a table, one line each, a rejected version's reason and log under it."""
    versions = read_versions(league)
    if not versions:
        return "no bots yet: arena league submit DIR NAME FOLDER\n"
    history = read_history(league)
    rated: dict[str, Rated] = {r.player: r for r in history[-1].players} if history else {}
    place = {r.player: rank for rank, r in enumerate(history[-1].players, 1)} if history else {}
    rows = [("bot", "version", "state", "games", "rating", "author")]
    notes: dict[int, list[str]] = {}
    for v in versions:
        r = rated.get(v.label)
        rows.append((v.name, str(v.number), v.state, str(r.games) if r else "-",
                     _rating(r, place.get(v.label, 0)), v.author or "-"))
        if v.state == "rejected":
            folder = league.version_dir(v.name, v.number).relative_to(league.root)
            log = BUILD_LOG if v.step in ("build", "copy", "bot.toml") else CHECK_LOG
            notes[len(rows) - 1] = [f"{v.step or 'rejected'}: {v.reason}"]
            if (league.root / folder / log).is_file():  # none for a refused copy or upload
                notes[len(rows) - 1].append(f"log: {folder / log}")
        elif v.state == "retired" and v.reason:
            notes[len(rows) - 1] = [f"retired: {v.reason}"]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines: list[str] = []
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip())
        lines += [f"    {note}" for note in notes.get(i, [])]
    night = f"ratings after night {history[-1].night}" if history else "no night played yet"
    if any(row[4].startswith(ORDER_ONLY) for row in rows[1:]):
        night += (f"; {ORDER_ONLY}: the results so far rank these versions (#: the place) but "
                  "give no distance between some of them, so no rating on one scale; "
                  "'arena ratings DIR' shows the groups")
    return "\n".join(lines) + f"\n({night})\n"


ORDER_ONLY: Final = "order only"
"""The rating column of a version the results only place in an order (:mod:`ratings`:
no finite rating across groups that never scored against each other)."""


def _rating(r: Rated | None, place: int) -> str:
    if r is not None and r.rating is None and r.games > 0 and place:
        return f"{ORDER_ONLY}, #{place}"
    if r is None or r.rating is None:
        return "-"
    return f"{r.rating:.0f} ± {r.error:.0f}" if r.error is not None else f"{r.rating:.0f}"


def run_retire(args: argparse.Namespace) -> int:
    league = _league(args.dir)
    retired = retire(league, args.label, args.reason)
    for v in retired:
        print(f"{v.label}: retired")
    return 0


def retire(league: LeagueDir, label: str, reason: str = "") -> list[Version]:
    """Retire ``NAME@N``, or every active version of ``NAME``; an unknown name or number, or
    a version that is not active, is a :class:`UserError`."""
    try:
        name, number = parse_label(label)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    with league_lock(league):
        versions = [v for v in read_versions(league) if v.name == name]
        if not versions:
            known = sorted({v.name for v in read_versions(league)})
            raise UserError(f"no bot named {name!r} in {league.root}"
                            + (f" (bots: {', '.join(known)})" if known else ""))
        if number is None:
            chosen = [v for v in versions if v.state == "active"]
            if not chosen:
                raise UserError(f"{name} has no active version to retire")
        else:
            chosen = [v for v in versions if v.number == number]
            if not chosen:
                raise UserError(f"{name}@{number}: no such version (versions: "
                                f"{', '.join(str(v.number) for v in versions)})")
            if chosen[0].state != "active":
                raise UserError(f"{name}@{number} is {chosen[0].state}, not active: only an "
                                "active version can be retired")
        done = [msgspec.structs.replace(v, state="retired", retired_at=time.time(),
                                        reason=reason) for v in chosen]
        for v in done:
            write_version(league, v)
    return done
