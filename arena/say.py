"""Where a command's lines go: :data:`Say`, a callable taking one line of text, and the three
standard ones (what it does on stdout, warnings and errors on stderr).

A service (a tournament, a league night, a submission) takes its ``say``/``warn`` callables
from its caller, so that a command prints, a test collects and a web server logs the same
lines; nothing below the commands prints behind its caller's back.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

Say = Callable[[str], None]
"""Where a line of text goes (no newline)."""


def say_on(stream: TextIO | None = None) -> Say:
    """Lines to ``stream`` (default: this process's stdout at the time of each line)."""
    return lambda text: print(text, file=stream or sys.stdout, flush=True)


def error_on(stream: TextIO | None = None) -> Say:
    """Lines to ``stream`` (default: this process's stderr at the time of each line)."""
    return lambda text: print(text, file=stream or sys.stderr, flush=True)


def warn_on(stream: TextIO | None = None) -> Say:
    """Warnings (``arena: warning: ...``) to ``stream`` (default: stderr)."""
    return lambda text: print(f"arena: warning: {text}", file=stream or sys.stderr, flush=True)


def ignore(text: str) -> None:
    """Lines nobody reads."""
