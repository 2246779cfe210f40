"""The two ways a bot's process fails the referee: it could not start, or it went away."""

from __future__ import annotations


class BotStartError(Exception):
    """The bot's program could not be started (missing file, not executable, bad cwd)."""


class BotExited(Exception):
    """The bot closed its output or exited while a line was expected."""
