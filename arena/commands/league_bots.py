"""``arena league submit``, ``bots`` and ``retire``: a league's versions, added, listed, retired.

``submit`` makes a version ``NAME@N`` of a folder, an archive of one or a single source file
(copied, built, checked: :mod:`arena.league.submit`) or of an installed engine's command;
``bots`` lists every version, best rated first, with its state, games, rating and interval and
its verdict against its parent (the last night's snapshot), and for a rejected one the step,
the one-line reason and the log; ``retire`` takes versions out of
the nights (they stay in the history and the ratings).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from arena.commands._arguments import key_values
from arena.errors import UserError
from arena.leaguedir.directory import BUILD_LOG, CHECK_LOG, LeagueDir, is_league
from arena.leaguedir.leaguetoml import load_settings
from arena.leaguedir.standings import ParentTest, Rated, read_history
from arena.leaguedir.versions import read_versions, version_folder
from arena.settings.config import OptionValue
from ratings.model import ON_PRIOR, PRIOR_ONLY


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
        "bots", help="list the versions: rank, rating, verdict vs parent, and why a version "
        "was rejected",
        description="Every version of every bot, best rated first: its state (pending, "
        "active, rejected, retired), games, rating and 95%% interval after the last night, "
        "its verdict against its previous version, a regression mark, and for a rejected "
        "version the failing step, the one-line reason and its log.")
    bots.add_argument("dir", type=Path, help="the league directory")
    bots.set_defaults(func=run_bots)

    retire = sub.add_parser(
        "retire", help="take NAME (all its active versions) or NAME@N out of the nights",
        description="A retired version plays no more games; its games and rating stay in the "
        "history.")
    retire.add_argument("dir", type=Path, help="the league directory")
    retire.add_argument("label", metavar="NAME[@N]")
    retire.add_argument("--reason", default="", help="a note kept with the version")
    retire.add_argument("--author", default=None,
                        help="retire as this author: only their own versions of their own "
                        "bots (without it: as the league's owner, any version)")
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
    """The versions as a table, one line each, best rated first (the last night's snapshot:
    rank, rating and 95% interval, the verdict against the parent), then the versions
    without a rating; a rejected version's reason and log, a regression, under its line."""
    versions = read_versions(league)
    if not versions:
        return "no bots yet: arena league submit DIR NAME FOLDER\n"
    history = read_history(league)
    last = history[-1] if history else None
    rated: dict[str, Rated] = {r.player: r for r in last.players} if last else {}
    place = {r.player: rank for rank, r in enumerate(last.players, 1)} if last else {}
    tests = {t.version: t for t in last.tests} if last else {}
    ordered = sorted(versions, key=lambda v: (place.get(v.label, len(place) + 1),
                                              v.name, v.number))
    rows = [("#", "bot", "version", "state", "games", "rating", "verdict vs parent", "author")]
    notes: dict[int, list[str]] = {}
    for v in ordered:
        r = rated.get(v.label)
        test = tests.get(v.label)
        rows.append((str(place[v.label]) if v.label in place else "-", v.name,
                     str(v.number) if v.number else f"#{v.attempt}", v.state,
                     str(r.games) if r else "-", _rating(r),
                     _verdict(test) if test else "-", v.author or "-"))
        at = len(rows) - 1
        if v.notice:
            notes[at] = [f"note: {v.notice}"]
        if v.state == "rejected":
            folder = version_folder(league, v).relative_to(league.root)
            log = BUILD_LOG if v.step in ("build", "copy", "bot.toml") else CHECK_LOG
            notes[at] = [f"{v.step or 'rejected'}: {v.reason}"]
            if (league.root / folder / log).is_file():  # none for a refused copy or upload
                notes[at].append(f"log: {folder / log}")
        elif v.state == "retired" and v.reason:
            notes[at] = [f"retired: {v.reason}"]
        if test is not None and test.outcome != "undecided":
            notes.setdefault(at, []).append(f"vs {test.parent}: {test.text}")
        if r is not None and r.regression:
            notes.setdefault(at, []).append(f"REGRESSION: {r.regression}")
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines: list[str] = []
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip())
        lines += [f"    {note}" for note in notes.get(i, [])]
    night = f"ratings after night {last.night}" if last else "no night played yet"
    if any(r.mark in (ON_PRIOR, PRIOR_ONLY) for r in rated.values()):
        night += (f"; *: the rating {ON_PRIOR_TEXT} (the results alone only order it, or it "
                  "has no games yet): a wide interval; 'arena ratings DIR' shows the known "
                  "order")
    return "\n".join(lines) + f"\n({night})\n"


ON_PRIOR_TEXT: Final = "rests on the prior"
"""The words for a rating whose distance to the others comes from the prior, not from games
(the league report says the same)."""


def _rating(r: Rated | None) -> str:
    """``+120 ± 45``, a ``*`` when it rests on the prior; ``order only`` in a history written
    before the league's fit was Bayesian."""
    if r is None:
        return "-"
    if r.rating is None:
        return "order only" if r.games else "-"
    text = f"{r.rating:+.0f} ± {r.error:.0f}" if r.error is not None else f"{r.rating:+.0f}"
    return text + (" *" if r.mark in (ON_PRIOR, PRIOR_ONLY) else "")


def _verdict(test: ParentTest) -> str:
    """``better (LLR 3.1)``, ``worse (LLR -3.0)``, ``undecided after 40 games (LLR 0.4)``."""
    if test.outcome == "undecided":
        stopped = "stopped " if test.closed else ""
        return f"{stopped}undecided after {test.games} games (LLR {test.llr:.2f})"
    outcome = "worse" if test.worse else test.outcome
    return f"{outcome} (LLR {test.llr:.2f}, {test.games} games)"


def run_retire(args: argparse.Namespace) -> int:
    from arena.league.retire import retire

    league = _league(args.dir)
    retired = retire(league, args.label, args.reason, args.author)
    for v in retired:
        print(f"{v.label}: retired")
    return 0
