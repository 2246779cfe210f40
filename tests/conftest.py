"""Test-wide hooks: the ``needs`` marker for Debian packages and the summary of what a local
run skipped for want of them (see tests/system_packages.py).

``make test`` runs the tests in several pytest-xdist worker processes (``--dist loadgroup``):
a skip is noted where the test ran (``system_packages.skipped``), travels to the controller on
the test's report (a user property), and the controller prints the summary. Run without xdist,
the one process does all three. Under xdist the tests marked slow are handed out first, so
that no worker starts a long test while the others run out of work.
"""

from __future__ import annotations

from collections.abc import Generator

import pluggy
import pytest
from system_packages import install_command, problem, require, skipped

MISSING = "needs_debian_package"
"""The user property a skipped test's report carries, once per package it lacked."""

_missing: dict[str, set[str]] = {}
"""Package -> the tests skipped for want of it, as the reports say (read by the summary)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: every worker sorts alike
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs"):
        for package in mark.args:
            require(package, item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]
                              ) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    outcome = yield
    report = outcome.get_result()
    if report.skipped:
        lacked = [(MISSING, package) for package, tests in sorted(skipped.items())
                  if item.nodeid in tests]
        if lacked:  # a new list: the report shares item.user_properties with later phases
            report.user_properties = [*report.user_properties, *lacked]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for key, value in report.user_properties:
        if key == MISSING:
            _missing.setdefault(str(value), set()).add(report.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _missing:
        return
    terminalreporter.section("skipped for want of Debian packages")
    for package, tests in sorted(_missing.items()):
        terminalreporter.write_line(f"{package}: {len(tests)} test(s) skipped ({problem(package)})")
    terminalreporter.write_line(
        f"install them with: {install_command(list(_missing))}  (or run `bash .ci/run` as root)"
    )
