"""``arena run --cluster`` on a cluster that changes under it: real ``dask scheduler`` and
``dask worker`` processes on 127.0.0.1 that join late, die mid-batch or lose their scheduler,
and the live files of games played on workers.

The bots are the sample random bot from the repository, slowed by ``--delay`` so that a game
lasts long enough to be caught running. Every Dask process of a test carries a tag in its
environment and the test fails if one outlives it (the ``tag`` fixture of ``test_cluster``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_cluster import ROOT, _scheduler, _stop, _wait_for_workers, _worker, env_with, tag
from test_runner import RANDOM_BOT, bot, check_complete, journal, run_argv, write_config

pytestmark = pytest.mark.slow
__all__ = ["tag"]  # the fixture, imported for the tests here
RUN_TIMEOUT = 300


def _head(games: int, plies: int) -> str:
    return (f'game = "dobutsu"\ntc = "20+0.2"\ngames_per_pairing = {games}\nseed = 7\n'
            f"[adjudication]\nmax_plies = {plies}\n")


def _config(tmp: Path, games: int, plies: int, delay: float) -> Path:
    bots = [bot(f"slow{i}", RANDOM_BOT, "--seed", str(i), "--delay", str(delay))
            for i in range(2)]
    return write_config(tmp, _head(games, plies), bots)


def _start(config: Path, out: Path, tag: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(run_argv(config, out, "--plain", *extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env_with(tag))


def _wait_for(what: str, check: object, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _journaled(out: Path) -> int:
    path = out / "games.jsonl"
    return len(path.read_bytes().splitlines()) if path.exists() else 0


def _finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_worker_that_joins_after_the_start_plays_games(tmp_path: Path, tag: str) -> None:
    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler]
    try:
        procs.append(_worker(address, "first", tag))
        _wait_for_workers(address, 1)
        out = tmp_path / "out"
        # About 30 s of play for one worker: enough left for the late one on a busy machine.
        proc = _start(_config(tmp_path, 24, 40, 0.06), out, tag, "--cluster", address)
        try:
            _wait_for("the first game", lambda: _journaled(out) >= 1)
            procs.append(_worker(address, "late", tag))
            names = _wait_for_workers(address, 2)
            joined = time.time()
        finally:
            stdout, stderr = _finish(proc)
        assert proc.returncode == 0, stdout + stderr
        assert "1 workers, 1 threads" in stdout
        records = check_complete(out)
        late = [r for r in records if r.worker == names["late"]]
        assert late, f"the late worker played nothing: {[r.worker for r in records]}"
        # It got games within seconds of joining, not only when the first one ran out.
        assert min(r.started_at for r in late) - joined < 30
        assert any(r.worker == names["first"] for r in records)
        # What each worker would print once (its limits) is printed here, once for both.
        limits = [line for line in stderr.splitlines()
                  if line.startswith("arena: worker tcp://") and ": limits: " in line]
        assert len(limits) == 1, stderr
    finally:
        _stop(procs[::-1])


def test_a_worker_lost_mid_batch_loses_nothing_and_doubles_nothing(tmp_path: Path,
                                                                   tag: str) -> None:
    from distributed import Client

    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler]
    try:
        procs += [_worker(address, "one", tag), _worker(address, "two", tag)]
        names = _wait_for_workers(address, 2)
        out = tmp_path / "out"
        proc = _start(_config(tmp_path, 12, 40, 0.03), out, tag, "--cluster", address)
        try:
            # A worker that has sent a game of its batch back and is playing the next one.
            def victim() -> str | None:
                workers = {str(r.worker) for r in journal(out)} if _journaled(out) else set()
                with Client(address, timeout=30) as client:
                    busy = {w for w, keys in client.processing().items() if keys}
                return next(iter(sorted(workers & busy)), None)

            found: list[str] = []

            def spotted() -> bool:
                if (address := victim()) is not None:
                    found.append(address)
                return bool(found)

            _wait_for("a worker with a game journaled and a batch running", spotted)
            gone = found[0]
            before = [r.id for r in journal(out) if r.worker == gone]
            which = next(name for name, addr in names.items() if addr == gone)
            os.kill(procs[1 if which == "one" else 2].pid, signal.SIGKILL)
        finally:
            stdout, stderr = _finish(proc)
        assert proc.returncode == 0, stdout + stderr
        records = check_complete(out)  # every game once: none lost, none doubled
        assert len(records) == 12
        lines = (out / "games.jsonl").read_text().splitlines()
        assert len(lines) == len(set(lines)) == 12
        kept = [r.id for r in records if r.worker == gone]
        assert set(before) <= set(kept)  # the games it finished before dying stay its own
        said = stdout + stderr
        assert f"worker {gone} lost: game " in said and " replayed" in said, said
        replayed = said.split(f"worker {gone} lost: game ", 1)[1].split()[0]
        again = next(r for r in records if r.id == replayed)
        assert again.worker != gone and again.result != "*"
    finally:
        _stop(procs[::-1])


STOP_MARGIN_S = 30
"""Added to the documented limit for a loaded machine (2 cores under 8 busy loops): the
scheduler's last answer may come late, and the run's own end takes longer there."""


@pytest.mark.parametrize("how", ["SIGTERM", "SIGSTOP"])
def test_losing_the_scheduler_stops_the_run_and_a_new_one_resumes_it(tmp_path: Path, tag: str,
                                                                     how: str) -> None:
    """SIGTERM: the scheduler goes, its connections close. SIGSTOP: it hangs, keeping its
    connections open and answering nothing. Either way the run stops with exit status 3 within
    the README's limit and says so once; the same command with a new scheduler plays the rest,
    every scheduled game journaled exactly once."""
    from arena.cluster.executor import SCHEDULER_STOP_S

    readme = (ROOT / "README.md").read_text()
    assert f"within {SCHEDULER_STOP_S} s of the scheduler's last answer" in readme
    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler, _worker(address, "one", tag)]
    config, out = _config(tmp_path, 12, 40, 0.03), tmp_path / "out"
    try:
        _wait_for_workers(address, 1)
        proc = _start(config, out, tag, "--cluster", address)
        try:
            _wait_for("the first game", lambda: _journaled(out) >= 1)
            scheduler.send_signal(getattr(signal, how))
            began = time.monotonic()
        finally:
            stdout, stderr = _finish(proc)
        took = time.monotonic() - began
    finally:
        if scheduler.poll() is None:
            scheduler.send_signal(signal.SIGCONT)  # a stopped one, so that SIGTERM ends it
        _stop(procs[::-1])
    assert proc.returncode == 3, stdout + stderr
    assert took < SCHEDULER_STOP_S + STOP_MARGIN_S, f"the run took {took:.0f} s to stop"
    said = (stdout + stderr).splitlines()
    lost = [line for line in said if "lost the cluster's scheduler" in line]
    assert len(lost) == 1 and lost[0].startswith("arena: error: "), said  # said once
    assert address in lost[0]
    assert not [line for line in said if "could not be played" in line], said
    assert "run the same command again" in stderr
    first = journal(out)
    assert 1 <= len(first) < 12 and all(r.result != "*" for r in first)
    # A new scheduler (another address) and worker: the same command plays the rest.
    again = tmp_path / "again"  # its own scheduler file
    again.mkdir()
    scheduler, address = _scheduler(again, tag)
    procs = [scheduler, _worker(address, "two", tag)]
    try:
        _wait_for_workers(address, 1)
        done = subprocess.run(run_argv(config, out, "--plain", "--cluster", address),
                              capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT,
                              env=env_with(tag))
    finally:
        _stop(procs[::-1])
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"({12 - len(first)} to play" in done.stdout
    records = check_complete(out)  # every scheduled game once: none lost, none doubled
    assert len(records) == 12
    assert [r.id for r in records[:len(first)]] == [r.id for r in first]


def test_the_live_file_of_a_cluster_game_has_its_moves(tmp_path: Path, tag: str) -> None:
    out = tmp_path / "out"
    proc = _start(_config(tmp_path, 2, 60, 0.1), out, tag, "--cluster", "local:1")
    seen: list[list[str]] = []

    def moving() -> bool:
        for path in (out / "live").glob("*.jsonl") if (out / "live").is_dir() else []:
            lines = path.read_text().splitlines()
            if len(lines) >= 4:  # the header and three moves
                seen.append(lines)
                return True
        return False

    try:
        _wait_for("a live file with moves", moving)
    finally:
        stdout, stderr = _finish(proc)
    assert proc.returncode == 0, stdout + stderr
    import json

    header, *moves = (json.loads(line) for line in seen[0])
    assert header["p1"] in ("slow0", "slow1") and header["game"] == "dobutsu"
    assert all(isinstance(m["move"], str) and m["side"] in (0, 1) for m in moves)
    record = next(r for r in check_complete(out) if r.id == header["id"])
    assert [m["move"] for m in moves] == [m.move for m in record.moves[:len(moves)]]
    assert not list((out / "live").glob("*.jsonl"))  # gone once journaled
