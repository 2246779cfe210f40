"""A settings file's mistakes, located: ``FILE:LINE: key: problem; fix``, and the one TOML
decoder that says them.

Every file a person writes for the arena (a tournament config, a bots file and its
``engines.json`` form, ``league.toml``, a submitted folder's ``bot.toml``) reports a mistake
the same way, as a :class:`ConfigError` made by :func:`config_error`: the file, the line, the
key's path (``bots[2].tc``), what is wrong and, when there is one, how to fix it.

msgspec reports *where* a value is wrong as a path (``$.bots[2].tc``); :func:`locate` maps
that path back to a line of the TOML text. :func:`decode_toml` (bytes) and
:func:`convert_toml` (a table already decoded, as a config is after its bots file's entries
are merged in) decode into a typed shape; a typo'd key, a missing one or a value of the wrong
kind becomes a located error with its fix: the keys allowed there (and the closest one), the
values a choice allows, the value as written.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TypeVar

import msgspec

from arena.errors import UserError

T = TypeVar("T")

KeyPath = Sequence[str | int]
"""A key's place in a file: ``("bots", 2, "tc")``."""


class ConfigError(UserError):
    """A settings problem, already phrased as ``FILE:LINE: key: problem; fix``."""


class Fail(Protocol):
    """Makes the error of one file at a key's path (:func:`toml_error` with the file bound)."""

    def __call__(self, where: KeyPath, problem: str, fix: str = "") -> ConfigError: ...


Hint = Callable[[list[str | int], str], str | None]
"""A decoder's own fix for a problem at a path (None: the usual one)."""


