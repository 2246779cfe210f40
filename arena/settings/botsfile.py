"""The bots file: engines described once, as ``[[bots]]`` tables, and named from configs and
``arena play`` by name.

A person who plays the same engines in many tournaments keeps them in one file (as cutechess
users keep ``engines.json``)::

    # engines.toml
    [[bots]]
    name = "stockfish"
    cmd = ["/usr/games/fairy-stockfish"]
    protocol = "uci"

A config names it at the top (``bots_file = "engines.toml"``) and takes an entry with
``use``, changing what it needs for this tournament::

    [[bots]]
    use = "stockfish"
    name = "stockfish-d3"        # optional: the entry's name otherwise
    options = { Depth = 3 }      # options, env and limits merge key by key with the entry's

Every key of a bot table may be overridden except ``cmd`` and ``cwd``: a ``use`` table says
how to play an engine, not which engine it is (write a second entry for another program). So
the entry's paths are always relative to the bots file's folder, and a mistake in a key is
reported at the line of the file that wrote it. Only the entries a config uses are checked
beyond their shape (their programs need not exist on a machine that does not play them).

A bots file whose name ends in ``.json`` is read as cutechess's ``engines.json``
(:mod:`arena.settings.enginesjson`): the same entries, in cutechess's keys.

The schedule's fingerprint depends on the bots' names only, so moving a bot into a bots file
(keeping its name) resumes the same run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from arena.settings.botcommand import prepare_bot
from arena.settings.located import (
    ConfigError,
    Fail,
    config_error,
    split_validation,
    toml_error,
    validation_error,
)
from referee.botspec import BotSpec

MAX_BOTS_FILE_BYTES: Final = 1 << 20
"""A bots file longer than this (1 MiB: thousands of engines) is refused unread."""
FIXED_KEYS: Final = ("cmd", "cwd")
"""Keys a ``use`` table may not change: they say which engine the entry is."""
MERGED_KEYS: Final = ("options", "env", "limits")
"""Tables a ``use`` table merges key by key into the entry's (its own values win)."""

_UNKNOWN: Final = "Object contains unknown field `"
SEE_KEYS: Final = "see examples/README.md for every key"


class _BotsFileShape(msgspec.Struct, forbid_unknown_fields=True):
    """The whole of a bots file: bot tables only."""

    bots: list[BotSpec] = []


