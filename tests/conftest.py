"""Test-wide hooks: the ``needs`` marker for Debian packages and the summary of what a local
run skipped for want of them (see tests/system_packages.py), how ``make test`` hands the
tests out to its pytest-xdist workers, and Hypothesis settings that hold on a busy machine.

A skip is noted where the test ran (``system_packages.skipped``), travels to the controller on
the test's report (a user property), and the controller prints the summary; run without
xdist, the one process does all three.

Under xdist (``--dist loadgroup``, as ``make test`` runs) each test is a work unit of its own,
handed to whichever worker runs short of work, except in the modules of :data:`SHARED_SETUP`:
the tests that share a module fixture go to one worker together, so it is built once. The
tests marked slow are handed out first, so that no worker starts a long test while the others
run out of work. (xdist's own ``xdist_group`` mark does not group anything with pytest 9.2: it
renames the node ids, which pytest no longer lets it do; pytest-xdist issue #1386.)
"""

from __future__ import annotations

import signal
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pluggy
import pytest
from hypothesis import HealthCheck, settings
from system_packages import install_command, problem, require, skipped

# Every property test's defaults (a test's own ``settings(...)`` starts from them): no deadline
# per example and no failure for slow input generation, both of which measure the machine's
# load, not the code (on a loaded 2-core machine what takes 0.1 s idle takes seconds). The
# number of examples stays each test's own.
settings.register_profile("arena", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("arena")

# A shell script that starts `make test` in the background (`make test &` without job control)
# starts it with SIGINT ignored, and every child inherits that: the tests that press Ctrl-C on
# `arena play`, `arena run` or `arena serve` would then wait for an exit that never comes.
# Handled here (not ignored), SIGINT is back to its default in every program the tests start.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

SHARED_SETUP: dict[str, str] = {
    "tests/test_report_browser.py": "module",  # five built reports, opened by each test
    "tests/test_report_content.py": "param",  # a built report per game, read by most tests
    "tests/test_league_report.py": "module",  # a hand-made league and its report
    "tests/test_league_browser.py": "module",  # the same, opened in one Chromium
}
"""Test modules whose tests share an expensive module-scoped fixture (paths relative to the
project, as in node ids), and what one xdist worker runs of each: ``module``, the whole
module; ``param``, the tests of one parameter of the fixture (a node id ending in
``[<param>]``: the report of one game), each other test going to any worker on its own (they
build their own runs: the five reports and the rest are built side by side)."""

MISSING = "needs_debian_package"
"""The user property a skipped test's report carries, once per package it lacked."""

_missing: dict[str, set[str]] = {}
"""Package -> the tests skipped for want of it, as the reports say (read by the summary)."""


SLOW_TIMEOUT_S = 900
"""pytest-timeout's limit for a test marked slow that sets none of its own (the others keep
pyproject's 300 s): a hang guard, wide enough for a whole tournament or a browser run on a
machine loaded five times over."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT_S))
    if hasattr(config, "workerinput"):  # an xdist worker: every worker sorts alike
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` as it should work, with :data:`SHARED_SETUP` as the groups."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module, _, test = nodeid.partition("::")
            shared = SHARED_SETUP.get(module)
            if shared == "module":
                return module
            if shared == "param" and test.endswith("]"):
                return module + "[" + test.split("[", 1)[1]
            return nodeid

    return SharedSetupScheduling(config, log)


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


@pytest.fixture
def tmp_path(tmp_path: Path) -> Path:
    """pytest's own ``tmp_path``, searchable and readable by other users (0755, as a folder
    made under umask 022 is). Bots run as an unprivileged uid of their own, and a test often
    makes a bot's folder there; pytest makes it 0700. The folders above it stay private, so
    the sandbox's covers over private ancestors (referee.process.botview) are exercised by every
    such test."""
    tmp_path.chmod(0o755)
    return tmp_path
