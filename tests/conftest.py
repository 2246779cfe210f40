"""Test-wide hooks: the ``needs`` marker for Debian packages and the summary of what a local
run skipped for want of them (see tests/system_packages.py)."""

from __future__ import annotations

import pytest
from system_packages import install_command, problem, require, skipped


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs"):
        for package in mark.args:
            require(package, item.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not skipped:
        return
    terminalreporter.section("skipped for want of Debian packages")
    for package, tests in sorted(skipped.items()):
        terminalreporter.write_line(f"{package}: {len(tests)} test(s) skipped ({problem(package)})")
    terminalreporter.write_line(
        f"install them with: {install_command(list(skipped))}  (or run `bash .ci/run` as root)"
    )
