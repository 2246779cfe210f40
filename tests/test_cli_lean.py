"""``arena --help`` lists every command without importing any of them."""

from __future__ import annotations

import argparse
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
