"""``arena run --referees N``: whole games spread over N referee processes (a local Dask
cluster), journaled by the one runner. The runner's own tests run with 1 and 2 referees
(test_runner.py's ``REFEREES`` matrix); here what is particular to them: a referee process
killed mid-game loses and doubles no game, the default count, and the refusals. Real
processes throughout, and none left behind (test_cluster.py's ``tag``)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_cluster import RUN_TIMEOUT, env_with, tag  # noqa: F401 (tag: a fixture)
from test_runner import (
    RANDOM_BOT,
    ROOT,
    arena_run,
    bot,
    check_complete,
    journal,
    private_bot,
    run_argv,
    write_config,
)

from arena.errors import UserError
from arena.run.referees import GAMES_PER_REFEREE, Referees, referees_for
from referee.record import Termination


def test_the_default_is_one_process_per_eight_games_at_once_and_two_cores() -> None:
    assert referees_for(None, 2, cores=2) == Referees(1, 2)
    assert referees_for(None, GAMES_PER_REFEREE, cores=8) == Referees(1, 8)
    assert referees_for(None, 64, cores=2) == Referees(1, 64)  # no core to spare here
    assert referees_for(None, 16, cores=4) == Referees(2, 8)
    assert referees_for(None, 64, cores=8) == Referees(4, 16)
    assert referees_for(None, 64, cores=64) == Referees(8, 8)
    assert referees_for(3, 16, cores=2) == Referees(3, 6)  # asked: as asked
    assert referees_for(4, 2, cores=8) == Referees(2, 1)  # never more than the games at once
    with pytest.raises(UserError, match="--referees 0: expected a positive number"):
        referees_for(0, 4)


@pytest.mark.slow
def test_referees_with_a_cluster_is_refused_in_one_line(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'game = "dobutsu"\ntc = "10+0.1"\n',
                          [bot("a", RANDOM_BOT), bot("b", RANDOM_BOT)])
    done = arena_run(config, tmp_path / "out", "--referees", "2", "--cluster", "local:2")
    assert done.returncode == 2, done.stderr
    assert "--referees 2 with a cluster (local:2)" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_killing_a_referee_process_mid_game_loses_and_doubles_nothing(tmp_path: Path,
                                                                      tag: str) -> None:  # noqa: F811
    from distributed import Client

    head = 'game = "dobutsu"\ntc = "20+0.2"\ngames_per_pairing = 8\nconcurrency = 4\n'
    head += "[adjudication]\nmax_plies = 30\n"
    script = private_bot(tmp_path, RANDOM_BOT)
    bots = [bot(f"slow{i}", script, "--seed", str(i), "--delay", "0.04") for i in range(2)]
    out = tmp_path / "out"
    proc = subprocess.Popen(
        run_argv(write_config(tmp_path, head, bots), out, "--plain", "--referees", "2"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env_with(tag))
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("arena: referees tcp://"), line + proc.communicate()[1]
        assert "2 processes, 2 games at once each" in line, line
        address = line.split()[2].rstrip(":")
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
            pids = client.run(os.getpid)
            deadline = time.monotonic() + 60
            victim = None
            while victim is None and time.monotonic() < deadline:
                processing = client.processing()
                busy = [w for w, keys in processing.items() if keys]
                if busy and (out / "games.jsonl").exists() and journal(out):
                    victim = busy[0]
                    os.kill(pids[victim], signal.SIGKILL)
                time.sleep(0.05)
            assert victim is not None, "no game was running in a referee process"
        stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    records = check_complete(out)  # every game once: none lost, none doubled
    assert len(records) == 8
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)) == 8
    said = stdout + stderr
    killed = {part.split()[0] for part in said.split(f"worker {victim} lost: game ")[1:]}
    assert killed, said  # the games it was playing are named, and played again
    for record in records:
        assert record.latency is not None  # measured in the referee processes too
        if record.id in killed:
            assert record.worker != victim
            assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION)


@pytest.mark.slow
def test_a_league_night_on_two_referee_processes(tmp_path: Path, tag: str) -> None:  # noqa: F811
    """``arena league run --referees 2``: the night's games, planned as they go, come from
    both referee processes into the night's one journal."""
    from test_league_night import arena as league_arena
    from test_league_night import journal as night_journal
    from test_league_night import make_league, submit_random

    league = make_league(tmp_path)
    submit_random(league, "alpha", 1)
    submit_random(league, "beta", 2)
    done = league_arena("league", "run", str(league.root), "--games", "8", "--night", "n1",
                        "--plain", "--no-report", "--referees", "2")
    assert "arena: referees tcp://" in done.stdout, done.stdout
    records = night_journal(league, "n1")
    assert len(records) == 8 and len({r.id for r in records}) == 8
    assert len({r.worker for r in records}) == 2, {r.worker for r in records}
