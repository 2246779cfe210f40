"""``arena run`` end to end: real tournaments of real bot processes, through the real CLI.

Each test writes a config into a temporary directory and runs ``arena run`` as a subprocess
(what a user does), then reads the journal and PGN it left behind.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from proc_scan import tagged

from referee.record import GameRecord, Termination, decode_record

pytestmark = pytest.mark.slow  # whole tournaments through `arena run`

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"
BOTS = Path(__file__).resolve().parent / "bots"
RUN_TIMEOUT = 240


def bot(name: str, script: Path, *args: str) -> str:
    argv = ", ".join(f'"{a}"' for a in ["{python}", str(script), *args])
    return f'[[bots]]\nname = "{name}"\ncmd = [{argv}]\n'


def write_config(tmp: Path, head: str, bots: list[str]) -> Path:
    path = tmp / "t.toml"
    path.write_text(head.strip() + "\n\n" + "\n".join(bots))
    return path


def python_code(code: str, *argv: object) -> subprocess.CompletedProcess[str]:
    """``python -c code argv...`` from the project folder, which must exit 0 (the arena
    patched or driven from inside, as a test needs it)."""
    done = subprocess.run([sys.executable, "-c", code, *map(str, argv)], cwd=ROOT,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return done


def run_argv(config: Path, out: Path, *extra: str, report: bool = False) -> list[str]:
    """``arena run`` argv; without ``report`` the (slow) HTML report is skipped."""
    flags = [*extra] if report else ["--no-report", *extra]
    return [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out), *flags]


def arena_run(
    config: Path, out: Path, *extra: str, report: bool = False
) -> subprocess.CompletedProcess[str]:
    """``arena run`` as a subprocess, to its end."""
    return subprocess.run(
        run_argv(config, out, *extra, report=report),
        capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT,
    )  # fmt: skip


def journal(out: Path) -> list[GameRecord]:
    return [decode_record(line) for line in (out / "games.jsonl").read_bytes().splitlines()]


def scheduled_ids(out: Path) -> list[str]:
    import json

    return [g["id"] for g in json.loads((out / "schedule.json").read_text())["games"]]


def pgn_results(out: Path) -> list[tuple[str, str]]:
    text = (out / "games.pgn").read_text()
    ids = re.findall(r'\[GameId "([^"]+)"\]', text)
    results = re.findall(r'\[Result "([^"]+)"\]', text)
    return list(zip(ids, results, strict=True))


REFEREES = [pytest.param(("--referees", "1"), id="referees-1"),
            pytest.param(("--referees", "2"), id="referees-2")]
"""The matrix of the runner's own tests that also run with their games spread over two
referee processes (``--referees``): resume, a SIGKILL of the runner, both Ctrl-Cs, the SPRT
stop, crashing and hanging bots. A referee process's command line names the run directory's
``logs`` folder, so the scan for processes left behind finds referee processes too."""


def read_header(proc: subprocess.Popen[str]) -> str:
    """The run's header line (after the line naming the referee processes, if any): the
    schedule is ready, games are starting."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    while line.startswith("arena: referees"):
        line = proc.stdout.readline()
    return line


