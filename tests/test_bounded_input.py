"""Bad input that must not cost the machine (issue 22, "Bounded input"): ``arena ratings`` on
a gigabyte of random bytes fails at once in little memory; a schedule, a time control or a
limit too large for what holds it is a one-line config error naming file, key and value; a
second record of one game id stops ``arena ratings`` as it stops resume; and ``arena serve``
refuses a state-changing request that does not come from its own page."""

from __future__ import annotations

import http.client
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_live_browser import served_url, started

from arena.errors import UserError
from arena.formats.schedule import build_schedule
from arena.rundir.journal import load
from arena.rundir.results import MAX_JOURNAL_LINE_BYTES, MAX_PGN_LINE_BYTES, read_results
from arena.settings.config import MAX_SCHEDULED_GAMES, ConfigError, load_config, scheduled_games
from referee.record import GameRecord, Termination, encode_record
from referee.timecontrol import TimeControl, TimeControlError

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "sample_bots" / "random_bot.py"
GIB = 1 << 30


def arena(argv: list[str], tmp: Path, timeout: float = 60.0) -> tuple[int, str, float, int]:
    """Run ``arena ARGV`` in a child: (exit status, stderr, seconds, peak RSS in MiB).

    The child's own rusage (``wait4``), not RUSAGE_CHILDREN, which also holds every earlier
    child of this worker. An address-space cap of 4 GiB keeps a regression (the old reader
    decoded the whole file: 9 GB for 1 GB) from taking the shared machine down with it."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 * GIB, 4 * GIB))

    err = tmp / "stderr.txt"
    start = time.monotonic()
    with err.open("wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "arena.cli", *argv],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=stderr, preexec_fn=cap)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.kill(proc.pid, signal.SIGKILL)
            os.wait4(proc.pid, 0)
            raise AssertionError(f"arena {argv} still running after {timeout} s")
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (proc.returncode, err.read_text(errors="replace"), time.monotonic() - start,
            usage.ru_maxrss // 1024)


def random_gigabyte(path: Path) -> Path:
    """A 1 GiB file that starts with 16 MiB of random bytes; the rest is a hole (made in
    milliseconds). A reader that gives up early never reaches it; one that reads the file
    whole pays for all of it."""
    with path.open("wb") as fh:
        fh.write(os.urandom(16 << 20))
        fh.truncate(GIB)
    return path


# --------------------------------------------------------------------------- arena ratings
@pytest.mark.slow
@pytest.mark.parametrize("name", ["random.bin", "games.jsonl", "games.pgn"])
def test_ratings_on_a_gigabyte_of_random_bytes_fails_at_once_in_little_memory(
        tmp_path: Path, name: str) -> None:
    path = random_gigabyte(tmp_path / name)
    status, err, seconds, rss_mib = arena(["ratings", str(path)], tmp_path)
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert re.fullmatch(rf"arena: error: {re.escape(str(path))}:\d+: binary data, not text "
                        r"\(byte 0x[0-9a-f]{2} at offset \d+\): expected a games\.jsonl journal "
                        r"or a PGN file", lines[0]), lines[0]
    assert seconds < 10, seconds
    assert rss_mib < 200, rss_mib


def test_a_line_longer_than_the_format_allows_is_refused(tmp_path: Path) -> None:
    pgn = tmp_path / "long.pgn"
    pgn.write_bytes(b'[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n' + b"x" * (MAX_PGN_LINE_BYTES
                                                                          + 1))
    with pytest.raises(UserError, match=rf"long\.pgn:5: line longer than {MAX_PGN_LINE_BYTES} "
                                        r"bytes \(from byte offset 40\): not a PGN file"):
        read_results(pgn)
    journal = tmp_path / "long.jsonl"
    journal.write_bytes(b'{"game": "' + b"x" * MAX_JOURNAL_LINE_BYTES)
    with pytest.raises(UserError, match=r"long\.jsonl:1: line longer than .*: not a games\.jsonl"):
        read_results(journal)


@pytest.mark.parametrize(("text", "message"), [
    ("hello world\n" * 1000, r"notes\.txt:1: not a PGN file: a game starts with a tag pair "
                             r"such as \[White \"name\"\], found 'hello world'$"),
    ("\n% escape\n\n1. e4 e5 1-0\n", r"notes\.txt:4: not a PGN file: .* found '1\. e4 e5 1-0'"),
    ('{"game": "jungle"}\n', r"notes\.txt:1: not a PGN file: .* \(it looks like a games\.jsonl "
                            r"journal: name it \*\.jsonl\)"),
])
def test_text_that_is_neither_a_journal_nor_pgn_is_refused_at_its_first_line(
        tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "notes.txt"
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        read_results(path)


def test_a_latin1_pgn_still_reads_and_a_bom_is_skipped(tmp_path: Path) -> None:
    # The PGN standard's character set is Latin-1: such files are text, not binary.
    path = tmp_path / "old.pgn"
    path.write_bytes(b'\xef\xbb\xbf[White "Ren\xe9"]\n[Black "J\xfcrgen"]\n[Result "0-1"]\n\n0-1\n')
    [game] = read_results(path)
    assert (game.first, game.second, game.score) == ("René", "Jürgen", 0.0)


def test_a_fifo_or_device_is_not_read(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"/dev/zero: not a regular file"):
        read_results("/dev/zero")


# --------------------------------------------------------------------------- duplicate ids
def record(game_id: str, p1: str = "alpha", p2: str = "beta") -> bytes:
    return encode_record(GameRecord(game="jungle", p1=p1, p2=p2, result="1-0",
                                    termination=Termination.NORMAL, reason="test", winner=0,
                                    id=game_id))


def test_ratings_refuses_a_second_record_of_one_game_as_resume_does(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    journal = run / "games.jsonl"
    journal.write_bytes(b"\n".join([record("r1-p01-g1"), record("r1-p01-g2", "beta", "alpha"),
                                    record("r1-p01-g1")]) + b"\n")
    with pytest.raises(UserError) as resume:
        load(journal, warn=lambda _: None)
    for source in (run, journal):
        with pytest.raises(UserError) as ratings:
            read_results(source)
        assert str(ratings.value) == str(resume.value)
    assert str(resume.value).startswith(f"{journal}:3: game r1-p01-g1 is already recorded at "
                                        f"{journal}:1: two records of one game")
    # Records without an id (ad-hoc games, `arena play --out`) are not the schedule's: no rule.
    journal.write_bytes(record("") + b"\n" + record("") + b"\n")
    assert len(read_results(journal)) == 2


def test_ratings_refuses_a_second_pgn_game_of_one_game_id(tmp_path: Path) -> None:
    game = '[White "a"]\n[Black "b"]\n[Result "1-0"]\n[GameId "r1-p01-g1"]\n\n1-0\n\n'
    path = tmp_path / "games.pgn"
    path.write_text(game + game.replace('"a"', '"c"'))
    with pytest.raises(UserError, match=rf"games\.pgn:8: game r1-p01-g1 is already recorded at "
                                        rf"{re.escape(str(path))}:1: two records of one game"):
        read_results(path)


# --------------------------------------------------------------------------- configs
CONFIG = """\
game = "dobutsu"
tc = "10+0.1"
games_per_pairing = 2

