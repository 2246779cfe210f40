"""``arena serve RUN_DIR``: a web page that follows a tournament live (or shows a finished one).

The page updates without a reload (server-sent events): standings and crosstable as games
finish, the boards of the games in progress move by move, and every finished game opens in
the report's viewer. It reads only the files ``arena run`` writes (the journal and one live
file per running game), so it can start before, during or after the run, and the tournament
never waits for it. ``--play GAME --bot CMD`` seats you against a bot instead.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import trio

from arena.commands._arguments import key_values
from arena.errors import UserError
from arena.leaguedir.directory import LeagueDir, is_league
from arena.rundir.layout import RunDir


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "serve", help="a live web page of a run (or, with --play, a game against a bot)",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("run_dir", nargs="?", type=Path,
                        help="the run's output directory, or a league directory (its report, "
                        "and its newest night live at /live)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default "
                        "127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    parser.add_argument("--submissions", action="store_true",
                        help="on a league: authors log in with their token, upload bots and "
                        "read their own page (arena league author add gives tokens)")
    parser.add_argument("--origin", metavar="URL",
                        help="the public address of a reverse proxy in front of this server "
                        "(e.g. https://arena.example.org): its requests are accepted, and "
                        "with https the login cookie is sent over TLS only")
    parser.add_argument("--no-report", action="store_true",
                        help="do not rebuild the report as games finish")
    parser.add_argument("--play", metavar="GAME", help="play GAME against --bot in the browser")
    parser.add_argument("--bot", metavar="CMD", help="the bot's command line (with --play)")
    parser.add_argument("--tc", default="300+5", help="time control for both sides (with "
                        "--play; cutechess style, default 300+5: 5 minutes plus 5 s a move)")
    parser.add_argument("--human", choices=("p1", "p2"), default="p1",
                        help="the side you play in the first game (then colours alternate)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="game option, e.g. target=2 for donkan (with --play)")
    parser.add_argument("--out", type=Path, help="directory for the games' records (with --play)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    if args.play:
        if not args.bot:
            raise UserError("--play needs --bot CMD: the bot you play against")
        from arena.web.humanplay import play_app

        app, background = play_app(args.play, shlex.split(args.bot), tc=args.tc,
                                   human=0 if args.human == "p1" else 1,
                                   options=key_values(args.option, "--option"), out=args.out)
        what = f"{args.play} against {args.bot}"
    else:
        if args.run_dir is None:
            raise UserError("give a RUN_DIR (the output directory of 'arena run'), or --play")
        run_dir = args.run_dir
        if is_league(run_dir):
            return serve_league(args)
        if args.submissions:
            raise UserError(f"--submissions: {run_dir} is not a league directory (no "
                            "league.toml)")
        files = RunDir(run_dir)
        if not files.journal.exists() and not files.schedule.exists():
            raise UserError(f"{run_dir}: not a run directory (no {files.journal.name} or "
                            f"{files.schedule.name})")
        from arena.web.app import live_app
        from arena.web.watch import RunWatcher

        watcher = RunWatcher(run_dir, rebuild_report=not args.no_report)
        app, background = live_app(run_dir, watcher), watcher.run
        what = str(run_dir)
    return _serve(args, app, background, what)


def serve_league(args: argparse.Namespace) -> int:
    """The league's report at ``/``, its newest night live at ``/live``, and with
    ``--submissions`` the authors' login, uploads and pages."""
    from arena.web.leaguesite import league_app, newest_night
    from arena.web.watch import RunWatcher

    league = LeagueDir(args.run_dir)
    hosts, https = _public_origin(args.origin)
    submissions = _submissions(league, https) if args.submissions else None
    if not league.report_page.exists():
        from arena.league.night import build_league_report_quietly

        build_league_report_quietly(league, lambda text: None,
                                    lambda text: print(f"arena: warning: {text}"))
    night = newest_night(league)
    watcher = None if night is None else RunWatcher(night, rebuild_report=not args.no_report)
    app = league_app(league, watcher, submissions, hosts)
    extra = f"; night {night.name} live at /live" if night is not None else ""
    if submissions is not None:
        extra += "; authors log in at /login"
    tasks = [t for t in (None if watcher is None else watcher.run,
                         None if submissions is None else submissions.queue.run) if t]

    async def background() -> None:
        async with trio.open_nursery() as nursery:
            for task in tasks:
                nursery.start_soon(task)

    return _serve(args, app, background if tasks else None, f"league {league.root}{extra}")


def _public_origin(origin: str | None) -> tuple[frozenset[str], bool]:
    """``--origin URL``: (its host name, whether it is https)."""
    if origin is None:
        return frozenset(), False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"--origin {origin!r}: give the public address, e.g. "
                        "https://arena.example.org")
    return frozenset({parts.hostname.lower()}), parts.scheme == "https"


def _submissions(league: LeagueDir, https: bool) -> Any:
    """The submission routes' settings and queue, from ``league.toml``."""
    from arena.leaguedir.leaguetoml import load_settings
    from arena.web.queue import SubmissionQueue
    from arena.web.submissions import Submissions

    policy = load_settings(league.config).policy
    return Submissions(league=league, queue=SubmissionQueue(league, policy.pending_per_author),
                       upload_bytes=policy.upload_mb << 20, secure_cookie=https)


def _serve(args: argparse.Namespace, app: Any, background: Any, what: str) -> int:
    from arena.web.app import listening_socket

    try:
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        raise UserError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"arena: serving {what} at http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
    from arena.web.app import serve

    try:
        trio.run(serve, app, sock, background)
    finally:
        # Hypercorn closed the descriptor it was given (``fd://``) when it stopped: closing
        # it again failed with EBADF after every Ctrl-C, or could close a descriptor reused
        # since. Forget it instead (a server that never started leaves it to the exit).
        sock.detach()
    return 0


