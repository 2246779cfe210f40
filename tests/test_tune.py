"""``arena tune`` end to end with real bot processes: the [tune] section checked against the
options the bot declares before any game, a whole tune and its proof, the values each side
was really given, the tune log and the tuned bot, resume after SIGKILL, and the tune's page
in a real browser."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from test_web_traversal import get, serving

from arena.errors import UserError
from arena.rundir.journal import iter_records
from arena.rundir.tunelog import read_tune_log
from arena.settings.config import load_config
from arena.settings.located import ConfigError
from arena.tune.options import declared_options, tune_params

ROOT = Path(__file__).resolve().parents[1]
TUNE_BOT = ROOT / "tests" / "bots" / "tune_bot.py"
ARENA = [sys.executable, "-m", "arena.cli"]


def write_config(tmp_path: Path, params: str, *, games: int = 8, proof_games: int = 4,
                 extra: str = "") -> Path:
    config = tmp_path / "tune.toml"
    config.write_text(f"""game = "dobutsu"
tc = "60+1"
concurrency = 2
seed = 3

[adjudication]
max_plies = 24

[[bots]]
name = "tb"
cmd = ["{{python}}", "{TUNE_BOT}"]

[tune]
bot = "tb"
games = {games}
{extra}
{params}
[tune.proof]
elo1 = 50
max_games = {proof_games}
""")
    return config


AIM_AND_TEMPER = """
[[tune.params]]
option = "Aim"
start = 10
c = 20
r = 0.05

