"""``arena check-bot``: the random bot passes every step; broken bots fail with their output."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from system_packages import FAIRY_STOCKFISH

from arena.cli import main

ROOT = Path(__file__).resolve().parent.parent
RANDOM = [sys.executable, str(ROOT / "sample_bots" / "random_bot.py")]
MISBEHAVE = [sys.executable, str(ROOT / "tests" / "bots" / "misbehave.py")]
FSF = FAIRY_STOCKFISH


@pytest.mark.parametrize("game", ["dvonn", "donkan"])
def test_random_bot_passes(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-bot", game, "--", *RANDOM, "--seed", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "FAIL" not in out and "all steps passed" in out
    assert "PASS   2. handshake" in out
    if game == "dvonn":
        assert "forced pass), go with 5 s clocks: bestmove pass" in out
        assert "placement, 48 pieces placed" in out


def test_a_script_path_relative_to_the_current_folder_is_found(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandboxed bot runs in its script's folder; the relative path still names it."""
    monkeypatch.chdir(ROOT)
    status = main(["check-bot", "jungle", "--", sys.executable, "sample_bots/random_bot.py",
                   "--seed", "3"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "all steps passed" in out


def test_garbage_bot_fails_showing_its_output(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-bot", "jungle", "--", *MISBEHAVE, "garbage", "1"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FAIL   7." in out and "unknown message 'hello'" in out
    assert "< hello there" in out  # the bot's own line
    assert "SKIP  15. quit" in out
    assert "the bot failed a step" in out


def test_crashing_bot_fails_showing_its_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-bot", "dobutsu", "--", *MISBEHAVE, "crash", "0"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FAIL   6." in out and "exit status 3" in out
    assert "crashing on purpose" in out  # from the bot's stderr


def test_silent_bot_stalls_in_the_handshake(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.bots.conformance.STEP_TIMEOUT_S", 0.5)
    assert main(["check-bot", "draughts", "--", *MISBEHAVE, "nohandshake"]) == 1
    out = capsys.readouterr().out
    assert "FAIL   2. handshake" in out and "did not answer ugi within 0.5 s" in out
    assert "> ugi" in out


@pytest.mark.needs("fairy-stockfish")
@pytest.mark.slow
def test_fairy_stockfish_passes_in_uci(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-bot", "dobutsu", "--protocol", "uci", "--", FSF])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Fairy-Stockfish" in out


def test_a_bot_that_says_nothing_is_asked_about_flushing(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    monkeypatch.setattr("arena.bots.conformance.STEP_TIMEOUT_S", 0.5)
    mute = tmp_path / "mute_bot.py"
    mute.write_text("import sys, time\nfor line in sys.stdin:\n    print('id name never')\n"
                    "    time.sleep(60)\n")  # buffered: never reaches the pipe
    assert main(["check-bot", "jungle", "--", sys.executable, str(mute)]) == 1
    out = capsys.readouterr().out
    assert "FAIL   2. handshake" in out
    assert ("no reply from 'mute_bot.py' within 0.5 s: is the bot "
            "flushing its output after each line?") in out


def test_steps_include_histories_a_resumed_game_and_a_timed_quit(
        capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-bot", "dobutsu", "--", *RANDOM, "--seed", "2"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "a game from the start: position startpos moves ... (12 moves)" in out
    assert "a resumed game: position fen <start> moves ... (4 moves)" in out
    assert "quit -> the process exits within 0.5 s: exited after" in out


def slow_exit_bot(tmp_path: Path, seconds: float) -> list[str]:
    """The random bot, whose interpreter waits ``seconds`` at its exit (after ``quit``); a
    copy in ``tmp_path`` with the protocol package beside it (a bot sees its own folder)."""
    shutil.copytree(ROOT / "protocol", tmp_path / "protocol",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "sample_bots").mkdir()
    shutil.copy(RANDOM[1], tmp_path / "sample_bots" / "random_bot.py")
    script = tmp_path / "slow_exit.py"
    script.write_text(
        "import atexit, os, runpy, sys, time\n"
        f"atexit.register(time.sleep, {seconds})\n"
        "bot = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'sample_bots',"
        " 'random_bot.py')\n"
        "sys.argv = [bot, '--seed', '4']\n"
        "runpy.run_path(bot, run_name='__main__')\n")
    return [sys.executable, str(script)]


def test_an_exit_later_than_the_spec_passes_with_a_note(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """How long an exit takes is mostly the machine's: a bot that exits 1 s after ``quit``
    is told so, not rejected (a league submission is checked this way)."""
    assert main(["check-bot", "dobutsu", "--", *slow_exit_bot(tmp_path, 1.0)]) == 0
    out = capsys.readouterr().out
    assert "all steps passed" in out
    assert "later than the SPEC's 0.5 s" in out


def test_a_bot_that_does_not_exit_after_quit_fails(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.bots.conformance.STEP_TIMEOUT_S", 2.0)
    assert main(["check-bot", "dobutsu", "--", *slow_exit_bot(tmp_path, 60.0)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  15. quit" in out and "s after 'quit' (SPEC: exit within 0.5 s" in out


ALPHABETA = [sys.executable, str(ROOT / "sample_bots" / "alphabeta.py")]


def test_bot_options_replace_defaults_and_must_be_declared(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--bot-option`` sets a declared option instead of its default (here a depth cap that
    makes alphabeta answer at once); a name the bot never declared fails the options step,
    listing the names it did declare."""
    status = main(["check-bot", "jungle", "--bot-option", "Depth=2", "--", *ALPHABETA])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "3 option(s) set (1 from --bot-option, the rest to their defaults)" in out
    status = main(["check-bot", "jungle", "--bot-option", "Dept=2", "--", *ALPHABETA])
    out = capsys.readouterr().out
    assert status == 1
    assert ("FAIL   4. setoption for every declared option, isready: --bot-option names "
            "option(s) the bot does not declare: Dept (declared: Depth, Hash, Seed)") in out
    assert main(["check-bot", "jungle", "--bot-option", "Depth", "--", *ALPHABETA]) == 2
    assert "--bot-option 'Depth': expected NAME=VALUE" in capsys.readouterr().err


OPTIONS_BOT = [sys.executable, str(ROOT / "tests" / "bots" / "options_bot.py")]


def test_a_passing_bots_stderr_is_shown_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    """An author's own warnings are printed after a PASS: the first and last 20 lines, the
    count of those left out between, each line cut at 300 characters."""
    status = main(["check-bot", "dobutsu", "--", *OPTIONS_BOT, "--noisy", "100"])
    out = capsys.readouterr().out
    assert status == 0, out
    shown = out.split("the bot's stderr (not part of the protocol; shown for its author):\n")[1]
    lines = shown.splitlines()
    assert lines[0] == "  options: Depth=6"  # check-bot sets declared options to their defaults
    assert "  sanity warning 18: evaluation table not tuned" in lines  # the first 20 lines
    assert "  [... 61 lines left out ...]" in lines
    assert "  sanity warning 99: evaluation table not tuned" in lines  # the last 20
    assert "sanity warning 50" not in shown
    assert lines[-1] == "all steps passed"
    assert len(lines) == 20 + 1 + 20 + 1


def test_a_quiet_passing_bot_shows_no_stderr_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-bot", "jungle", "--", *RANDOM, "--seed", "2"]) == 0
    assert "the bot's stderr" not in capsys.readouterr().out


def test_stderr_excerpt_cuts_long_lines(tmp_path: Path) -> None:
    from arena.bots.conformance import stderr_excerpt

    log = tmp_path / "stderr.log"
    log.write_text("x" * 5000 + "\nshort\n")
    assert stderr_excerpt(log, 20, 20) == ["x" * 300 + " ...", "short"]
    assert stderr_excerpt(tmp_path / "none.log", 20, 20) == []
