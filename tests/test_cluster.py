"""``arena run --cluster``: the same tournament on a real Dask cluster of worker processes.

Every test runs ``arena run`` as a subprocess, with real bots, and leaves no Dask process
behind: the processes of a test carry a tag in their environment (inherited by the worker
processes a LocalCluster spawns), and the test checks that none is left when it ends.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from proc_scan import tagged
from test_runner import (
    BOTS,
    RANDOM_BOT,
    bot,
    check_complete,
    journal,
    private_bot,
    run_argv,
    write_config,
)

from referee.record import GameRecord, Termination

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
TAG_VAR = "ARENA_TEST_CLUSTER_TAG"
RUN_TIMEOUT = 300


def tagged_env(tag: str) -> list[int]:
    """Live processes whose environment holds ``TAG_VAR=tag``."""
    needle = f"{TAG_VAR}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


@pytest.fixture
def tag(tmp_path: Path) -> Iterator[str]:
    """A tag for this test's processes; the test fails if any outlives it: Dask's (the tag in
    their environment) or a bot's (bots get a clean environment, but the tests run private
    copies of their scripts, under ``tmp_path``)."""
    value = uuid.uuid4().hex
    yield value
    deadline = time.monotonic() + 20
    while ((left := tagged_env(value)) or tagged(str(tmp_path))) and time.monotonic() < deadline:
        time.sleep(0.2)
    bots = tagged(str(tmp_path))
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left and not bots, f"processes left behind: {left} {bots}"


def env_with(tag: str) -> dict[str, str]:
    return {**os.environ, TAG_VAR: tag}


def run(config: Path, out: Path, tag: str, *extra: str, report: bool = False
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(run_argv(config, out, "--plain", *extra, report=report),
                          capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT,
                          env=env_with(tag))


HEAD = """
game = "dobutsu"
tc = "10+0.1"
seed = 5
[openings]
random_plies = 2
[adjudication]
max_plies = 60
"""


SCHEDULED = ("id", "round", "game", "p1", "p2", "start_position", "opening", "time_control",
             "options", "tags")
"""What the schedule decides of a record; the moves depend on the bots (and a local run keeps
its bot processes between games, so even seeded random bots play other moves there)."""


def scheduled(record: GameRecord) -> tuple[object, ...]:
    return tuple(getattr(record, key) for key in SCHEDULED)


def test_local_cluster_gives_the_local_journal(tmp_path: Path, tag: str) -> None:
    script = private_bot(tmp_path, RANDOM_BOT)
    bots = [bot(f"rnd{i}", script, "--seed", str(i)) for i in range(3)]
    config = write_config(tmp_path, HEAD, bots)
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    done = run(config, local, tag)
    assert done.returncode == 0, done.stderr
    done = run(config, cluster, tag, "--cluster", "local:2", report=True)
    assert done.returncode == 0, done.stderr
    assert "arena: cluster tcp://" in done.stdout and "2 workers, 2 threads" in done.stdout
    assert "concurrency 2" in done.stdout
    assert (local / "schedule.json").read_bytes() == (cluster / "schedule.json").read_bytes()
    here, there = check_complete(local), check_complete(cluster)
    # The same games (ids, colours, openings, tags), every one played out, same record format.
    assert sorted(map(scheduled, here)) == sorted(map(scheduled, there))
    assert all(r.result != "*" and r.moves[2:] for r in there)
    assert all(r.worker is None for r in here)
    assert len({r.worker for r in there}) == 2  # both workers played
    assert all(str(r.worker).startswith("tcp://") for r in there)
    raw = (local / "games.jsonl").read_text()
    assert '"worker"' not in raw  # the local record format is unchanged
    local_keys = {frozenset(json.loads(line)) for line in raw.splitlines()}
    cluster_keys = {frozenset(json.loads(line)) - {"worker"}
                    for line in (cluster / "games.jsonl").read_text().splitlines()}
    assert local_keys == cluster_keys
    # The report splits the results by worker (and a local run has no such table).
    from reports.journal_summary import summarise_journal
    from reports.workers import worker_table  # pandas: not for every worker's collection

    assert worker_table(summarise_journal(local)) is None
    table = worker_table(summarise_journal(cluster))
    assert table is not None and sorted(table.index) == sorted({str(r.worker) for r in there})
    assert table["games"].sum() == len(there) and "by worker:" in done.stdout
    assert 'id="workers"' in (cluster / "report.html").read_text()
    assert (cluster / "workers.csv").is_file()


def test_killing_a_worker_mid_game_loses_and_doubles_nothing(tmp_path: Path, tag: str) -> None:
    from distributed import Client

    head = 'game = "dobutsu"\ntc = "20+0.2"\ngames_per_pairing = 4\n'
    head += "[adjudication]\nmax_plies = 30\n"
    script = private_bot(tmp_path, RANDOM_BOT)
    bots = [bot(f"slow{i}", script, "--seed", str(i), "--delay", "0.04") for i in range(2)]
    out = tmp_path / "out"
    proc = subprocess.Popen(
        run_argv(write_config(tmp_path, head, bots), out, "--plain", "--cluster", "local:2"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env_with(tag))
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("arena: cluster tcp://"), line + proc.communicate()[1]
        address = line.split()[2].rstrip(":")
        with Client(address, timeout=30) as client:
            # The pids first: the kill must follow the look at what is running at once, or on
            # a loaded machine the game seen running may have ended before it.
            client.wait_for_workers(2, timeout=60)
            pids = client.run(os.getpid)
            deadline = time.monotonic() + 60
            victim = None
            while victim is None and time.monotonic() < deadline:
                processing = client.processing()
                busy = [w for w, keys in processing.items() if keys]
                if busy and (out / "games.jsonl").exists() and journal(out):
                    victim, in_flight = busy[0], processing[busy[0]]
                    os.kill(pids[victim], signal.SIGKILL)
                time.sleep(0.05)
            assert victim is not None, "no game was running on a worker"
        stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    records = check_complete(out)  # every game once: none lost, none doubled
    assert len(records) == 4
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)) == 4
    assert in_flight
    said = stdout + stderr
    killed = {part.split()[0] for part in said.split(f"worker {victim} lost: game ")[1:]}
    assert killed, said  # its batch had begun: the game it was playing is named
    for record in records:
        if record.id in killed:  # played again from the start on a live worker
            assert record.worker != victim
            assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION)


def test_logs_and_transcripts_come_back_from_the_worker(tmp_path: Path, tag: str) -> None:
    head = 'game = "dobutsu"\ntc = "10+0.1"\n[adjudication]\nmax_plies = 20\n'
    bots = [bot("rnd", private_bot(tmp_path, RANDOM_BOT), "--seed", "1"),
            bot("crasher", BOTS / "runner_crash_bot.py")]
    out = tmp_path / "out"
    done = run(write_config(tmp_path, head, bots), out, tag, "--cluster", "local:1", "--debug")
    assert done.returncode == 0, done.stderr
    records = check_complete(out)
    assert len(records) == 2 and all(r.termination == Termination.CRASH for r in records)
    logs = sorted((out / "logs" / "crasher").glob("*.stderr.log"))
    assert [log.name for log in logs] == sorted(f"{r.id}.stderr.log" for r in records)
    assert all("crashing on purpose" in log.read_text() for log in logs)
    for record in records:
        transcript = out / "transcripts" / record.tags["transcript"]
        assert transcript.is_file() and "uginewgame" in transcript.read_text()


def test_ctrl_c_lets_the_running_games_finish_and_resume_completes(tmp_path: Path,
                                                                   tag: str) -> None:
    head = 'game = "dobutsu"\ntc = "20+0.2"\ngames_per_pairing = 6\n'
    head += "[adjudication]\nmax_plies = 24\n"
    script = private_bot(tmp_path, RANDOM_BOT)
    bots = [bot(f"slow{i}", script, "--seed", str(i), "--delay", "0.03") for i in range(2)]
    config, out = write_config(tmp_path, head, bots), tmp_path / "out"
    proc = subprocess.Popen(run_argv(config, out, "--plain", "--cluster", "local:2"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env_with(tag))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
                (out / "games.jsonl").exists() and journal(out)):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    first = journal(out)
    assert 1 <= len(first) < 6, stdout
    assert all(r.result != "*" and r.worker for r in first)  # finished games only
    assert "interrupted" in stderr
    done = run(config, out, tag, "--cluster", "local:2")
    assert done.returncode == 0, done.stderr
    assert f"({6 - len(first)} to play" in done.stdout
    records = check_complete(out)  # every game exactly once across the two sessions
    assert [r.id for r in records[:len(first)]] == [r.id for r in first]


def _scheduler(tmp: Path, tag: str) -> tuple[subprocess.Popen[bytes], str]:
    file = tmp / "scheduler.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", "0",
         "--no-dashboard", "--scheduler-file", str(file), "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env_with(tag))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:  # the file may exist before Dask has finished writing it
            return proc, json.loads(file.read_text())["address"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    _stop([proc])
    raise AssertionError("the scheduler did not write its address within 60 s")


def _worker(address: str, name: str, tag: str, prefix: list[str] | None = None
            ) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
            "--no-nanny", "--no-dashboard", "--name", name, "--host", "127.0.0.1"]
    return subprocess.Popen([*(prefix or []), *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env_with(tag))


def _wait_for_workers(address: str, count: int) -> dict[str, str]:
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(count, timeout=90)
        return {info["name"]: addr for addr, info in client.scheduler_info()["workers"].items()}


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a worker with a different bot file needs a mount namespace (root)")
def test_a_worker_whose_bot_file_differs_is_refused_by_name(tmp_path: Path, tag: str) -> None:
    """Two workers of one scheduler; in the second's mount namespace the bot's script is
    another file (as on another machine with a different copy of the bot)."""
    script = tmp_path / "bot.py"
    script.write_text(RANDOM_BOT.read_text())
    other = tmp_path / "other.py"
    other.write_text(RANDOM_BOT.read_text() + "\n# a different version\n")
    bots = [bot("rnd0", script, "--seed", "0"), bot("rnd1", RANDOM_BOT, "--seed", "1")]
    config = write_config(tmp_path, HEAD, bots)
    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler]
    try:
        bind = ["unshare", "-m", "sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"',
                "sh", str(other), str(script)]
        procs.append(_worker(address, "good", tag))
        procs.append(_worker(address, "bad", tag, prefix=bind))
        names = _wait_for_workers(address, 2)
        done = run(config, tmp_path / "out", tag, "--cluster", address)
        assert done.returncode == 0, done.stderr
        assert f"worker {names['bad']} refused for bot 'rnd0'" in done.stderr, done.stderr
        assert str(script) in done.stderr and "differs" in done.stderr
        records = check_complete(tmp_path / "out")
        assert {r.worker for r in records} == {names["good"]}
        # Without the good worker no worker can play rnd0: the run fails and says why.
        _stop(procs[1:2])
        done = run(config, tmp_path / "out2", tag, "--cluster", address)
        assert done.returncode != 0
        assert "no worker of the cluster can play" in done.stderr, done.stderr
        assert names["bad"] in done.stderr and "rnd0" in done.stderr
        assert not (tmp_path / "out2" / "games.jsonl").read_text()
    finally:
        _stop(procs[::-1])



@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a worker without the bot's folder needs a mount namespace (root)")
def test_a_shipped_bot_runs_from_the_workers_cache(tmp_path: Path, tag: str) -> None:
    """On the worker the bot's folder is empty (as on a machine without the bot): refused as
    it is, played once ``ship = true`` sends the folder, which the worker unpacks in its cache."""
    folder = tmp_path / "shipbot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text(RANDOM_BOT.read_text())
    (folder / "lib" / "data.txt").write_text("the bot's own files come along\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    cache = tmp_path / "cache"
    shipped = '[[bots]]\nname = "shipped"\ncmd = ["{python}", "bot.py", "--seed", "3"]\n'
    shipped += 'cwd = "shipbot"\n'
    plain = bot("rnd1", RANDOM_BOT, "--seed", "1")
    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler]
    try:
        bind = ["unshare", "-m", "sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"',
                "sh", str(empty), str(folder), "env", f"ARENA_CACHE={cache}"]
        procs.append(_worker(address, "elsewhere", tag, prefix=bind))
        names = _wait_for_workers(address, 1)
        config = write_config(tmp_path, HEAD, [shipped, plain])
        done = run(config, tmp_path / "out1", tag, "--cluster", address)
        assert done.returncode != 0 and "no worker of the cluster can play bot 'shipped'" in \
            done.stderr, done.stderr
        assert f"{folder / 'bot.py'} not found" in done.stderr
        assert "install the same bot files on the workers, or set ship = true" in done.stderr
        assert "bubblewrap" not in done.stderr  # the fix for a file problem, and only it
        config = write_config(tmp_path, HEAD, [shipped + "ship = true\n", plain])
        done = run(config, tmp_path / "out2", tag, "--cluster", address)
        assert done.returncode == 0, done.stderr
        records = check_complete(tmp_path / "out2")
        assert {r.worker for r in records} == {names["elsewhere"]}
        assert all(r.moves[2:] and r.termination.value in ("normal", "adjudication")
                   for r in records)
        unpacked = list((cache / "bots").iterdir())
        assert len(unpacked) == 1 and (unpacked[0] / "lib" / "data.txt").is_file()
        assert (unpacked[0] / "bot.py").read_text() == RANDOM_BOT.read_text()
    finally:
        _stop(procs[::-1])


@pytest.mark.skipif(os.geteuid() != 0, reason="a starved worker needs a pids cgroup (root)")
def test_a_game_the_machine_fails_is_played_again_on_another_worker(tmp_path: Path,
                                                                   tag: str) -> None:
    """One of two workers has no process slot left (a pids cgroup at its current count, as
    after a fork bomb on that machine): its games are not scored, the others play them."""
    from distributed import Client
    from test_arena_faults import pids_cgroup

    bots = [bot(f"rnd{i}", private_bot(tmp_path, RANDOM_BOT), "--seed", str(i))
            for i in range(2)]
    config = write_config(tmp_path, HEAD.replace("seed = 5", "seed = 5\ngames_per_pairing = 4"),
                          bots)
    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler]
    try:
        with pids_cgroup("max") as group:
            procs.append(_worker(address, "good", tag))
            starved = _worker(address, "starved", tag)
            procs.append(starved)
            (group / "cgroup.procs").write_text(str(starved.pid))
            names = _wait_for_workers(address, 2)
            with Client(address, timeout=30) as client:  # its task thread exists from now on
                client.submit(os.getpid, workers=[names["starved"]], pure=False).result()
            tasks = len((group / "cgroup.procs").read_text().split()) + len(
                list(Path(f"/proc/{starved.pid}/task").iterdir()))
            (group / "pids.max").write_text(str(tasks))
            done = run(config, tmp_path / "out", tag, "--cluster", address)
            (group / "pids.max").write_text("max")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"worker {names['starved']}: game " in done.stderr, done.stderr
        assert "Resource temporarily unavailable; playing it again on another worker" in \
            done.stderr, done.stderr
        records = check_complete(tmp_path / "out")
        assert {r.worker for r in records} == {names["good"]}
    finally:
        _stop(procs[::-1])


def test_ship_needs_the_bots_own_folder(tmp_path: Path) -> None:
    from arena.settings.config import ConfigError, load_config

    config = write_config(tmp_path, HEAD, [bot("a", RANDOM_BOT) + "ship = true\n",
                                           bot("b", RANDOM_BOT)])
    with pytest.raises(ConfigError, match=r"t\.toml:\d+: bots\[0\]\.ship: .*no cwd"):
        load_config(config)


def test_the_worker_list_is_asked_of_the_scheduler_not_the_clients_cache() -> None:
    """The client's cached identity, which its own refresh replaces every 2 s with one that
    lists no worker, must not be what a run counts its workers and threads from: under load a
    game failed with "every worker failed it ()". Here the refresh always wins the race."""
    from distributed import Client, LocalCluster
    from distributed.client import SchedulerInfo

    from arena.cluster.executor import worker_threads

    with LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)
        emptied = SchedulerInfo({**client.scheduler_info(), "workers": {}})

        async def refresh_wins(n_workers: int = 0) -> None:
            client._scheduler_identity = emptied

        client._update_scheduler_info = refresh_wins  # type: ignore[method-assign]
        assert client.scheduler_info()["workers"] == {}  # what the run used to read
        threads = worker_threads(client)
    assert sorted(threads.values()) == [2, 2] and len(threads) == 2


def test_a_worker_without_a_working_bubblewrap_is_told_to_install_it(tmp_path: Path,
                                                                    tag: str) -> None:
    """A bot with ``sandbox = "bwrap"``, two workers: one without bubblewrap on its PATH, one
    whose bwrap cannot make a sandbox (a stand-in that fails as bwrap does where user
    namespaces are disabled). The run is refused naming both, and says what fixes each:
    install bubblewrap, make it run, or change the bot's sandbox; not the bot's files."""
    from test_hostile_no_bwrap import path_without_bwrap

    bare = path_without_bwrap(tmp_path / "bare")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bwrap").write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    (broken / "bwrap").chmod(0o755)
    bots = [bot("boxed", RANDOM_BOT, "--seed", "0") + 'sandbox = "bwrap"\n',
            bot("plain", RANDOM_BOT, "--seed", "1")]
    config = write_config(tmp_path, HEAD, bots)
    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler]
    try:
        procs.append(_worker(address, "bare", tag, prefix=["env", f"PATH={bare}"]))
        procs.append(_worker(address, "broken", tag,
                             prefix=["env", f"PATH={broken}:{os.environ['PATH']}"]))
        names = _wait_for_workers(address, 2)
        done = run(config, tmp_path / "out", tag, "--cluster", address)
    finally:
        _stop(procs[::-1])
    assert done.returncode == 2, done.stdout + done.stderr  # refused before the first game
    said = done.stderr
    assert "no worker of the cluster can play bot 'boxed'" in said, said
    lines = said.splitlines()
    bare_line = next(line for line in lines if line.strip().startswith(names["bare"]))
    assert "sandbox = 'bwrap' but bubblewrap (bwrap) is not installed here" in bare_line
    broken_line = next(line for line in lines if line.strip().startswith(names["broken"]))
    assert "No permissions to create new namespace" in broken_line, said
    assert "install bubblewrap on the workers (apt-get install bubblewrap)" in said
    assert "make bubblewrap run on the workers" in said
    assert 'change the bot\'s sandbox (sandbox = "auto"' in said
    assert "bot files" not in said and "ship = true" not in said, said
    assert not (tmp_path / "out" / "games.jsonl").read_text()
