"""``arena run --referees N``: whole games spread over N referee processes
(:mod:`arena.run.refpool`), journaled by the one runner. The runner's own tests run with 1 and
2 referees (test_runner.py's ``REFEREES`` matrix: resume, a SIGKILLed runner, Ctrl-C, SPRT);
here what is particular to them: a referee process killed mid-game loses and doubles no game,
the messages between the processes, the default count, and the refusals. Real processes
throughout, and none left behind (test_cluster.py's ``tag``: the referee processes inherit
the runner's environment)."""

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


def test_the_messages_are_framed_and_read_back_only_as_their_own_types() -> None:
    """Frames cut anywhere come back whole and typed; anything else is refused, naming why."""
    import msgspec

    from arena.run.refwire import (
        HEADER,
        MAX_FRAME,
        BadFrame,
        Done,
        End,
        Frames,
        FromReferee,
        Note,
        Play,
        Stop,
        ToReferee,
        frame,
    )
    from referee.record import GameRecord

    record = GameRecord(game="dobutsu", p1="a", p2="b", result="1-0", id="r1-g1",
                        termination=Termination.NORMAL, reason="p1 wins")
    sent: list[Note | Done | End] = [Note("sandbox: none"), Done("7", record), End("7")]
    data = b"".join(frame(message) for message in sent)
    frames = Frames(FromReferee)  # type: ignore[arg-type]
    got = [message for i in range(0, len(data), 5) for message in frames.feed(data[i:i + 5])]
    assert got == sent and frames.pending == 0
    assert isinstance(got[1], Done) and got[1].record.id == "r1-g1"
    assert Frames(ToReferee).feed(frame(Stop()) + frame(Play("1", []))) == [  # type: ignore[arg-type]
        Stop(), Play("1", [])]
    with pytest.raises(BadFrame, match="none of the expected kinds"):
        Frames(ToReferee).feed(frame(End("7")))  # type: ignore[arg-type]  # not for a referee
    pickled = __import__("pickle").dumps({"k": "done"})
    with pytest.raises(BadFrame, match="none of the expected kinds"):
        Frames(FromReferee).feed(HEADER.pack(len(pickled)) + pickled)  # type: ignore[arg-type]
    with pytest.raises(BadFrame, match=f"at most {MAX_FRAME}"):
        Frames(FromReferee).feed(HEADER.pack(MAX_FRAME + 1))  # type: ignore[arg-type]
    assert msgspec.msgpack.decode(frame(Stop())[HEADER.size:]) == {"type": "stop"}


@pytest.mark.slow
def test_referees_with_a_cluster_is_refused_in_one_line(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'game = "dobutsu"\ntc = "10+0.1"\n',
                          [bot("a", RANDOM_BOT), bot("b", RANDOM_BOT)])
    done = arena_run(config, tmp_path / "out", "--referees", "2", "--cluster", "local:2")
    assert done.returncode == 2, done.stderr
    assert "--referees 2 with a cluster (local:2)" in done.stderr
    assert "Traceback" not in done.stderr


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def referee_pids(line: str) -> list[int]:
    """The pids the runner's first line names: ``arena: referees: 2 processes (pid A, B)``."""
    assert line.startswith("arena: referees: "), line
    return [int(pid) for pid in line.split("(pid ", 1)[1].split(")", 1)[0].split(", ")]


@pytest.mark.slow
def test_killing_a_referee_process_mid_game_loses_and_doubles_nothing(tmp_path: Path,
                                                                      tag: str) -> None:  # noqa: F811
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
        assert "2 processes" in line and "2 games at once each" in line, line
        pids = referee_pids(line)
        deadline = time.monotonic() + 120
        victim = None
        live = False  # a running game's live file, from the moves its referee process sends
        while victim is None and time.monotonic() < deadline:
            live = live or any((out / "live").glob("*.jsonl"))
            busy = [pid for pid in pids if children(pid)]  # its bots: a game is running
            if busy and (out / "games.jsonl").exists() and journal(out):
                victim = busy[0]
                os.kill(victim, signal.SIGKILL)
            time.sleep(0.05)
        assert victim is not None, "no game was running in a referee process"
        while not live and proc.poll() is None:
            live = any((out / "live").glob("*.jsonl"))
            time.sleep(0.05)
        stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    assert live, "no live file while games of 1 s ran in referee processes"
    records = check_complete(out)  # every game once: none lost, none doubled
    assert len(records) == 8
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)) == 8
    said = stdout + stderr
    lost = f"referee process {victim} lost (killed by SIGKILL): game "
    killed = {part.split()[0] for part in said.split(lost)[1:]}
    assert killed, said  # the games it was playing are named, and played again
    for record in records:
        assert record.latency is not None  # measured in the referee processes too
        assert record.worker is not None and record.worker.startswith("referee ")
        if record.id in killed:
            assert record.worker != f"referee {victim}"
            assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION)
    assert len({record.worker for record in records}) >= 2


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
    assert "arena: referees: 2 processes" in done.stdout, done.stdout
    records = night_journal(league, "n1")
    assert len(records) == 8 and len({r.id for r in records}) == 8
    assert len({r.worker for r in records}) == 2, {r.worker for r in records}
