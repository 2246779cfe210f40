"""cutechess's ``engines.json`` read as a bots file: each engine of it as a bot table.

A cutechess user already keeps their engines in ``engines.json`` (written by the cutechess GUI,
read by ``cutechess-cli -engine conf=NAME``); ``bots_file = "engines.json"`` uses it as it is.
Each entry becomes the bot table :mod:`arena.settings.botsfile` would read from TOML:

- ``name`` -> ``name``; ``command`` (one string, split as a shell would, without running
  one) -> ``cmd``; ``workingDirectory`` -> ``cwd`` (relative to the file's folder, as in a
  TOML bots file); ``protocol`` ``"uci"`` -> ``uci`` (``xboard`` is refused: the arena
  does not speak it);
- ``options`` (a list of ``{"name", "value", ...}``) -> ``options``, the ``value`` of each
  (an option without one keeps the engine's default; ``button`` options are skipped);
- ``restart`` ``"on"``/``"off"`` -> ``always``/``never``;
- what only the cutechess GUI uses (``stderrFile``, ``variants``, ``whitespace``, ``ponder``,
  ``validateClaims``, an empty ``initStrings``) is ignored; anything else, or
  ``initStrings`` with lines in it (the arena sends no raw lines), is an error naming the
  entry and its line.

A cutechess file usually holds engines the arena cannot play (``xboard`` chess engines): an
entry that does not convert is an error only when a config uses it, as a TOML entry's missing
program is. A file that is not a list of named engines is an error at once.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, Final

from arena.settings.located import ConfigError, config_error

IGNORED: Final = frozenset({"stderrFile", "variants", "whitespace", "ponder",
                            "validateClaims"})
"""Keys of cutechess's entries that say nothing the arena acts on."""
UNDERSTOOD: Final = ("name", "command", "workingDirectory", "protocol", "options", "restart",
                     "initStrings")
SHOWN_KEYS: Final = {"cmd": "command", "cwd": "workingDirectory"}
"""The arena's key -> the engines.json key that wrote it, for messages."""
_RESTART: Final = {"on": "always", "off": "never", "auto": "auto"}


def entry_lines(text: str, names: list[str]) -> list[int]:
    """The line of each entry's ``"name"`` (in order), for messages; 1 when not found."""
    lines: list[int] = []
    at = 0
    for name in names:
        found = text.find(json.dumps(name), at)
        if found < 0:
            lines.append(1)
            continue
        lines.append(text.count("\n", 0, found) + 1)
        at = found + 1
    return lines


def read_engines_json(text: str, shown: Path
                      ) -> tuple[list[dict[str, Any]], list[int], list[ConfigError | None]]:
    """The bot tables of an ``engines.json`` text, the line of each entry, and what is wrong
    with each (None: nothing; the table then holds only the name). A mistake is a
    :class:`ConfigError` naming the file, the entry's line and the key."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{shown}: not valid JSON: {exc}") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise ConfigError(f"{shown}: expected a JSON list of engine objects (cutechess's "
                          "engines.json)")
    names = [e.get("name") if isinstance(e.get("name"), str) else "" for e in data]
    lines = entry_lines(text, names)
    tables: list[dict[str, Any]] = []
    problems: list[ConfigError | None] = []
    for i, entry in enumerate(data):

        def fail(key: str, problem: str, fix: str = "", i: int = i) -> ConfigError:
            return config_error(shown, lines[i], ["bots", i, *([key] if key else [])],
                                problem, fix)

        if not names[i].strip():
            raise fail("name", "every engine needs a name (a string)")
        try:
            tables.append(_table(entry, fail))
            problems.append(None)
        except ConfigError as exc:
            tables.append({"name": names[i]})
            problems.append(exc)
    return tables, lines, problems


def _table(entry: dict[str, Any], fail: Any) -> dict[str, Any]:
    for key in entry:
        if key not in IGNORED and key not in UNDERSTOOD:
            ignored = ", ".join(sorted(IGNORED))
            raise fail(key, f"unknown key {key!r}",
                       f"keys read: {', '.join(UNDERSTOOD)} (ignored: {ignored})")
    name, command = entry["name"], entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise fail("command", f"engine {name!r} has no command (a string)")
    try:
        cmd = shlex.split(command)
    except ValueError as exc:
        raise fail("command", f"cannot split {command!r}: {exc}") from None
    table: dict[str, Any] = {"name": name, "cmd": cmd}
    cwd = entry.get("workingDirectory")
    if cwd:
        if not isinstance(cwd, str):
            raise fail("workingDirectory", "must be a path (a string)")
        table["cwd"] = cwd
    protocol = entry.get("protocol", "uci")
    if protocol != "uci":
        raise fail("protocol", f"engine {name!r} speaks {protocol!r}; the arena speaks uci (and "
                   "its own native protocol, and hub for draughts)",
                   "use a UCI engine, or describe it in a TOML bots file")
    table["protocol"] = "uci"
    if entry.get("initStrings"):
        raise fail("initStrings", f"engine {name!r} has init strings; the arena sends no raw "
                   "lines", "turn them into options, or describe it in a TOML bots file")
    restart = entry.get("restart")
    if restart is not None:
        if restart not in _RESTART:
            raise fail("restart", f"unknown restart mode {restart!r}", "use 'on' or 'off'")
        table["restart"] = _RESTART[restart]
    options: dict[str, Any] = {}
    given = entry.get("options", [])
    if not isinstance(given, list):
        raise fail("options", "must be a list of {name, value} objects")
    for option in given:
        if not isinstance(option, dict) or not isinstance(option.get("name"), str):
            raise fail("options", f"engine {name!r}: an option without a name: {option!r}")
        if option.get("type") == "button" or "value" not in option:
            continue
        value = option["value"]
        if not isinstance(value, (str, int, float, bool)):
            raise fail("options", f"engine {name!r}: option {option['name']!r} has the value "
                       f"{value!r}", "a string, number or boolean")
        options[option["name"]] = value
    if options:
        table["options"] = options
    return table
