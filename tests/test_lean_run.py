"""``arena run`` loads only what playing needs: no numpy before the first game, and no numpy,
pandas, matplotlib, scipy or report builder at all when no report is built, not even for the
standings it prints at its end (issue 40).

A real run of real bot processes in a child interpreter. The first game's bot reads its
parent's memory map (``/proc/PPID/maps``) when it is first asked to move, which tells what
the runner had loaded by then; the child itself lists its modules and reads its own memory
map when it exits, after its last line.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow  # a whole (small) tournament

PROBE = """
import os, signal, sys, time
log = sys.argv[1]
for line in sys.stdin:
    word = line.split()[:1]
    if word == ["uci"]:
        print("id name probe\\nuciok", flush=True)
    elif word == ["isready"]:
        print("readyok", flush=True)
    elif word == ["go"]:
        with open("/proc/%d/maps" % os.getppid()) as maps:
            loaded = maps.read()
        with open(log, "a") as out:
            out.write("numpy\\n" if "numpy" in loaded else "lean\\n")
        try:  # the run's very first go (of either bot): the runner lists its modules now
            os.close(os.open(log + ".asked", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            pass
        else:
            os.kill(os.getppid(), signal.SIGUSR1)
            for _ in range(6000):  # until it has (a busy machine: a minute at most)
                if os.path.exists(log + ".modules"):
                    break
                time.sleep(0.01)
        print("bestmove a1a1", flush=True)
    elif word == ["quit"]:
        break
"""

NOT_AT_FIRST_GO = frozenset({"arena.cluster.batching", "referee.process.jail",
                             "referee.process.rootfs", "typing_extensions"})
"""Modules the first game of a plain run of unsandboxed bots does not need (issue 40);
msgspec is imported without ``typing_extensions`` (:func:`arena.startup.load_msgspec`)."""

CHILD = """
import atexit, gc, os, signal, sys
from arena import startup
from arena.cli import main

def heavy():
    names = sorted(m for m in sys.modules
                   if m.split(".")[0] in ("numpy", "pandas", "matplotlib", "scipy")
                   or m in ("reports.html", "reports.rounds", "reports.format_tables",
                            "reports.rating_tables", "reports.journal_summary"))
    print("HEAVY", names)
    print("COLLECTOR", gc.isenabled(), gc.get_freeze_count() > 0)
    with open("/proc/self/maps") as maps:
        print("MAPPED", sorted({line.rsplit("/", 1)[-1].strip() for line in maps
                                if "numpy" in line or "pandas" in line}))

atexit.register(heavy)

def modules_now(signum, frame):
    with open(sys.argv[3] + ".part", "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
    os.rename(sys.argv[3] + ".part", sys.argv[3])

signal.signal(signal.SIGUSR1, modules_now)
startup.pause()  # as the arena command starts (arena.cli.console)
startup.load_msgspec()
sys.exit(main(["run", sys.argv[1], "--output", sys.argv[2], "--no-report", "--plain"]))
"""


def test_a_plain_run_without_report_loads_no_report_library(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    seen = tmp_path / "seen.txt"
    bots = "".join(
        f'[[bots]]\nname = "p{i}"\nprotocol = "uci"\nsandbox = "none"\n'
        f'cmd = ["{sys.executable}", "-S", "{probe}", "{seen}"]\n' for i in (1, 2))
    config = tmp_path / "t.toml"
    config.write_text(f'game = "dobutsu"\ngames_per_pairing = 2\ntc = "10+0.1"\n{bots}')
    done = subprocess.run([sys.executable, "-c", CHILD, str(config), str(tmp_path / "out"),
                           f"{seen}.modules"],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "HEAVY []" in done.stdout, done.stdout
    assert "MAPPED []" in done.stdout, done.stdout
    # The start-up ran without the cyclic collector; the run turned it back on for its games,
    # with the start-up's objects frozen (arena.startup).
    assert "COLLECTOR True True" in done.stdout, done.stdout
    # The end-of-run text is there all the same: the standings, and the pair's Elo difference
    # with its interval (the fit's table is the report's, and needs numpy).
    assert "final standings" in done.stdout and "p1 vs p2: " in done.stdout, done.stdout
    assert "Elo " in done.stdout and "+/- " in done.stdout, done.stdout
    # Every game's first go: the runner had not loaded numpy (the ratings) by then.
    firsts = seen.read_text().split()
    assert firsts and set(firsts) == {"lean"}, firsts
    # At the first go, nothing that only a cluster, bubblewrap or the uid containment needs
    # was loaded (these bots run unsandboxed, on this machine).
    at_first_go = set(Path(f"{seen}.modules").read_text().split())
    assert "arena.run.runner" in at_first_go  # the list is the runner's, at play
    assert not at_first_go & NOT_AT_FIRST_GO, sorted(at_first_go & NOT_AT_FIRST_GO)


@pytest.fixture
def fresh_trial(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's trial as in a new process: not run yet, nothing started."""
    from referee.process import sandbox

    monkeypatch.setattr(sandbox, "bwrap_problem", functools.cache(
        sandbox.bwrap_problem.__wrapped__))
    monkeypatch.setattr(sandbox, "_trial", None)


@pytest.mark.needs("bubblewrap")
def test_the_sandbox_trial_started_early_gives_the_verdict_and_leaves_no_child(
        fresh_trial: None) -> None:
    """``arena run`` starts bwrap's trial as soon as the config is read (it then runs while
    the runner loads); the first launch reads that trial's result rather than running one."""
    from referee.process import sandbox

    sandbox.start_bwrap_trial()
    assert sandbox.bwrap_trial_pending()
    trial = sandbox._trial
    assert trial is not None
    assert sandbox.bwrap_problem() is None
    assert not sandbox.bwrap_trial_pending() and trial.returncode == 0  # read and reaped
    sandbox.start_bwrap_trial()  # the verdict is known: no second trial
    assert not sandbox.bwrap_trial_pending()


def test_a_failing_early_trial_is_the_verdict(tmp_path: Path, fresh_trial: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A bwrap that cannot make its namespaces here says so through the early trial, as
    through the trial run at the first launch (the machine's fault, named)."""
    from referee.process import sandbox

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: str(fake))
    sandbox.start_bwrap_trial()
    assert sandbox.bwrap_trial_pending()
    problem = sandbox.bwrap_problem()
    assert problem is not None and "No permissions to create a new namespace" in problem
    assert not sandbox.bwrap_trial_pending()


def test_standings_without_the_fit_say_what_the_reports_head_to_head_says(
        tmp_path: Path) -> None:
    """The standings of a run without a report (not fitted): ranked by score per game, no Elo
    column but each score's 95% interval (every bot listed has a number with its
    uncertainty), and under them each pair's line, from its higher-ranked bot's side, with the
    figures of the report's head-to-head table (one home: ratings.pairwise), numpy unloaded."""
    import io

    from arena.run.progress import Progress
    from bench.synthetic import BotProfile, round_robin, write_journal

    records = round_robin("dobutsu", (BotProfile("a"), BotProfile("b"), BotProfile("c")),
                          games_per_pairing=4, seed=3, max_plies=60)
    out = io.StringIO()
    progress = Progress(title="t", names=["a", "b", "c"], total=len(records), out=out,
                        live=False, fitted=False)
    for record in records:
        progress.finished(record)
    progress.summary()
    standings = progress.standings
    assert [name for name, _ in standings.columns][-2:] == ["%", "% 95%"]  # no Elo column
    pcts = [s.score / s.games for _, s in standings.ranked()]
    assert pcts == sorted(pcts, reverse=True)
    for row, pct in zip(standings.rows(), pcts, strict=True):
        low, high = (float(x) for x in row[-1].split("-"))
        assert low < 100 * pct < high and high - low > 10, row  # 8 games: a wide interval
    text = out.getvalue()
    lines = text.splitlines()
    shown = [line for line in lines if " vs " in line]
    assert len(shown) == 3, text
    probe = subprocess.run([sys.executable, "-c", "import sys; from arena.run.progress import "
                            "Standings; print('numpy' in sys.modules)"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert probe.stdout.strip() == "False", probe.stderr

    from reports.journal_summary import summarise_journal
    from reports.rating_tables import head_to_head

    write_journal(tmp_path, records)
    order = [name for name, _ in standings.ranked()]
    table = head_to_head(summarise_journal(tmp_path), order)
    assert len(table) == len(shown)
    for line, (_, row) in zip(shown, table.iterrows(), strict=True):
        assert line.startswith(f"{row['bot']} vs {row['opponent']}: "
                               f"{row['W']} - {row['L']} - {row['D']} "), (line, row)
        elo, error = line.split("Elo ")[1].split(",")[0].split(" +/- ")
        # The same numbers, spelt for text (``inf``, ``-``) and for pages (``∞``, blank).
        page = {"+∞": "+inf", "−∞": "-inf", "∞": "inf", "": "-"}
        assert (elo, error) == (page.get(row["Elo diff"], row["Elo diff"]),
                                page.get(row["+-"], row["+-"])), (line, row)