def dotted(path: KeyPath) -> str:
    """``("bots", 2, "tc")`` -> ``bots[2].tc``; the empty path is ``(top level)``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(top level)"


def config_error(file: Path | str, line: int | None, path: KeyPath, problem: str,
                 fix: str = "") -> ConfigError:
    """The one shape of a settings error: ``FILE:LINE: key: problem; fix``."""
    where = f"{file}:{line}" if line else str(file)
    return ConfigError(f"{where}: {dotted(path)}: {problem}" + (f"; {fix}" if fix else ""))


def toml_error(file: Path, text: str, path: KeyPath, problem: str, fix: str = "") -> ConfigError:
    """An error at ``path`` of the TOML ``text`` read from ``file``, at the line it is
    written on (or its nearest written ancestor's)."""
    return config_error(file, locate(text, path), path, problem, fix)


# --------------------------------------------------------------------------- locating lines
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=""")
_PATH_TOKEN = re.compile(r"\.([A-Za-z0-9_-]+)|\[(\d+)\]")


def _key_parts(raw: str) -> list[str]:
    return [p.strip().strip("\"'") for p in raw.split(".")]


def line_index(text: str) -> dict[tuple[str | int, ...], int]:
    """Map every table and key path of a TOML text to its 1-based line.

    Array-of-tables entries get integer indices (``("bots", 2, "tc")``) as in msgspec paths.
    Inline tables are not walked into; their keys fall back to the enclosing key's line.
    """
    index: dict[tuple[str | int, ...], int] = {}
    counts: dict[tuple[str | int, ...], int] = {}
    current: tuple[str | int, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            parts = _key_parts(header.group(2))
            # Resolve a prefix that names an array of tables to its latest entry.
            path: tuple[str | int, ...] = ()
            for part in parts[:-1]:
                path = (*path, part)
                if path in counts:
                    path = (*path, counts[path] - 1)
            path = (*path, parts[-1])
            if header.group(1) == "[[":
                n = counts.get(path, 0)
                counts[path] = n + 1
                index.setdefault(path, number)
                path = (*path, n)
            index[path] = number
            current = path
            continue
        key = _KEY.match(line)
        if key:
            index.setdefault((*current, *_key_parts(key.group(1))), number)
    return index


def parse_path(path: str) -> tuple[str | int, ...]:
    """``$.bots[2].tc`` -> ``("bots", 2, "tc")``."""
    out: list[str | int] = []
    for name, idx in _PATH_TOKEN.findall(path.removeprefix("$")):
        out.append(int(idx) if idx else name)
    return tuple(out)


def locate(text: str, path: KeyPath) -> int | None:
    """The line where ``path`` is written, or of its nearest written ancestor; None if unknown."""
    index = line_index(text)
    probe = tuple(path)
    while probe:
        if probe in index:
            return index[probe]
        probe = probe[:-1]
    return None


# --------------------------------------------------------------------------- decoding
def decode_toml(raw: bytes, type: type[T], file: Path, *, see: str = "",
                hint: Hint | None = None) -> T:
    """``raw`` (the TOML read from ``file``) as a ``type``; a mistake is a located
    :class:`ConfigError` (``see``: the fix of last resort, such as where every key is
    documented; ``hint``: the decoder's own fixes)."""
    text = raw.decode("utf-8", errors="replace")
    try:
        return msgspec.toml.decode(raw, type=type)
    except msgspec.ValidationError as exc:
        raise validation_error(file, text, exc, type, see=see, hint=hint) from None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None


def convert_toml(data: Any, type: type[T], file: Path, text: str, *, see: str = "",
                 hint: Hint | None = None) -> T:
    """A table decoded from ``file``'s TOML ``text`` (and changed since) as a ``type``; a
    mistake is located as :func:`decode_toml` locates it."""
    try:
        return msgspec.convert(data, type=type)
    except msgspec.ValidationError as exc:
        raise validation_error(file, text, exc, type, see=see, hint=hint) from None


_UNKNOWN: Final = re.compile(r"Object contains unknown field `([^`]+)`")
_MISSING: Final = re.compile(r"Object missing required field `([^`]+)`")


def split_validation(exc: msgspec.ValidationError) -> tuple[str, list[str | int]]:
    """msgspec's message as (the problem, the path it names)."""
    problem, _, raw_path = str(exc).partition(" - at `")
    return problem, list(parse_path(raw_path.rstrip("`"))) if raw_path else []


def validation_error(file: Path, text: str, exc: msgspec.ValidationError, root: type, *,
                     see: str = "", hint: Hint | None = None) -> ConfigError:
    """msgspec's complaint about ``file`` (decoded as ``root``), located and given its fix."""
    problem, path = split_validation(exc)
    if m := _UNKNOWN.match(problem):
        key = m.group(1)
        where = [*path, key]
        allowed = allowed_fields(root, path)
        fix = f"allowed keys here: {', '.join(allowed)}" if allowed else "remove it"
        close = _closest(key, allowed)
        if close:
            fix = f"did you mean {close!r}? " + fix
        problem = f"unknown key {key!r}"
        own = hint(where, problem) if hint else None
        return toml_error(file, text, where, problem, own or fix)
    if m := _MISSING.match(problem):
        problem = f"missing required key {m.group(1)!r}"
        own = hint(path, problem) if hint else None
        return toml_error(file, text, path, problem, own or "add it")
    problem = problem.replace("`", "")
    own = hint(path, problem) if hint else None
    if own is None and problem.startswith("Invalid enum value") and (
            choices := literal_choices(root, path)):
        own = f"use one of: {', '.join(repr(c) for c in choices)}"
    if own is None:
        written = written_value(text, path)
        if written is not None:
            problem += f", got {written}"
    return toml_error(file, text, path, problem, own or see)


def written_value(text: str, path: KeyPath) -> str | None:
    """The scalar written at ``path`` as TOML shows it (``2000000000``, ``'x'``), for errors
    that must quote the value; None when the path holds a table or is not found."""
    import tomllib

    try:
        node: Any = tomllib.loads(text)
        for part in path:
            node = node[part]
    except (tomllib.TOMLDecodeError, LookupError, TypeError):
        return None
    if isinstance(node, (dict, list)):
        return None
    if isinstance(node, bool):
        return "true" if node else "false"
    return repr(node) if isinstance(node, str) else str(node)


def _struct_in(kind: Any) -> type[msgspec.Struct] | None:
    """The Struct a field's type holds: itself, or the element of an optional, a list or a
    table of them."""
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        return kind
    for arg in typing.get_args(kind):
        found = _struct_in(arg)
        if found is not None:
            return found
    return None


def struct_at(root: type, path: KeyPath) -> type[msgspec.Struct] | None:
    """The Struct type the table at ``path`` decodes into (from ``root``, the file's type),
    None when ``path`` is no table of one."""
    struct = _struct_in(root)
    for part in path:
        if isinstance(part, int):  # an entry of an array of tables: the same Struct
            continue
        if struct is None:
            return None
        field = typing.get_type_hints(struct).get(part)
        struct = None if field is None else _struct_in(field)
    return struct


def allowed_fields(root: type, path: KeyPath) -> list[str]:
    """Field names of the Struct at ``path`` (for 'did you mean' hints)."""
    struct = struct_at(root, path)
    return list(struct.__struct_fields__) if struct else []


def literal_choices(root: type, path: KeyPath) -> list[object]:
    """The values a Literal-typed key at ``path`` allows (``sandbox``: auto, bwrap...), or []."""
    struct = struct_at(root, path[:-1]) if path and isinstance(path[-1], str) else None
    if struct is None:
        return []
    kind = typing.get_type_hints(struct).get(str(path[-1]))
    for option in (kind, *typing.get_args(kind)):
        if typing.get_origin(option) is Literal:
            return list(typing.get_args(option))
    return []


def _closest(word: str, candidates: Sequence[str]) -> str | None:
    import difflib  # a mistake's hint only: not in every run's start-up

    found = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return found[0] if found else None