[[tune.params]]
option = "Temper"
start = 0.5
c = 0.1
min = 0
max = 1
"""


def params_of(config: Path) -> list[object]:
    loaded = load_config(config)
    assert loaded.config.tune is not None
    return list(tune_params(loaded, declared_options(loaded.bots[0])))


def test_params_from_the_declared_options(tmp_path: Path) -> None:
    aim, temper = params_of(write_config(tmp_path, AIM_AND_TEMPER))
    assert (aim.low, aim.high, aim.integer) == (-100, 100, True)  # type: ignore[attr-defined]
    assert (temper.low, temper.high, temper.integer) == (0, 1, False)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("table", "key", "words"), [
    ('option = "Aimm"\nstart = 1\nc = 1', "option", ["'Aimm'", "declared: Aim, Fast"]),
    ('option = "Aim"\nstart = 1\nc = 1\nmax = 500', "max", ["max 500", "declared max 100"]),
    ('option = "Aim"\nstart = 1\nc = 1\nmin = -101', "min", ["min -101", "declared min -100"]),
    ('option = "Aim"\nstart = 150\nc = 1', "start", ["start 150", "-100..100"]),
    ('option = "Temper"\nstart = 0.5\nc = 0.1', "min", ["'Temper'", "give min and max"]),
    ('option = "Motto"\nstart = 1\nc = 1\nmin = 0\nmax = 2', "option",
     ["'Motto'", "non-numeric default 'carpe'"]),
    ('option = "Fast"\nstart = 1\nc = 1', "option", ["'Fast' is a check option"]),
])
def test_bad_params_are_refused_before_any_game_naming_bot_option_and_value(
        tmp_path: Path, table: str, key: str, words: list[str]) -> None:
    config = write_config(tmp_path, f"[[tune.params]]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        params_of(config)
    text = str(caught.value)
    line = config.read_text().splitlines().index("[[tune.params]]") + 1
    assert re.match(rf"{re.escape(str(config))}:(\d+): tune\.params\[0\]\.{key}: bot 'tb': ",
                    text), text
    assert int(text.split(":")[1]) >= line
    for word in words:
        assert word in text, text


@pytest.mark.parametrize(("table", "words"), [
    ('option = "Aim"\nstart = "high"\nc = 1', ["tune.params[0].start", "Expected float", "'high'"]),
    ('option = "Aim"\nstart = 1\nc = 0', ["tune.params[0].c", ">"]),
])
def test_non_numeric_and_bad_steps_are_refused_by_the_decoder(tmp_path: Path, table: str,
                                                              words: list[str]) -> None:
    config = write_config(tmp_path, f"[[tune.params]]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    for word in words:
        assert word in str(caught.value), caught.value


def test_arena_run_refuses_a_tune_config(tmp_path: Path) -> None:
    from arena.run.driver import RunSettings, run_tournament

    with pytest.raises(UserError, match="arena tune"):
        run_tournament(RunSettings(config=write_config(tmp_path, AIM_AND_TEMPER)))


def tune_cli(config: Path, out: Path, *more: str, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen([*ARENA, "tune", str(config), "-o", str(out), "--plain", *more],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=ROOT, start_new_session=True, **kw)  # type: ignore[call-overload]


def check_tune_dir(out: Path, iterations: int) -> None:
    """Every iteration planned once and updated once, from its own two journaled games."""
    log = read_tune_log(out / "tune.jsonl")
    lines = [msgspec.json.decode(line) for line in (out / "tune.jsonl").read_bytes().splitlines()]
    assert sum(r["type"] == "began" for r in lines) == 1
    planned = [r["k"] for r in lines if r["type"] == "planned"]
    updated = [r["k"] for r in lines if r["type"] == "updated"]
    assert sorted(planned) == sorted(set(planned)) == list(range(1, iterations + 1))
    assert sorted(updated) == sorted(set(updated)) == list(range(1, iterations + 1))
    records = list(iter_records(out / "games.jsonl"))
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids))
    points = {r.id: {"1-0": 1.0, "0-1": 0.0}.get(r.result, 0.5) for r in records}
    for u in log.updated:
        plus = points[f"t{u.k:05d}-g1"] + 1.0 - points[f"t{u.k:05d}-g2"]
        assert u.result == 2.0 * (plus - 1.0)
    assert log.tuned is not None and log.tuned.iterations == iterations
    # The sides were given the planned values: each process logs its options once.
    for k, plan in log.planned.items():
        for side, values in (("plus", plan.plus), ("minus", plan.minus)):
            log_file = out / "logs" / f"tb.{side}" / f"t{k:05d}-g1.stderr.log"
            if log_file.is_file():  # a process may have started for the other game
                text = log_file.read_text()
                assert log.began is not None
                for name, value in zip(log.began.options, values, strict=True):
                    assert f"{name}={value}" in text, text


@pytest.mark.slow
def test_a_whole_tune_then_its_proof(tmp_path: Path) -> None:
    config = write_config(tmp_path, AIM_AND_TEMPER)
    out = tmp_path / "run"
    proc = tune_cli(config, out)
    output, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, output
    check_tune_dir(out, 4)
    assert "arena: tuned tb over 4 iterations: Aim=" in output
    assert re.search(r"arena: proof, tb\.tuned against the start: .*(better|undecided)", output)
    tuned = msgspec.toml.decode((out / "tuned-bots.toml").read_bytes())["bots"][0]
    log = read_tune_log(out / "tune.jsonl")
    assert log.tuned is not None
    assert tuned["name"] == "tb.tuned"
    assert tuned["options"] == {"Aim": log.tuned.values[0], "Temper": log.tuned.values[1]}
    proof = [r for r in iter_records(out / "games.jsonl") if r.id.startswith("p")]
    assert len(proof) >= 4 and {r.p1 for r in proof} == {"tb.tuned", "tb.start"}
    assert (out / "report" / "tune.html").is_file() and (out / "report.html").is_file()
    # `arena serve` shows the tune as a run: its sides' standings, its report and tune page.
    with serving([*ARENA, "serve", str(out), "--port", "0", "--no-report"],
                 tmp_path / "serve.log") as port:
        status, page = get(port, "/")
        assert status == 200 and b"tb.plus" in page and b"tb.tuned" in page
        status, page = get(port, "/run/report/tune.html")
        assert status == 200 and b"Tune of tb" in page
    # Run again: nothing is played twice, the same log.
    again = tune_cli(config, out)
    output, _ = again.communicate(timeout=600)
    assert again.returncode == 0, output
    check_tune_dir(out, 4)


@pytest.mark.slow
def test_a_tune_on_a_cluster_gives_each_side_its_values(tmp_path: Path) -> None:
    """The workers play each game with the order's options, not the config's bot as it is."""
    config = write_config(tmp_path, AIM_AND_TEMPER)
    out = tmp_path / "run"
    proc = tune_cli(config, out, "--cluster", "local:2")
    output, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, output
    check_tune_dir(out, 4)
    logged = [p.read_text() for p in (out / "logs" / "tb.plus").glob("*.stderr.log")]
    assert logged and all("options: Aim=" in text for text in logged)


def wait_for(condition: object, what: str, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def updates(out: Path) -> int:
    path = out / "tune.jsonl"
    return path.read_bytes().count(b'"type":"updated"') if path.is_file() else 0


@pytest.mark.slow
def test_resume_after_sigkill_loses_and_repeats_no_iteration(tmp_path: Path) -> None:
    iterations = 12
    config = write_config(tmp_path, AIM_AND_TEMPER, games=2 * iterations)
    out = tmp_path / "run"
    for stop_at in (3, 8):  # killed twice, at seeded points of the tune
        proc = tune_cli(config, out)
        try:
            wait_for(lambda: updates(out) >= stop_at or proc.poll() is not None,  # noqa: B023
                     f"{stop_at} updates")
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL  # killed mid-tune, not finished
        assert read_tune_log(out / "tune.jsonl").tuned is None
    last = tune_cli(config, out)
    output, _ = last.communicate(timeout=600)
    assert last.returncode == 0, output
    check_tune_dir(out, iterations)


@pytest.mark.slow
def test_league_tune_of_a_stored_version_and_the_submit_it_prints(tmp_path: Path) -> None:
    def arena(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*ARENA, *argv], capture_output=True, text=True, timeout=600,
                              cwd=ROOT)

    root = tmp_path / "league"
    made = arena("league", "init", str(root), "--game", "dobutsu", "--tc", "60+1",
                 "--max-plies", "24", "--concurrency", "2")
    assert made.returncode == 0, made.stderr
    sub = arena("league", "submit", str(root), "tb", "--option", "Aim=5", "--",
                sys.executable, str(TUNE_BOT))
    assert sub.returncode == 0, sub.stdout + sub.stderr
    tune_file = tmp_path / "tune-tb.toml"
    tune_file.write_text('[tune]\ngames = 4\n[[tune.params]]\noption = "Aim"\nstart = 10\n'
                         'c = 20\n[tune.proof]\nelo1 = 50\nmax_games = 2\n')
    bad = tmp_path / "bad.toml"
    bad.write_text('[tune]\ngames = 4\n[[tune.params]]\noption = "Nope"\nstart = 1\nc = 1\n')
    refused = arena("league", "tune", str(root), "tb@1", str(bad))
    assert refused.returncode == 2
    assert f"{bad}:4: tune.params[0].option: bot 'tb@1': declares no option 'Nope'" \
        in refused.stderr, refused.stderr
    done = arena("league", "tune", str(root), "tb@1", str(tune_file), "--plain")
    assert done.returncode == 0, done.stdout + done.stderr
    out = root / "tunes" / "tb-1"
    log = read_tune_log(out / "tune.jsonl")
    assert log.tuned is not None and log.began is not None and log.began.bot == "tb@1"
    records = list(iter_records(out / "games.jsonl"))
    assert {r.p1 for r in records} >= {"tb@1.plus", "tb@1.minus"}
    hint = done.stdout.split("next version with:\n", 1)[1].strip()
    assert hint.startswith(f"arena league submit {root} tb ")
    assert f"--option=Aim={log.tuned.values[0]}" in hint and sys.executable in hint
    # The hint, run, submits tb@2 with the tuned value.
    again = arena(*hint.split()[1:])
    assert again.returncode == 0, again.stdout + again.stderr
    from arena.leaguedir.directory import LeagueDir
    from arena.leaguedir.versions import read_versions

    second = [v for v in read_versions(LeagueDir(root)) if v.label == "tb@2"]
    assert len(second) == 1
    assert str(second[0].options["Aim"]) == str(log.tuned.values[0])


def test_a_resume_with_other_settings_is_refused(tmp_path: Path) -> None:
    from arena.rundir.tunelog import Began, append_tune_records
    from arena.tune.session import TuneSettings, run_tune

    out = tmp_path / "run"
    out.mkdir()
    append_tune_records(out / "tune.jsonl", [Began(
        bot="tb", options=["Aim", "Temper"], start=[10.0, 0.5], c=[20.0, 0.1], iterations=99,
        seed=3, at=0.0)])
    with pytest.raises(UserError, match="began with iterations 99, the config now says 4"):
        run_tune(TuneSettings(config=write_config(tmp_path, AIM_AND_TEMPER), output=out,
                              report=False))
    assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_bytes()


def test_the_tune_log_reader_leaves_out_a_torn_last_line_and_names_a_bad_one(
        tmp_path: Path) -> None:
    from arena.rundir.tunelog import Planned, append_tune_records

    path = tmp_path / "tune.jsonl"
    append_tune_records(path, [Planned(k=1, flips=[1], plus=[2], minus=[0],
                                       games=["t00001-g1", "t00001-g2"])])
    with path.open("ab") as fh:
        fh.write(b'{"type":"updated","k":1,"res')  # a killed writer's half line
    assert list(read_tune_log(path).planned) == [1] and read_tune_log(path).updated == []
    path.write_bytes(b'{"type":"nonsense"}\n' + path.read_bytes())
    with pytest.raises(UserError, match=rf"{re.escape(str(path))}:1: not a tune record"):
        read_tune_log(path)
