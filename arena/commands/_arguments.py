"""Command-line values shared by several commands."""

from __future__ import annotations

from arena.errors import UserError


def key_values(items: list[str], flag: str, form: str = "KEY=VALUE") -> dict[str, str]:
    """``KEY=VALUE`` arguments of a repeatable ``flag`` (``--option``, ``--bot-option``) as a
    dict, both sides stripped; anything else is a :class:`UserError` quoting the argument and
    the expected ``form`` (the flag's metavar)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"{flag} {item!r}: expected {form}")
        out[key.strip()] = value.strip()
    return out
