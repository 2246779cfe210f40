"""Nobody reads what is not theirs: every path trick against every route of ``arena serve``
that sends a file, on real servers, with and without an author's login.

A league served with ``--submissions`` (and without), and a plain run, each ``arena serve`` as
a child process. Each route that sends a file (``/league/...``, ``/run/...``, ``/assets/...``,
``/game/KEY.pgn``, an author's ``/authors/NAME/logs/...`` and ``/authors/NAME/nights/...``)
is sent, over a raw socket so that nothing on the way tidies the path (as ``curl
--path-as-is``), a way to every file it must not send: the league's config, its authors' token
hashes, a stored bot's source, the build and stderr logs of another author's bot and of the
asker's own (never through these routes), transcripts, live files, a submission's log, a file
beside the league. The ways: ``..``, ``x/..``, ``%2e%2e`` in its spellings, ``%2f``, doubly
encoded ``%252e`` and ``%252f``, backslashes raw and as ``%5c``, overlong UTF-8, absolute
paths, and symbolic links planted inside the served folders (to each secret, to a hidden
folder, from an author's own log folder to another's; a hidden folder that is itself a link to
a served one). Every answer is a 404 (an author's route: 401 without a login, 403 or 404 with
one) and no answer holds a byte of any secret; the files that are served still are, an
author's own logs to that author. Last, a link swapped in between the check and the opening
of a file: the file opened is not the one checked, and is not sent.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_live_browser import served_url, started

from arena.league.authors import add_author, claim_bot
from arena.league.lock import league_lock
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.versions import Version, write_version
from arena.web.runfiles import file_response, open_version
from arena.web.served import Served, served_path

ARENA = [sys.executable, "-m", "arena.cli"]
N1, N2 = "2026-03-01", "2026-03-02"
"""Two nights: ``N2``, the newest, is the one ``/run/`` serves."""
STORE = "store/0123abcd"
SECRET = b"SECRET-"
OWN = b"ADA-OWN-"
"""Markers: every file nobody may read holds the first; ada's own logs hold the second (hers
on her page, nobody's through any other route)."""


@dataclass
class League:
    root: Path
    ada: str
    bob: str
    outside: Path
    hashes: list[bytes]
    """The authors' token hashes as ``authors.json`` holds them."""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def link(at: str, to: str, root: Path) -> None:
    """A symbolic link ``root/at`` pointing at ``to`` (relative to the link, or absolute)."""
    (root / at).parent.mkdir(parents=True, exist_ok=True)
    (root / at).symlink_to(to)


def make_league(tmp: Path) -> League:
    """A league with two authors (ada owns ``adabot``, bob ``bobbot``), each night's logs,
    transcripts and live files, a stored bot, a submission, the report's files, and links
    planted among the served files to each of the secrets."""
    root = tmp / "league"
    league = LeagueDir(root)
    write(root / "league.toml", 'game = "dobutsu"\ntc = "2+0.02"\n# SECRET-league-toml\n')
    ada, bob = add_author(league, "ada"), add_author(league, "bob")
    for label, author in (("adabot@1", "ada"), ("adabot@2", "ada"), ("bobbot@1", "bob")):
        name, number = label.split("@")
        with league_lock(league):  # as a submission does: the claim, then its version
            claim_bot(league, name, int(number), author)
            write_version(league, Version(name, int(number), ["./bot"], submitted_at=1.0e9,
                                          state="active", author=author))
        mark = "ADA-OWN" if author == "ada" else "SECRET"
        for log in ("build.log", "check.log"):
            write(league.version_dir(name, int(number)) / log, f"{mark}-{label}-{log}\n")
    write(root / STORE / "bot.py", "print('SECRET-stored-source')\n")
    write(root / "submissions/abc/progress.log", "SECRET-progress\n")
    write(root / "history.jsonl", "")
    write(root / "report.html", "<html>league report</html>")
    write(root / "report/real.txt", "a chart\n")
    write(root / "export/leaderboard.csv", "version,rating\n")
    for night in (N1, N2):
        run = league.night(night).root
        write(run / "night.json", json.dumps({"night": night}) + "\n")
        write(run / "report.html", f"<html>night {night}</html>")
        for bot, mark in (("adabot_1", "ADA-OWN"), ("bobbot_1", "SECRET")):
            write(run / "logs" / f"{bot}.stderr.log", f"{mark}-{night}-{bot}-pooled\n")
            if not (night == N1 and bot == "adabot_1"):  # a link there (below)
                write(run / "logs" / bot / "g1.stderr.log", f"{mark}-{night}-{bot}-g1\n")
        write(run / "live/g1.json", '{"SECRET-live": 1}\n')
        write(run / "config.toml", 'env = { KEY = "SECRET-night-config" }\n')
    write(root / f"nights/{N2}/transcripts/r1-p1-g1.log", "SECRET-transcript\n")
    # N1's transcripts are a link to a folder of the night: what it leads to is hidden too.
    write(root / f"nights/{N1}/tx-real/r1-p1-g1.log", "SECRET-linked-transcript\n")
    link(f"nights/{N1}/transcripts", "tx-real", root)
    outside = tmp / "outside.txt"
    outside.write_text("SECRET-beside-the-league\n")
    # Links planted among the served files, each to something never served.
    for at, to in [
        ("report/l-toml", "../league.toml"), ("report/l-authors", "../authors.json"),
        ("report/l-store", "../store"), ("report/l-check", "../bots/bobbot/1/check.log"),
        ("report/l-own", "../bots/adabot/1/check.log"),
        ("report/l-logs", f"../nights/{N1}/logs"), ("report/l-root", ".."),
        ("report/l-out", str(outside)), ("report/l-ok", "real.txt"),
        ("export/l-sub", "../submissions"),
        (f"nights/{N1}/report/l-live", f"../../{N2}/live"),
        (f"nights/{N1}/l-logs", "logs"),
        (f"nights/{N2}/l-authors", "../../authors.json"), (f"nights/{N2}/l-logs", "logs"),
        (f"nights/{N2}/l-transcripts", "transcripts"),
        # From ada's own log folders and files to bob's: she asks for hers, gets nothing.
        (f"nights/{N2}/logs/adabot_1/stolen.stderr.log", "../bobbot_1/g1.stderr.log"),
        (f"nights/{N1}/logs/adabot_1", "bobbot_1"),
    ]:
        link(at, to, root)
    (root / "bots/adabot/2/check.log").unlink()
    link("bots/adabot/2/check.log", "../../bobbot/1/check.log", root)
    os.mkfifo(root / "report/fifo")  # opening it must not hang the server
    hashes = [a["token_sha256"].encode()
              for a in json.loads(league.authors.read_text())["authors"]]
    assert len(hashes) == 2 and all(len(h) >= 40 for h in hashes)
    return League(root, ada, bob, outside, hashes)


