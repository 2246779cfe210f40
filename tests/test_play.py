"""``arena play`` end to end: real bots, live output, JSON-lines records, restarts, errors."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from arena.cli import main
from referee.record import Termination, decode_record

pytestmark = pytest.mark.slow  # `arena play` matches between real bot processes

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{shlex.quote(sys.executable)} {ROOT / 'sample_bots' / 'random_bot.py'}"
MISBEHAVE = f"{shlex.quote(sys.executable)} {ROOT / 'tests' / 'bots' / 'misbehave.py'}"


def test_two_games_alternate_colours_and_are_journaled(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", "dobutsu", "--p1", f"{RANDOM} --seed 1", "--p2", f"{RANDOM} --seed 2",
                   "--p1-name", "ann", "--p2-name", "bo", "--tc", "60+1", "--games", "2",
                   "--out", str(tmp_path), "--show"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Game 1: ann (p1) vs bo (p2), tc 60+1" in out
    assert "Game 2: bo (p1) vs ann (p2)" in out
    assert "   1. p1 ann" in out and "clock" in out
    assert "Score of ann vs bo:" in out
    records = [decode_record(line) for line in (tmp_path / "games.jsonl").read_bytes().splitlines()]
    assert [(r.p1, r.p2) for r in records] == [("ann", "bo"), ("bo", "ann")]
    assert all(r.termination in (Termination.NORMAL, Termination.ADJUDICATION) for r in records)
    points = {"ann": 0.0, "bo": 0.0}
    for r in records:
        if r.winner is None:
            points["ann"] += 0.5
            points["bo"] += 0.5
        else:
            points[(r.p1, r.p2)[r.winner]] += 1
    assert f"Score of ann vs bo: {points['ann']:g} - {points['bo']:g}" in out
    assert not (tmp_path / "logs" / "ann.stderr.log").exists()  # silent on stderr: no log


def test_crashing_bot_is_restarted_for_the_next_game(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", "jungle", "--p1", f"{MISBEHAVE} crash 1", "--p2", RANDOM,
                   "--tc", "st=5", "--games", "2", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert status == 0
    records = [decode_record(line) for line in (tmp_path / "games.jsonl").read_bytes().splitlines()]
    assert [r.termination for r in records] == [Termination.CRASH, Termination.CRASH]
    assert [r.result for r in records] == ["0-1", "1-0"]  # misbehave was p1, then p2
    assert "Score of misbehave vs random_bot: 0 - 2" in out
    assert "crashing on purpose" in (tmp_path / "logs" / "misbehave.stderr.log").read_text()


def test_bad_arguments_are_user_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "dobutsu", "--p1", RANDOM, "--p2", RANDOM, "--tc", "fast"]) == 2
    assert "--tc: bad base time 'fast'" in capsys.readouterr().err
    assert main(["play", "dobutsu", "--p1", RANDOM, "--p2", RANDOM, "--opening", "a1a9"]) == 2
    assert "opening move 1 'a1a9'" in capsys.readouterr().err
    assert main(["play", "dobutsu", "--p1", "'unclosed", "--p2", RANDOM]) == 2
    assert "--p1: cannot split command" in capsys.readouterr().err


OPTIONS_BOT = ROOT / "tests" / "bots" / "options_bot.py"


def test_bot_options_from_the_command_line_and_a_bots_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--option p1.Depth=3`` reaches p1 only (over its bots file entry's value), ``each.``
    both, a plain key stays a game option; ``--p1 NAME`` plays the bots file's entry."""
    engines = tmp_path / "engines.toml"
    engines.write_text(f'[[bots]]\nname = "opt"\ncmd = ["{{python}}", "{OPTIONS_BOT}"]\n'
                       "options = { Depth = 6, Hash = 8 }\n")
    status = main(["play", "donkan", "--bots-file", str(engines), "--p1", "opt",
                   "--p2", f"{shlex.quote(sys.executable)} {OPTIONS_BOT}", "--p2-name", "two",
                   "--option", "p1.Depth=3", "--option", "each.Style=calm",
                   "--option", "p2.Depth=9", "--option", "each.Depth=5",
                   "--option", "target=1", "--tc", "inf", "--max-plies", "4",
                   "--out", str(tmp_path / "out"), "--quiet"])
    assert status == 0
    assert "Game 1: opt (p1) vs two (p2)" in capsys.readouterr().out
    logs = tmp_path / "out" / "logs"
    assert "options: Depth=3 Hash=8 Style=calm" in (logs / "opt.stderr.log").read_text()
    # p1./p2. win over each., whatever the order
    assert "options: Depth=9 Style=calm\n" in (logs / "two.stderr.log").read_text()
    record = decode_record((tmp_path / "out" / "games.jsonl").read_bytes().splitlines()[0])
    assert record.options["target"] == "1"
    assert not {"Depth", "Style", "p1.Depth", "each.Style"} & set(record.options)


def test_bot_option_mistakes_are_user_errors(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "dobutsu", "--p1", "human", "--p2", RANDOM,
                 "--option", "p1.Depth=3"]) == 2
    assert "p1 is the human seat, which takes no options" in capsys.readouterr().err
    assert main(["play", "dobutsu", "--p1", "human", "--p2", RANDOM, "--option", "each.X=1",
                 "--option", "p2.=3"]) == 2  # each. reaches the bot seat only: no error for it
    assert "no option name after 'p2.'" in capsys.readouterr().err
    engines = tmp_path / "engines.toml"
    engines.write_text('[[bots]]\nname = "opt"\ncmd = ["./missing"]\n')
    assert main(["play", "dobutsu", "--bots-file", str(engines), "--p1", "otp",
                 "--p2", RANDOM]) == 2
    assert "--p1 'otp': neither an entry of the bots file nor a program; did you mean 'opt'?" \
        in capsys.readouterr().err
    assert main(["play", "dobutsu", "--bots-file", str(engines), "--p1", "opt",
                 "--p2", RANDOM]) == 2
    assert f"{engines}:3: bots[0].cmd: bot 'opt': program './missing' not found" in \
        capsys.readouterr().err


@pytest.mark.needs("fairy-stockfish")
def test_an_engine_of_a_cutechess_engines_json_plays(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A real UCI engine from cutechess's engines.json, with an option from the file and one
    from the command line (``p1.`` prefix, a name with a space)."""
    from system_packages import FAIRY_STOCKFISH

    engines = tmp_path / "engines.json"
    engines.write_text(json.dumps([{"name": "fsf", "command": FAIRY_STOCKFISH, "protocol": "uci",
                                    "options": [{"name": "Hash", "type": "spin", "value": 8}]}]))
    status = main(["play", "dobutsu", "--bots-file", str(engines), "--p1", "fsf", "--p2", RANDOM,
                   "--option", "p1.Skill Level=0", "--tc", "10+0.1", "--max-plies", "10",
                   "--out", str(tmp_path / "out"), "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    record = decode_record((tmp_path / "out" / "games.jsonl").read_bytes().splitlines()[0])
    assert record.p1 == "fsf" and record.termination in (Termination.NORMAL,
                                                         Termination.ADJUDICATION), record.reason