def no_leftover_bots(text: str, wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while tagged(text):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def private_bot(tmp: Path, script: Path) -> Path:
    """A copy of a test bot under ``tmp``, so its processes can be told apart from others'."""
    copy = tmp / script.name
    copy.write_text(script.read_text())
    return copy


def check_complete(out: Path) -> list[GameRecord]:
    """Every scheduled game journaled exactly once, and the PGN agreeing with the journal."""
    records = journal(out)
    ids = [r.id for r in records]
    assert Counter(ids) == Counter(scheduled_ids(out))
    assert sorted(pgn_results(out)) == sorted((r.id, r.result) for r in records)
    return records


GAMES = {
    # game: (extra config, max plies) -- short caps keep random games quick
    "draughts": ("", 120),
    "jungle": ("", 160),
    "dobutsu": ("", 120),
    "dvonn": ("", None),
    "donkan": ("[game_options]\ntarget = 5\n", None),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_tournament_of_random_bots(game: str, tmp_path: Path) -> None:
    extra, cap = GAMES[game]
    adjudication = f"[adjudication]\nmax_plies = {cap}\n" if cap else ""
    head = f"""
game = "{game}"
tc = "30+0.5"
concurrency = 2
seed = 5
[openings]
random_plies = 2
{adjudication}{extra}"""
    bots = [bot(f"rnd{i}", RANDOM_BOT, "--seed", str(i)) for i in range(3)]
    out = tmp_path / "out"
    with_report = game == "dobutsu"
    done = arena_run(write_config(tmp_path, head, bots), out, report=with_report)
    assert done.returncode == 0, done.stderr
    records = check_complete(out)
    assert len(records) == 6
    if with_report:  # the integration point: the report is built at the end of the run
        assert (out / "report.html").is_file() and "arena: report:" in done.stdout
    for record in records:
        assert record.game == game
        assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION), record.reason
        assert [m.move for m in record.moves[:2]] == record.opening and record.moves[0].book
    if game == "donkan":
        for record in records:
            assert record.options["target"] == "5"
            if record.termination == Termination.NORMAL:
                assert record.winner is not None and record.parties
                assert record.score[record.winner] >= 5 > record.score[1 - record.winner]
    assert "final standings" in done.stdout


@pytest.mark.parametrize("referees", REFEREES)
def test_crashing_and_hanging_bots_lose_their_games_and_the_tournament_finishes(
    tmp_path: Path, referees: tuple[str, ...],
) -> None:
    head = 'game = "dobutsu"\ntc = "60+1"\ngames_per_pairing = 2\nconcurrency = 2\n'
    hang = bot("hanger", BOTS / "runner_hang_bot.py") + 'tc = "st=0.2"\n'
    bots = [
        bot("rnd", RANDOM_BOT, "--seed", "1"),
        bot("crasher", BOTS / "runner_crash_bot.py"),
        bot("first", BOTS / "runner_first_bot.py"),
        hang,
    ]
    out = tmp_path / "out"
    done = arena_run(write_config(tmp_path, head, bots), out, *referees)
    assert done.returncode == 0, done.stderr
    records = check_complete(out)
    assert len(records) == 12
    for record in records:
        players = (record.p1, record.p2)
        if set(players) == {"crasher", "hanger"}:  # the first mover fails first
            expected = Termination.CRASH if record.p1 == "crasher" else Termination.TIME_FORFEIT
            assert (record.termination, record.winner) == (expected, 1), record.reason
        elif "crasher" in players:
            assert record.termination == Termination.CRASH, record.reason
            assert record.winner == players.index("crasher") ^ 1
        elif "hanger" in players:
            assert record.termination == Termination.TIME_FORFEIT, record.reason
            assert record.winner == players.index("hanger") ^ 1
        else:
            assert record.termination == Termination.NORMAL, record.reason
    assert "crash 5" in done.stdout and "time-forfeit 5" in done.stdout  # summary forfeits
    # The final standings rank the bots that lost every game last (without a report: by
    # score per game, the pairs' Elo differences under the table).
    lines = done.stdout.splitlines()
    rows = lines[lines.index(next(x for x in lines if x.startswith("#  bot"))) + 1:]
    table = [line.split()[1] for line in rows[:4]]
    assert sorted(table) == ["crasher", "first", "hanger", "rnd"], done.stdout
    assert set(table[-2:]) == {"crasher", "hanger"}, done.stdout
    assert "crasher vs hanger: " in done.stdout or "hanger vs crasher: " in done.stdout
    crasher_logs = sorted((out / "logs" / "crasher").glob("*.stderr.log"))
    assert len(crasher_logs) == 5  # one per game
    assert all("crashing on purpose" in log.read_text() for log in crasher_logs)


def test_concurrency_two_overlaps_games(tmp_path: Path) -> None:
    head = 'game = "dobutsu"\ntc = "10+0.1"\nconcurrency = 2\ngames_per_pairing = 4\n'
    head += "[adjudication]\nmax_plies = 12\n"
    slow = [bot(f"slow{i}", BOTS / "runner_first_bot.py", "--delay", "0.02") for i in range(2)]
    out = tmp_path / "out"
    done = arena_run(write_config(tmp_path, head, slow), out)
    assert done.returncode == 0, done.stderr
    spans = sorted((r.started_at, r.ended_at) for r in check_complete(out))
    overlaps = sum(1 for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[1])
    assert overlaps >= 1, spans


def test_the_next_game_starts_while_the_last_one_is_journaled(tmp_path: Path) -> None:
    """Concurrency 1, and the journal's first append waits (up to 20 s) for the second game
    to start (its live file noted): a runner that journaled each game before starting the next
    would keep it waiting the whole time. The games are all journaled, in order, all the
    same."""
    head = 'game = "dobutsu"\ntc = "10+0.1"\ngames_per_pairing = 4\n[adjudication]\nmax_plies = 6\n'
    config = write_config(tmp_path, head, [bot(f"r{i}", RANDOM_BOT) for i in range(2)])
    out = tmp_path / "out"
    code = (
        "import sys, time\n"
        "import trio\n"
        "import arena.rundir.journal as j\n"
        "import arena.run.runner as runner\n"
        "real = j.Journal.append\n"
        "real_start = runner.LiveFiles.start\n"
        "started, waited = set(), []\n"
        "def start(self, header):\n"
        "    started.add(header.id)\n"
        "    return real_start(self, header)\n"
        "async def slow(self, record):\n"
        "    if not waited:\n"
        "        start = time.monotonic()\n"
        "        while 'r1-p01-g2' not in started and time.monotonic() - start < 20:\n"
        "            await trio.sleep(0.01)\n"
        "        waited.append('r1-p01-g2' in started)\n"
        "    await real(self, record)\n"
        "j.Journal.append = slow\n"
        "runner.LiveFiles.start = start\n"
        "from arena.cli import main\n"
        "status = main(['run', sys.argv[1], '-o', sys.argv[2], '--plain', '--no-report'])\n"
        "print('SECOND GAME STARTED', waited)\n"
        "sys.exit(status)\n"
    )
    done = python_code(code, config, out)
    assert "SECOND GAME STARTED [True]" in done.stdout, done.stdout
    assert [r.id for r in check_complete(out)] == scheduled_ids(out)
    assert not list((out / "live").glob("*.jsonl"))  # each live file went once journaled


def test_the_live_header_shows_the_time_control_the_record_gets(tmp_path: Path) -> None:
    """A bot with a time control of its own: while its games run, their live files (what
    ``arena serve`` shows) state each side's time control, the same text as the records."""
    import json

    head = 'game = "dobutsu"\ntc = "10+0.1"\n[adjudication]\nmax_plies = 6\n'
    own = bot("own", RANDOM_BOT, "--seed", "2") + 'tc = "st=0.2"\n'
    config = write_config(tmp_path, head, [bot("rnd", RANDOM_BOT, "--seed", "1"), own])
    out = tmp_path / "out"
    headers = tmp_path / "headers.jsonl"
    code = (
        "import sys\n"
        "import msgspec\n"
        "import arena.run.runner as runner\n"
        "real = runner.LiveFiles.start\n"
        "def start(self, header):\n"
        "    with open(sys.argv[3], 'ab') as seen:\n"
        "        seen.write(msgspec.json.encode(header) + b'\\n')\n"
        "    return real(self, header)\n"
        "runner.LiveFiles.start = start\n"
        "from arena.cli import main\n"
        "sys.exit(main(['run', sys.argv[1], '-o', sys.argv[2], '--plain', '--no-report']))\n"
    )
    python_code(code, config, out, headers)
    shown = {header["id"]: header["time_control"]
             for header in map(json.loads, headers.read_text().splitlines())}
    assert shown == {record.id: record.time_control for record in check_complete(out)}
    assert set(shown.values()) == {"p1: 10+0.1 | p2: st=0.2", "p1: st=0.2 | p2: 10+0.1"}


@pytest.mark.parametrize("referees", REFEREES)
def test_resume_plays_only_missing_games_and_refuses_changed_schedule(
        tmp_path: Path, referees: tuple[str, ...]) -> None:
    head = 'game = "draughts"\ntc = "10+0.1"\nseed = 3\nconcurrency = 2\n'
    head += '[openings]\nrandom_plies = 2\n'
    head += "[adjudication]\nmax_plies = 40\n"
    bots = [bot(f"rnd{i}", RANDOM_BOT, "--seed", str(i)) for i in range(3)]
    config = write_config(tmp_path, head, bots)
    out = tmp_path / "out"
    assert arena_run(config, out, *referees).returncode == 0
    first = journal(out)
    # Damage the journal: drop the last two games and tear the new last line.
    lines = (out / "games.jsonl").read_bytes().splitlines(keepends=True)
    (out / "games.jsonl").write_bytes(b"".join(lines[:-2]) + lines[-2][:30])
    again = arena_run(config, out, *referees)
    assert again.returncode == 0, again.stderr
    assert "torn last line" in again.stderr
    assert "6 games (2 to play" in again.stdout
    records = check_complete(out)
    assert [r.id for r in records[:4]] == [r.id for r in first[:4]]
    # A config that changes the schedule is refused, and nothing is touched.
    before = (out / "games.jsonl").read_bytes()
    config.write_text(config.read_text().replace("seed = 3", "seed = 4"))
    refused = arena_run(config, out, *referees)
    assert refused.returncode != 0
    assert "different schedule" in refused.stderr and "Traceback" not in refused.stderr
    assert (out / "games.jsonl").read_bytes() == before
    # A change that keeps the schedule (the time control) is accepted with a warning.
    config.write_text(config.read_text().replace("seed = 4", "seed = 3").replace("10+0.1", "9+0.1"))
    accepted = arena_run(config, out, *referees)
    assert accepted.returncode == 0, accepted.stderr
    assert "differs from the copy" in accepted.stderr and "0 to play" in accepted.stdout
    assert (out / "config.toml").read_text() == config.read_text()


@pytest.mark.parametrize("referees", REFEREES)
def test_kill_and_resume_three_times(tmp_path: Path, referees: tuple[str, ...]) -> None:
    """SIGKILL ``arena run`` at seeded random moments; every resume continues the journal, and
    no bot (nor referee process) outlives a killed runner.

    A moment is a seeded number of newly journaled games plus a seeded fraction of a game
    (not a time after the start: on an idle machine the whole schedule took less than the
    longest wait, and the last kill found nothing left to interrupt)."""
    import random

    rng = random.Random(20241129)
    head = 'game = "dobutsu"\ntc = "10+0.1"\nconcurrency = 2\ngames_per_pairing = 6\n'
    head += "[adjudication]\nmax_plies = 16\n"
    script = private_bot(tmp_path, BOTS / "runner_first_bot.py")
    bots = [bot(f"slow{i}", script, "--delay", "0.01") for i in range(3)]
    config = write_config(tmp_path, head, bots)
    out = tmp_path / "out"
    argv = run_argv(config, out, *referees)
    kills = 0
    journaled: list[int] = []
    for _ in range(3):
        proc = subprocess.Popen(
            argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        assert proc.stdout is not None
        read_header(proc)
        target = (journaled[-1] if journaled else 0) + rng.randint(1, 4)
        deadline = time.monotonic() + 120
        while (proc.poll() is None and time.monotonic() < deadline
               and len((out / "games.jsonl").read_bytes().splitlines()) < target):
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.15))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=30)
        proc.stdout.close()
        assert no_leftover_bots(str(script)), "bots outlived a SIGKILLed arena"
        assert no_leftover_bots(str(out / "logs")), "referee processes outlived their arena"
        journaled.append(len((out / "games.jsonl").read_bytes().splitlines()))
    assert kills >= 2 and journaled[-1] < 18, journaled  # the kills landed mid-schedule
    final = arena_run(config, out, *referees)
    assert final.returncode == 0, final.stderr
    records = check_complete(out)
    assert len(records) == 18
    for line in (out / "games.jsonl").read_bytes().splitlines():
        decode_record(line)  # no corrupt line anywhere