[[bots]]
name = "a"
cmd = ["{python}", "bot.py"]

[[bots]]
name = "b"
cmd = ["{python}", "bot.py"]
tc = "5+0.1"

[bots.limits]
memory_mb = 300
"""


def config(tmp: Path, old: str = "", new: str = "") -> Path:
    (tmp / "bot.py").write_text("")
    path = tmp / "t.toml"
    path.write_text(CONFIG.replace(old, new) if old else CONFIG)
    return path


def config_error(tmp: Path, old: str, new: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(config(tmp, old, new))
    return str(info.value)


def test_a_schedule_beyond_the_maximum_is_refused_by_arithmetic(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    message = config_error(tmp_path, "games_per_pairing = 2", "games_per_pairing = 2000000000")
    assert message == (
        f"{path}:3: games_per_pairing: the schedule would hold 2,000,000,000 games (pairings 1 x "
        "games_per_pairing 2,000,000,000 x rounds 1), more than the maximum of 10,000,000; "
        "lower games_per_pairing or rounds (a longer match is several runs)")
    message = config_error(tmp_path, "games_per_pairing = 2",
                           "games_per_pairing = 2\nrounds = 5000001")
    assert message.startswith(f"{path}:4: rounds: the schedule would hold 10,000,002 games")
    # Exactly the maximum is allowed (checked without building it).
    loaded = load_config(config(tmp_path, "games_per_pairing = 2", "games_per_pairing = 10000000"))
    assert scheduled_games(loaded.config) == (1, MAX_SCHEDULED_GAMES)


@pytest.mark.parametrize(("extra", "fmt"), [("", "round-robin"), ("", "gauntlet"),
                                            ("rounds = 3\n", "round-robin"),
                                            ("rounds = 2\n", "gauntlet")])
def test_the_arithmetic_count_is_the_schedule_s_own(tmp_path: Path, extra: str, fmt: str) -> None:
    (tmp_path / "bot.py").write_text("")
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncmd = ["{{python}}", "bot.py"]\n' for i in range(5))
    path = tmp_path / "t.toml"
    path.write_text(f'game = "dobutsu"\ntc = "1+0"\nformat = "{fmt}"\ngames_per_pairing = 4\n'
                    f"{extra}{bots}")
    loaded = load_config(path)
    assert scheduled_games(loaded.config)[1] == build_schedule(loaded).total


@pytest.mark.slow
def test_arena_run_refuses_a_huge_schedule_before_allocating(tmp_path: Path) -> None:
    path = config(tmp_path, "games_per_pairing = 2", "games_per_pairing = 2000000000")
    status, err, seconds, rss_mib = arena(["run", str(path), "--output", str(tmp_path / "out")],
                                          tmp_path)
    assert status == 2, err
    assert err.count("\n") == 1 and "games_per_pairing: the schedule would hold" in err, err
    assert seconds < 30 and rss_mib < 200, (seconds, rss_mib)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("text", "message"), [
    ("99999999999999999999+0", r"base time '99999999999999999999' is more than the maximum of "
                               r"604800 s \(a week\) in time control '99999999999999999999\+0'"),
    ("604801", r"base time '604801' is more than the maximum of 604800 s"),
    ("40/1e9", r"base time '1e9' is more than the maximum"),
    ("10+86401", r"increment '86401' is more than the maximum of 86400 s \(a day\)"),
    ("st=100000", r"move time '100000' is more than the maximum of 86400 s \(a day\)"),
    ("10 timemargin=86400001", r"timemargin= '86400001' is too large \(at most 86400000\)"),
])
def test_time_controls_beyond_the_maxima_are_refused(text: str, message: str) -> None:
    with pytest.raises(TimeControlError, match=message):
        TimeControl.parse(text)


def test_time_controls_at_the_maxima_are_accepted() -> None:
    assert str(TimeControl.parse("604800+86400")) == "604800+86400"
    assert TimeControl.parse("st=86400 timemargin=86400000").movetime_ms == 86_400_000
    assert TimeControl.parse("1:30+1").base_ms == 90_000


def test_a_huge_tc_is_a_config_error_naming_key_and_value(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    message = config_error(tmp_path, 'tc = "5+0.1"', 'tc = "99999999999999999999+0"')
    assert message.startswith(
        f"{path}:12: bots[1].tc: bad time control '99999999999999999999+0': base time "
        "'99999999999999999999' is more than the maximum of 604800 s (a week)"), message
    message = config_error(tmp_path, 'tc = "10+0.1"', 'tc = "10+1e6"')
    assert message.startswith(f"{path}:2: tc: bad time control '10+1e6': increment '1e6'")


@pytest.mark.parametrize(("key", "value", "bound"), [
    ("memory_mb", "99999999999", "<= 1048576"),
    ("tmp_mb", "2097152", "<= 1048576"),
    ("file_mb", "9223372036854775807", "<= 1048576"),
    ("cpu_seconds", "100000000", "<= 2592000"),
    ("processes", "5000000", "<= 4194304"),
    ("cpus", "1e9", "<= 8192.0"),
])
def test_limits_beyond_what_the_kernel_holds_are_config_errors(
        tmp_path: Path, key: str, value: str, bound: str) -> None:
    message = config_error(tmp_path, "memory_mb = 300", f"{key} = {value}")
    assert message.startswith(f"{tmp_path / 't.toml'}:15: bots[1].limits.{key}: Expected "
                              f"{'int' if key != 'cpus' else 'float'} {bound}, got "), message
    assert value.replace("1e9", "1000000000.0") in message


@pytest.mark.slow
def test_arena_play_refuses_a_huge_tc_on_the_command_line(tmp_path: Path) -> None:
    status, err, _, _ = arena(["play", "dobutsu", "--tc", "99999999999999999999+0", "--p1",
                               f"{sys.executable} {BOT}", "--p2", f"{sys.executable} {BOT}"],
                              tmp_path)
    assert status == 2
    assert err == ("arena: error: --tc: base time '99999999999999999999' is more than the maximum "
                   "of 604800 s (a week) in time control '99999999999999999999+0'\n")


# --------------------------------------------------------------------------- arena serve
def request(url: str, method: str, path: str, headers: dict[str, str] | None = None,
            body: bytes | None = None) -> tuple[int, bytes]:
    host = url.split("//", 1)[1].rstrip("/")
    conn = http.client.HTTPConnection(host, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def attend(url: str) -> None:
    """Open the play page's event stream, as the page does once loaded, and read its first
    event."""
    host = url.split("//", 1)[1].rstrip("/")
    conn = http.client.HTTPConnection(host, timeout=30)
    try:
        conn.request("GET", "/events")
        response = conn.getresponse()
        assert response.status == 200
        assert response.read(1)
    finally:
        conn.close()


def page_token(url: str) -> str:
    status, body = request(url, "GET", "/")
    assert status == 200
    match = re.search(rb'<meta name="arena-token" content="([^"]+)">', body)
    assert match, body[:500]
    return match.group(1).decode()


@pytest.mark.slow
def test_the_play_page_refuses_moves_from_other_origins(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "arena.cli", "serve", "--play", "dobutsu", "--bot",
            f"{sys.executable} {BOT} --seed 3", "--tc", "600+5", "--port", "0"]
    with started(argv, tmp_path / "serve.log") as server:
        url = served_url(tmp_path / "serve.log", server)
        token = page_token(url)
        origin = url.rstrip("/")
        host = origin.split("//", 1)[1]
        move = json.dumps({"move": "nonsense"}).encode()
        json_type = {"Content-Type": "application/json"}
        refused = [
            {"Origin": "http://evil.example", "X-Arena-Token": token},  # another site
            {"Origin": "null", "X-Arena-Token": token},  # a sandboxed frame or a file: page
            {"Origin": "http://evil.example"},
            {"Origin": origin},  # no token
            {"Origin": origin, "X-Arena-Token": token[:-1] + "x"},  # a wrong one
            {"X-Arena-Token": token, "Sec-Fetch-Site": "cross-site"},
            {},  # curl with nothing
        ]
        for path in ("/move", "/new"):
            for headers in refused:
                status, body = request(url, "POST", path, {**json_type, **headers}, move)
                assert status == 403, (path, headers, status, body)
                assert body.startswith(b"forbidden: "), body
        # What the page's own script sends passes (200 once it is the person's turn; the
        # referee then rejects the move text, which is not this server's business).
        attend(url)  # a page connected: the game starts (not before anyone looks)
        mine = {**json_type, "Origin": origin, "Host": host, "Sec-Fetch-Site": "same-origin",
                "X-Arena-Token": token}
        deadline = time.monotonic() + 60
        while True:
            status, body = request(url, "POST", "/move", mine, move)
            assert status in (200, 409), (status, body)
            if status == 200:
                break
            assert time.monotonic() < deadline, body
            time.sleep(0.2)
        assert json.loads(body) == {"ok": True, "error": ""}
        # A fresh server start has a fresh token: the old one no longer works.
    with started(argv, tmp_path / "serve2.log") as server:
        url2 = served_url(tmp_path / "serve2.log", server)
        assert page_token(url2) != token
        status, _ = request(url2, "POST", "/new", {"X-Arena-Token": token})
        assert status == 403


@pytest.mark.slow
def test_the_live_page_refuses_every_state_changing_request(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "games.jsonl").write_bytes(record("r1-p01-g1") + b"\n")
    argv = [sys.executable, "-m", "arena.cli", "serve", str(run), "--no-report", "--port", "0"]
    with started(argv, tmp_path / "serve.log") as server:
        url = served_url(tmp_path / "serve.log", server)
        page_token(url)
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            status, _ = request(url, method, "/state", {"Origin": "http://evil.example"})
            assert status == 403, method
        assert request(url, "GET", "/state")[0] == 200
        # DNS rebinding: a site's own name pointed at 127.0.0.1 may not even read the page
        # (it holds the token), while the machine's names and addresses may.
        port = url.rstrip("/").rsplit(":", 1)[1]
        status, body = request(url, "GET", "/", {"Host": f"evil.example:{port}"})
        assert status == 403 and b"DNS rebinding" in body, (status, body)
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
            assert request(url, "GET", "/", {"Host": host})[0] == 200, host
