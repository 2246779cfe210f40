"""``arena --help`` lists every command without importing any of them."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from arena import cli


def _helps(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help for choice in sub._choices_actions}


def test_summaries_equal_each_modules_own_help() -> None:
    assert _helps(cli.build_parser()) == _helps(cli.build_parser(summaries=False))
    assert set(cli.SUMMARIES) == set(cli.COMMANDS)


def test_help_imports_no_command_module_and_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from arena.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "               ('trio', 'numpy', 'scipy', 'pandas', 'matplotlib', 'msgspec')\n"
        "               or m.startswith(('arena.commands.', 'referee.')))\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "check-bot" in done.stdout and "HEAVY []" in done.stdout, done.stdout


def test_output_cut_short_by_its_reader_ends_the_command_quietly() -> None:
    # `arena games | head -1`: the reader goes after one line; the command must not print a
    # BrokenPipeError traceback (neither while printing nor when stdout is flushed at exit).
    read, write = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "games"], stdout=write,
                            stderr=subprocess.PIPE, text=True)
    os.close(write)
    os.close(read)  # before the command writes: every write hits a closed pipe
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 141, err
    assert err == "", err