@pytest.mark.parametrize("referees", REFEREES)
def test_first_ctrl_c_finishes_running_games_then_resume(tmp_path: Path,
                                                         referees: tuple[str, ...]) -> None:
    head = 'game = "dobutsu"\ntc = "10+0.1"\nconcurrency = 2\ngames_per_pairing = 10\n'
    head += "[adjudication]\nmax_plies = 20\n"
    bots = [bot(f"slow{i}", BOTS / "runner_first_bot.py", "--delay", "0.02") for i in range(2)]
    config = write_config(tmp_path, head, bots)
    out = tmp_path / "out"
    argv = run_argv(config, out, *referees)
    proc = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    read_header(proc)
    proc.stdout.readline()  # the first finished game
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "run the same command again to resume" in stderr
    played = journal(out)
    assert 1 <= len(played) < 10
    assert all(r.termination != Termination.INTERRUPT for r in played)
    resumed = arena_run(config, out, *referees)
    assert resumed.returncode == 0, resumed.stderr
    assert len(check_complete(out)) == 10


CONFIG_ERRORS = {
    # name: (replace old with new in the good config, expected line, words in the message)
    "typo key": ('tc = "10+0.1"', 'tcc = "10+0.1"', 2, "unknown key 'tcc'"),
    "bot path": ('"{python}"', '"./no_such_bot"', 6, "program './no_such_bot' not found"),
    "bad tc": ('tc = "10+0.1"', 'tc = "10+"', 2, "bad time control '10+'"),
    "unknown game": ('game = "dobutsu"', 'game = "chess"', 1, "unknown game 'chess'"),
}