SECRETS = [
    "league.toml", "authors.json", f"{STORE}/bot.py", "bots/bobbot/1/check.log",
    "bots/adabot/1/build.log", f"nights/{N1}/logs/bobbot_1/g1.stderr.log",
    f"nights/{N2}/logs/bobbot_1.stderr.log", f"nights/{N2}/logs/adabot_1/g1.stderr.log",
    f"nights/{N2}/transcripts/r1-p1-g1.log", f"nights/{N1}/tx-real/r1-p1-g1.log",
    f"nights/{N2}/live/g1.json", "submissions/abc/progress.log", "../outside.txt",
    f"nights/{N1}/config.toml", f"nights/{N2}/config.toml",
]
"""League-relative paths of files no file route may send (ada's own logs included: they
are hers on her page only)."""
ADA_OWN = frozenset({"bots/adabot/1/build.log", f"nights/{N2}/logs/adabot_1/g1.stderr.log"})
"""Of these, ada's: her own routes may send them to her (by their names, however spelt)."""

LINKED = [
    "report/l-toml", "report/l-authors", f"report/l-store/{STORE.split('/')[1]}/bot.py",
    "report/l-check", "report/l-own", "report/l-logs/bobbot_1/g1.stderr.log",
    "report/l-root/league.toml", "report/l-root/authors.json", "report/l-out",
    "report/fifo", "export/l-sub/abc/progress.log", f"nights/{N1}/report/l-live/g1.json",
    f"nights/{N1}/l-logs/bobbot_1.stderr.log", f"nights/{N1}/transcripts/r1-p1-g1.log",
    f"nights/{N1}/tx-real/r1-p1-g1.log",
]
"""League-relative paths, through planted links, that ``/league/`` must refuse."""

RUN_LINKED = ["l-authors", "l-logs/bobbot_1/g1.stderr.log",
              "l-transcripts/r1-p1-g1.log", "logs/adabot_1/stolen.stderr.log"]
"""The same through ``/run/`` (the newest night's folder)."""


def spellings(relative: str) -> list[str]:
    """``relative`` (``../x/y``), and ``x/..`` before it, in every way a URL can spell it."""
    out = []
    for path in (relative, "x/../" + relative):
        parts = path.split("/")

        def spell(dots: str, slash: str = "/", parts: list[str] = parts) -> str:
            return slash.join(dots if p == ".." else p for p in parts)

        out += [
            path, spell("%2e%2e"), spell(".%2E"), spell("..", "%2f"), spell("%2E%2e", "%2F"),
            spell("%252e%252e"), spell("..", "%252f"),  # doubly encoded: never decoded twice
            spell("..", "\\"), spell("%2e%2e", "%5c"),  # backslashes: names, not separators
            spell("%c0%ae%c0%ae", "%c0%af"),  # overlong UTF-8
        ]
    return out