class BotsFile(msgspec.Struct, frozen=True):
    """A read and checked bots file: each entry as written (for merging) and where it is."""

    path: Path
    """Absolute: the folder its entries' paths are relative to."""
    shown: Path
    """As the person wrote it, for messages."""
    text: str
    tables: tuple[Mapping[str, Any], ...]
    """Each ``[[bots]]`` table as written, in file order."""
    lines: tuple[int, ...] = ()
    """The line of each entry, when the text is not TOML (``engines.json``)."""
    problems: tuple[ConfigError | None, ...] = ()
    """What is wrong with each entry, said when it is used (``engines.json``: an engine the
    arena cannot play may sit in the file beside those it plays)."""

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def names(self) -> list[str]:
        return [str(table["name"]) for table in self.tables]

    def entry(self, index: int) -> Mapping[str, Any]:
        """Entry ``index`` to play it, or the error that it cannot be."""
        problem = self.problems[index] if index < len(self.problems) else None
        if problem is not None:
            raise problem
        return self.tables[index]

    def index(self, name: str) -> int | None:
        """The position of the entry called ``name``, None when there is none."""
        return next((i for i, table in enumerate(self.tables) if table["name"] == name), None)

    def fail(self, where: Sequence[str | int], problem: str, fix: str = "") -> ConfigError:
        """An error at ``where`` (``["bots", 2, "cmd"]``) of this file: ``FILE:LINE: ...``."""
        if not self.lines:
            return toml_error(self.shown, self.text, where, problem, fix)
        from arena.settings.enginesjson import SHOWN_KEYS

        index = where[1] if len(where) > 1 and isinstance(where[1], int) else 0
        key = [SHOWN_KEYS.get(str(k), str(k)) for k in where[2:3]]
        return config_error(self.shown, self.lines[index], ["bots", index, *key], problem, fix)

    def unknown(self, name: str) -> str:
        """What to say about a name that is no entry: the closest names, else all of them."""
        import difflib  # a mistake's hint only: not in every run's start-up

        close = difflib.get_close_matches(name, self.names, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"{hint}entries of {self.shown}: {', '.join(self.names) or 'none'}"

    def prepared(self, name: str) -> BotSpec:
        """The entry ``name`` ready to start (cwd absolute, program found), for ``arena play``;
        a mistake names this file's line."""
        index = self.index(name)
        if index is None:
            raise ConfigError(f"{self.shown}: no bot {name!r}; {self.unknown(name)}")
        spec = msgspec.convert(dict(self.entry(index)), type=BotSpec)
        return prepare_bot(spec, index, self.folder, self.fail)


def read_bots_file(path: Path, shown: Path | None = None) -> BotsFile:
    """Read and check a bots file: every table a valid bot, names unique. A mistake is a
    :class:`ConfigError` ``FILE:LINE: bots[i].key: problem; fix``."""
    show = shown or path
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BOTS_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read bots file {show}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BOTS_FILE_BYTES:
        raise ConfigError(f"{show}: more than {MAX_BOTS_FILE_BYTES >> 20} MiB: is it the right "
                          "file? (a bots file holds [[bots]] tables)")
    text = raw.decode("utf-8", errors="replace")
    if path.suffix == ".json":
        from arena.settings.enginesjson import read_engines_json

        tables, lines, problems = read_engines_json(text, show)
        found = BotsFile(path=path.resolve(), shown=show, text=text, tables=tuple(tables),
                         lines=tuple(lines))
        for i, table in enumerate(tables):
            try:
                if problems[i] is None:
                    msgspec.convert(table, type=BotSpec)
            except msgspec.ValidationError as exc:
                problem, at = split_validation(exc)
                problems[i] = found.fail(["bots", i, *at[:1]], problem.replace("`", ""))
        found = msgspec.structs.replace(found, problems=tuple(problems))
    else:
        try:
            msgspec.toml.decode(raw, type=_BotsFileShape)
            tables = msgspec.toml.decode(raw).get("bots", [])
        except msgspec.ValidationError as exc:
            raise _shape_error(show, text, exc) from None
        except msgspec.DecodeError as exc:
            raise ConfigError(f"{show}: not valid TOML: {exc}") from None
        found = BotsFile(path=path.resolve(), shown=show, text=text, tables=tuple(tables))
    seen: dict[str, int] = {}
    for i, table in enumerate(tables):
        name = table["name"]
        if not name.strip():
            raise found.fail(["bots", i, "name"], "empty bot name", "give every entry a name")
        if name in seen:
            raise found.fail(["bots", i, "name"],
                             f"duplicate bot name {name!r} (also bots[{seen[name]}])",
                             "give every entry its own name")
        seen[name] = i
    return found


def _shape_error(show: Path, text: str, exc: msgspec.ValidationError) -> ConfigError:
    problem, where = split_validation(exc)
    if problem.startswith(_UNKNOWN) and not where:
        key = problem.removeprefix(_UNKNOWN).rstrip("`")
        return toml_error(show, text, [key], f"unknown key {key!r}",
                          "a bots file holds [[bots]] tables only (bots_file is a config's key)")
    if where[:1] != ["bots"]:
        return toml_error(show, text, where, problem.replace("`", ""), "a bots file holds "
                          "[[bots]] tables: name, cmd and the other keys of a config's bot table")
    return validation_error(show, text, exc, _BotsFileShape, see=SEE_KEYS)


class EntryOrigin(msgspec.Struct, frozen=True):
    """Where a config's bot came from: entry ``index`` of ``file``, with the keys the
    config's own table set (those are reported at the config's lines)."""

    file: BotsFile
    index: int
    overrides: frozenset[str]


def expand_uses(data: dict[str, Any], base: Path, fail: Fail) -> list[EntryOrigin | None]:
    """Replace every ``use`` table of the decoded config ``data`` (in place) by its entry of
    the bots file merged with the table's own keys; return each bot's origin (None: written
    in the config). ``fail(where, problem, fix)`` makes the config's errors."""
    bots = data.get("bots")
    if not isinstance(bots, list):
        return []
    origins: list[EntryOrigin | None] = [None] * len(bots)
    uses = [i for i, table in enumerate(bots) if isinstance(table, dict) and "use" in table]
    written = data.get("bots_file")
    if written is None and not uses:
        return origins
    if written is None:
        raise fail(["bots", uses[0], "use"], "use names an entry of a bots file, and this "
                   "config names none", 'add bots_file = "engines.toml" at the top (relative '
                   "to the config's folder)")
    if not isinstance(written, str) or not written:
        raise fail(["bots_file"], "bots_file must be a path (a string)",
                   'e.g. bots_file = "engines.toml"')
    path = (base / written).resolve()
    if not path.is_file():
        raise fail(["bots_file"], f"bots file {str(path)!r} not found",
                   "paths are relative to the config file's directory")
    shown = Path(written) if Path(written).is_absolute() else base / written
    file = read_bots_file(path, shown=shown)
    for i in uses:
        table = bots[i]
        name = table["use"]
        if not isinstance(name, str):
            raise fail(["bots", i, "use"], "use must be the name of an entry (a string)")
        index = file.index(name)
        if index is None:
            raise fail(["bots", i, "use"], f"no entry {name!r} in the bots file",
                       file.unknown(name))
        fixed = [key for key in FIXED_KEYS if key in table]
        if fixed:
            raise fail(["bots", i, fixed[0]],
                       f"{fixed[0]} comes from the bots file's entry {name!r} (a use table "
                       "changes how an engine plays, not which engine it is)",
                       f"remove it here, or add an entry with this {fixed[0]} to the bots file")
        bots[i] = _merged(file.entry(index), table)
        origins[i] = EntryOrigin(file, index, frozenset(table) - {"use"})
    return origins


def _merged(entry: Mapping[str, Any], table: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(entry)
    for key, value in table.items():
        if key == "use":
            continue
        if key in MERGED_KEYS and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out