@pytest.mark.parametrize("case", sorted(CONFIG_ERRORS))
def test_config_errors_are_one_clear_line(case: str, tmp_path: Path) -> None:
    old, new, line, words = CONFIG_ERRORS[case]
    head = 'game = "dobutsu"\ntc = "10+0.1"\n'
    bots = [bot("a", RANDOM_BOT), bot("b", RANDOM_BOT)]
    config = write_config(tmp_path, head, bots)
    config.write_text(config.read_text().replace(old, new, 1))
    done = arena_run(config, tmp_path / "out")
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"arena: error: {config}:{line}: ")
    assert words in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("referees", REFEREES)
def test_second_ctrl_c_aborts_running_games_and_kills_their_bots(
        tmp_path: Path, referees: tuple[str, ...]) -> None:
    head = 'game = "draughts"\ntc = "60+1"\nconcurrency = 2\n'
    script = private_bot(tmp_path, BOTS / "runner_first_bot.py")
    bots = [bot(f"slow{i}", script, "--delay", "0.5") for i in range(2)]
    config = write_config(tmp_path, head, bots)
    out = tmp_path / "out"
    argv = run_argv(config, out, *referees)
    proc = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    read_header(proc)
    deadline = time.monotonic() + 30
    while len(tagged(str(script))) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)  # wait until both games have both bots running
    rival = arena_run(config, out)  # a second run on the same directory is refused
    assert rival.returncode != 0 and "in use by another 'arena run'" in rival.stderr
    proc.send_signal(signal.SIGINT)
    while "Ctrl-C: no new games" not in proc.stdout.readline():  # the first one was heard
        assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "aborting the running games" in stdout
    assert journal(out) == []  # aborted games are not journaled: they replay on resume
    assert no_leftover_bots(str(script), wait=5), tagged(str(script))
    assert no_leftover_bots(str(out / "logs"), wait=5), tagged(str(out / "logs"))