def ways(prefix_dir: str, target: str, root: Path) -> list[str]:
    """URL tails that lead from the league-relative folder ``prefix_dir`` to ``target``."""
    relative = os.path.relpath(target, prefix_dir or ".")
    absolute = os.path.realpath(root / target)
    return [*spellings(relative), absolute, absolute.replace("/", "%2f"),
            "/" + absolute.lstrip("/")]


Headers = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Ask:
    target: str
    headers: Headers
    statuses: frozenset[int]
    """The answers allowed (each refusal)."""


def raw_get(port: int, target: str, headers: Headers) -> tuple[int, bytes]:
    """One GET of ``target`` exactly as written (nothing normalised), and the whole answer."""
    lines = [f"GET {target} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
             *(f"{k}: {v}" for k, v in headers), "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall("\r\n".join(lines).encode("latin-1"))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


def ask_all(port: int, asks: list[Ask], secrets: list[bytes]) -> list[str]:
    """Each ask sent; what went wrong (a status not allowed, a secret in an answer)."""

    def one(ask: Ask) -> str | None:
        status, data = raw_get(port, ask.target, ask.headers)
        leaked = [s.decode() for s in secrets if s in data]
        if status in ask.statuses and not leaked:
            return None
        return f"{ask.target} {dict(ask.headers)}: {status} {leaked} {data[-200:]!r}"

    with ThreadPoolExecutor(4) as pool:
        return [r for r in pool.map(one, asks) if r is not None]


@contextmanager
def serving(argv: list[str], log: Path) -> Iterator[int]:
    with started(argv, log) as proc:
        url = served_url(log, proc)
        yield int(url.rstrip("/").rsplit(":", 1)[1])


def get(port: int, path: str, headers: Headers = ()) -> tuple[int, bytes]:
    status, data = raw_get(port, path, headers)
    return status, data.partition(b"\r\n\r\n")[2]


@pytest.mark.slow
@pytest.mark.parametrize("submissions", [True, False], ids=["submissions", "plain"])
def test_no_route_of_a_league_server_sends_what_is_not_served(tmp_path: Path,
                                                               submissions: bool) -> None:
    lg = make_league(tmp_path)
    argv = [*ARENA, "serve", str(lg.root), "--port", "0", "--no-report",
            *(["--submissions"] if submissions else [])]
    cookie: Headers = (("Cookie", f"arena_author={lg.ada}"),)
    bearer: Headers = (("Authorization", f"Bearer {lg.ada}"),)
    bob: Headers = (("Authorization", f"Bearer {lg.bob}"),)
    logins: list[Headers] = [(), cookie] if submissions else [()]
    with serving(argv, tmp_path / "serve.log") as port:
        # What is served still is (and a path through x/.. that stays inside it).
        for path in ("/league/report.html", "/league/report/real.txt", "/league/report/l-ok",
                     "/league/report/x/../real.txt", "/league/report/%2e%2e/report.html",
                     "/league/export/leaderboard.csv", f"/league/nights/{N1}/report.html",
                     "/run/night.json", "/run/report.html"):
            status, body = get(port, path)
            assert status == 200 and SECRET not in body and OWN not in body, (path, body)
        own = ["/authors/ada/logs/adabot/1/check.log",
               f"/authors/ada/nights/{N2}/logs/adabot_1.stderr.log",
               f"/authors/ada/nights/{N2}/logs/adabot_1/g1.stderr.log"]
        if submissions:  # ada's own logs are hers, on her page: to her only
            for path in own:
                for login in (cookie, bearer):
                    status, body = get(port, path, login)
                    assert status == 200 and OWN in body and SECRET not in body, (path, body)
                assert get(port, path)[0] == 401
                assert get(port, path, bob)[0] == 403
        else:
            assert all(get(port, path, bearer)[0] == 404 for path in own)

        asks: list[Ask] = []
        files = frozenset({404})
        routes = [("/league/", ""), ("/league/report/", "report"), ("/league/export/", "export"),
                  ("/league/nights/", "nights"), (f"/league/nights/{N1}/", f"nights/{N1}"),
                  (f"/league/nights/{N1}/report/", f"nights/{N1}/report"),
                  ("/run/", f"nights/{N2}"), ("/run/report/", f"nights/{N2}/report"),
                  ("/assets/", "assets"), ("/game/", "nights")]
        authors = [(f"/authors/ada/nights/{N2}/logs/", f"nights/{N2}/logs"),
                   (f"/authors/ada/nights/{N2}/transcripts/", f"nights/{N2}/transcripts"),
                   (f"/authors/ada/nights/{N1}/logs/adabot_1/", f"nights/{N1}/logs/adabot_1"),
                   ("/authors/ada/logs/adabot/1/", "bots/adabot/1"),
                   (f"/authors/bob/nights/{N1}/logs/", f"nights/{N1}/logs")]
        for login in logins:
            for prefix, folder in routes:
                suffix = ".pgn" if prefix == "/game/" else ""
                asks += [Ask(prefix + way + suffix, login, files)
                         for target in SECRETS for way in ways(folder, target, lg.root)]
            asks += [Ask("/league/" + way, login, files) for way in LINKED]
            asks += [Ask("/run/" + way, login, files) for way in RUN_LINKED]
            # An author's routes (when the path fits one): without a login 401; with ada's,
            # 403 on bob's page, and on hers 403 (not a name of hers) or 404 (not found
            # where it is named).
            mine = files
            if submissions:
                mine = files | ({403} if login else {401})
            for prefix, folder in authors:
                hers = login and prefix.startswith("/authors/ada/")
                for by in ((login, bearer) if login else (login,)):
                    asks += [Ask(prefix + way, by, mine) for target in SECRETS
                             if not (hers and target in ADA_OWN)
                             for way in ways(folder, target, lg.root)]
            asks += [Ask(path, login, mine) for path in (
                f"/authors/ada/nights/{N2}/logs/adabot_1/stolen.stderr.log",
                f"/authors/ada/nights/{N1}/logs/adabot_1/g1.stderr.log",
                "/authors/ada/logs/adabot/2/check.log")]
        failures = ask_all(port, asks, [SECRET, OWN, *lg.hashes])
        print(f"{len(asks)} requests, {len(failures)} answered wrongly")
        assert not failures, "\n".join(failures[:30])
        assert get(port, "/league/report.html")[0] == 200  # the server is still well


@pytest.mark.slow
def test_no_route_of_a_run_server_sends_what_is_outside_the_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write(run / "games.jsonl", "")
    write(run / "report.html", "<html>run report</html>")
    write(run / "logs/bot_1.stderr.log", "the run's own log\n")
    write(tmp_path / "secret.txt", "SECRET-beside-the-run\n")
    write(tmp_path / "run-secret/x.txt", "SECRET-a-folder-whose-name-begins-alike\n")
    write(tmp_path / "secret-folder/y.txt", "SECRET-in-a-linked-folder\n")
    link("report/l-out", "../../secret.txt", run)
    link("l-dir", "../secret-folder", run)
    link("report/l-up", "../..", run)
    link("l-abs", str(tmp_path / "secret.txt"), run)
    argv = [*ARENA, "serve", str(run), "--port", "0", "--no-report"]
    with serving(argv, tmp_path / "serve.log") as port:
        for path in ("/run/report.html", "/run/logs/bot_1.stderr.log", "/run/x/../report.html"):
            assert get(port, path)[0] == 200, path
        targets = ["secret.txt", "run-secret/x.txt", "secret-folder/y.txt"]
        files = frozenset({404})
        asks = [Ask(prefix + way + (".pgn" if prefix == "/game/" else ""), (), files)
                for prefix, folder in (("/run/", "run"), ("/run/report/", "run/report"),
                                       ("/run/logs/", "run/logs"), ("/assets/", "run"),
                                       ("/game/", "run"))
                for target in targets for way in ways(folder, target, tmp_path)]
        asks += [Ask("/run/" + way, (), files) for way in (
            "report/l-out", "l-dir/y.txt", "report/l-up/secret.txt", "l-abs")]
        failures = ask_all(port, asks, [SECRET])
        print(f"{len(asks)} requests, {len(failures)} answered wrongly")
        assert not failures, "\n".join(failures[:30])


def test_a_link_swapped_in_after_the_check_is_not_followed(tmp_path: Path) -> None:
    """The path is checked, then a folder on its way becomes a link to a secret folder before
    the file is opened: the file opened is not the one checked, and nothing is sent. The
    same for the checked file itself made a link."""
    root = tmp_path / "league"
    write(root / "report/chart.txt", "a chart\n")
    write(tmp_path / "secrets/chart.txt", "SECRET-swapped-in\n")
    served = Served(("report",))
    checked = served_path(root, "report/chart.txt", served)
    assert checked == (root / "report/chart.txt").resolve()
    assert open_version(checked) is not None  # untouched, it opens
    (root / "report").rename(root / "old-report")
    (root / "report").symlink_to(tmp_path / "secrets")
    assert open_version(checked) is None
    assert file_response(checked).status_code == 404
    (root / "report").unlink()
    write(root / "report/other.txt", "another chart\n")
    (root / "report/chart.txt").symlink_to(tmp_path / "secrets/chart.txt")
    assert open_version(checked) is None
    # Resolved now, the same path is refused before anything is opened.
    assert served_path(root, "report/chart.txt", served) is None
    assert served_path(root, "report/other.txt", served) is not None
