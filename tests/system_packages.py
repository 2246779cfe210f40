"""The Debian packages some tests need, and what a test does when one is missing.

A test names its package with ``@pytest.mark.needs("bubblewrap")`` (or calls :func:`require`
when only some of its parameters need one). Python modules are never optional: the lock file
installs them all, so a missing module is an error like any other. A Debian package cannot be
installed by pip, so locally the test is skipped and the run ends with the one command that
installs what was missing (tests/conftest.py prints it); in CI (``CI=true``, where .ci/run has
installed them) a missing package fails the test instead, so a broken install never passes
quietly as a run with fewer tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from functools import cache

import pytest

FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"
CHROMIUM = "/usr/bin/chromium"


def _file(path: str) -> Callable[[], str | None]:
    return lambda: None if os.path.exists(path) else f"{path} is missing"


def _program(name: str) -> Callable[[], str | None]:
    return lambda: None if shutil.which(name) else f"{name} is not on PATH"


def _bwrap() -> str | None:
    if shutil.which("bwrap") is None:
        return "bwrap is not on PATH"
    probe = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"],
                           capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return f"bwrap cannot create namespaces here: {probe.stderr.strip()}"
    return None


PACKAGES: dict[str, Callable[[], str | None]] = {
    "fairy-stockfish": _file(FAIRY_STOCKFISH),
    "bubblewrap": _bwrap,
    "chromium": _file(CHROMIUM),
    "nodejs": _program("node"),
    "gcc": _program("cc"),
    "golang-go": _program("go"),
    "cargo": _program("cargo"),
}
"""Debian package name -> why it cannot be used here (None when it can). .ci/run installs
exactly these."""

skipped: dict[str, list[str]] = {}
"""Package -> the tests skipped for want of it in this run (read by the summary hook)."""


@cache
def problem(package: str) -> str | None:
    """Why ``package`` cannot be used on this machine, or None when it can."""
    return PACKAGES[package]()


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def install_command(packages: list[str]) -> str:
    return "sudo apt-get install -y " + " ".join(sorted(packages))


def require(package: str, test: str | None = None) -> None:
    """Skip the running test (fail it in CI) unless Debian ``package`` is usable."""
    if package not in PACKAGES:
        raise KeyError(f"unknown Debian package {package!r}: add it to PACKAGES and .ci/run")
    why = problem(package)
    if why is None:
        return
    message = f"needs Debian package {package} ({why}): {install_command([package])}"
    if in_ci():
        pytest.fail(f"CI: {message}; .ci/run should have installed it", pytrace=False)
    name = test or os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" ", 1)[0]
    skipped.setdefault(package, []).append(name)
    pytest.skip(message)