@pytest.mark.parametrize("referees", REFEREES)
def test_sprt_stops_a_lopsided_match_early_and_stays_stopped(tmp_path: Path,
                                                             referees: tuple[str, ...]) -> None:
    head = 'game = "dobutsu"\ntc = "10+0.1"\nconcurrency = 2\ngames_per_pairing = 200\n'
    head += "[sprt]\nelo0 = 0\nelo1 = 100\nalpha = 0.05\nbeta = 0.05\n"
    bots = [bot("rnd", RANDOM_BOT, "--seed", "1"), bot("crasher", BOTS / "runner_crash_bot.py")]
    config = write_config(tmp_path, head, bots)
    out = tmp_path / "out"
    done = arena_run(config, out, *referees)
    assert done.returncode == 0, done.stderr
    assert "SPRT rnd vs crasher" in done.stdout and "accept-h1" in done.stdout
    assert "[pentanomial, normalized]" in done.stdout  # the config's default Elo model
    records = journal(out)
    assert 4 <= len(records) < 40  # stopped long before the 200 scheduled games
    assert all(r.termination == Termination.CRASH for r in records)
    again = arena_run(config, out, *referees)
    assert again.returncode == 0, again.stderr
    assert "already decided; nothing to play" in again.stdout
    assert len(journal(out)) == len(records)


def test_gauntlet_with_an_openings_file(tmp_path: Path) -> None:
    (tmp_path / "openings.txt").write_text(
        "# one position, one move sequence\nfen W:W28,31-45:B6-20\nmoves 32-28 19-23\n"
    )
    head = 'game = "draughts"\ntc = "10+0.1"\nformat = "gauntlet"\n'
    head += '[openings]\nfile = "openings.txt"\n[adjudication]\nmax_plies = 30\n'
    bots = [bot(f"rnd{i}", RANDOM_BOT, "--seed", str(i)) for i in range(3)]
    out = tmp_path / "out"
    done = arena_run(write_config(tmp_path, head, bots), out)
    assert done.returncode == 0, done.stderr
    records = {r.id: r for r in check_complete(out)}
    assert sorted(records) == ["r1-p01-g1", "r1-p01-g2", "r1-p02-g1", "r1-p02-g2"]
    assert all("rnd0" in (r.p1, r.p2) for r in records.values())  # the gauntlet's first bot
    assert records["r1-p01-g1"].start_position == "W:W28,31-45:B6-20"
    assert records["r1-p01-g2"].start_position == "W:W28,31-45:B6-20"
    assert records["r1-p02-g1"].opening == ["32-28", "19-23"]
    assert records["r1-p02-g1"].tags["opening"].endswith("openings.txt:3")
    pgn = (out / "games.pgn").read_text()
    pdn_fen = ("W:W28,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45:"
               "B6,7,8,9,10,11,12,13,14,15,16,17,18,19,20")  # PDN square notation
    assert pgn.count(f'[FEN "{pdn_fen}"]') == 2 and pgn.count("[SetUp") == 2


def test_a_tournament_is_a_library_call(tmp_path: Path) -> None:
    """``run_tournament`` takes typed settings (a loaded config here, no command line) and
    returns the outcome; the run directory is free again when it returns, so a second call
    resumes it (nothing left to play) in the same process."""
    head = 'game = "dobutsu"\ntc = "10+0.1"\ngames_per_pairing = 2\n[adjudication]\nmax_plies = 6\n'
    config = write_config(tmp_path, head, [bot(f"r{i}", RANDOM_BOT) for i in range(2)])
    out = tmp_path / "out"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from arena.settings.config import load_config\n"
        "from arena.run.driver import RunSettings, run_tournament\n"
        "said = []\n"
        "settings = RunSettings(load_config(Path(sys.argv[1])), output=Path(sys.argv[2]),\n"
        "                       plain=True, report=False, say=said.append)\n"
        "for _ in range(2):\n"
        "    o = run_tournament(settings)\n"
        "    print('OUTCOME', o.status, o.total, o.journaled, o.result.played, o.run_dir.root)\n"
        "print('SAID', [line.split(':')[1] for line in said if line.startswith('arena:')])\n"
    )
    done = python_code(code, config, out)
    outcomes = [line.split()[1:] for line in done.stdout.splitlines()
                if line.startswith("OUTCOME")]
    assert outcomes == [["0", "2", "2", "2", str(out)], ["0", "2", "2", "0", str(out)]]
    # The service's own lines go where the caller says, none to stdout behind its back.
    assert "arena: done" not in done.stdout
    said = next(line for line in done.stdout.splitlines() if line.startswith("SAID"))
    assert said == "SAID [' t', ' done', ' t', ' done']", said  # event 't' (the config's stem)
    assert [r.id for r in check_complete(out)] == scheduled_ids(out)
