"""A submission, from the author's folder (or an installed engine's command) to a version
``NAME@N`` that is active or rejected.

The steps, each of which can reject the version (``step`` and a one-line ``reason`` in its
``version.json``, the logs beside it); a rejected version changes nothing else, the bot's
earlier versions play on:

1. the number: ``version.json`` is written ``pending`` at once, under the league's lock, so a
   crash leaves a trace and two submissions never share a number; an author's first
   submission of a name holds the name only while it is pending (:mod:`.authors`): accepted,
   the name is theirs; rejected, it is free;
2. ``upload``: an uploaded archive or single source file (instead of a folder) unpacked into
   a private scratch folder of the store, its limits those of ``league.toml``
   (:mod:`arena.league.archive`); the folder it holds then goes on as a folder would;
3. ``copy``: the folder into the store (:mod:`arena.bots.store`);
4. ``bot.toml``: the folder's own settings under the command line's (:mod:`.botfile`);
5. ``build``: its ``build`` argv, sandboxed, once per stored content (:mod:`.build`); what it
   leaves is held to the copy's rules and the upload's limits before the copy is frozen
   (:func:`arena.bots.store.commit`);
6. ``check``: the command must stay in the version's folder (:mod:`.reach`: a file argument
   or a program link that leads out is refused, the path named); then ``arena check-bot``'s
   steps on the built version, started exactly as a night starts it
   (:func:`arena.leaguedir.leaguetoml.versions_config`: the league's limits and sandbox, its
   folder the frozen stored copy), the steps and the bot's stderr in ``check.log``.

An accepted version does not retire the bot's earlier ones: they all stay active, side by
side (is v3 better than v2?), until ``arena league retire`` retires them.

The steps are told as they go as typed events (:data:`SubmitEvent`: submitted, unpacking,
copying, building, checking, finished), each with its one line for a person
(:meth:`~Submitted.text`); ``arena league submit --events`` writes them as JSON lines, which
the web's submission queue decodes (:func:`decode_event`) instead of reading the text.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TextIO, TypeAlias

import msgspec
import trio

from arena.bots import store
from arena.bots.conformance import check
from arena.errors import UserError
from arena.league.archive import ArchiveRefused, unpack, upload_limits
from arena.league.authors import claim_bot, settle_claims
from arena.league.botfile import infer_cmd, read_bot_file
from arena.league.build import build_spec, run_build
from arena.league.lock import league_lock
from arena.league.reach import outside_reach
from arena.leaguedir.directory import BUILD_LOG, CHECK_LOG, NAME_PATTERN, LeagueDir
from arena.leaguedir.leaguetoml import LeagueSettings, versions_config
from arena.leaguedir.versions import State, Step, Version, next_number, write_version
from arena.settings.config import ConfigError, OptionValue
from referee.botspec import BotSpec, Protocol
from referee.process.faults import SandboxSetupError

MAX_STDERR_IN_LOG: Final = 64 << 10
"""Bytes of the bot's stderr during the check copied into ``check.log``."""
MAX_REASON_CHARS: Final = 300
PLACEHOLDER: Final = BotSpec(name="check-placeholder", cmd=["true"])
"""The second bot a tournament config needs; never started."""


class Submitted(msgspec.Struct, frozen=True, tag_field="event", tag="submitted"):
    """The version took its number (``pending``)."""

    label: str

    def text(self) -> str:
        """The event as a person reads it (``arena league submit``'s line)."""
        return f"{self.label}: submitted"


class Unpacking(msgspec.Struct, frozen=True, tag_field="event", tag="unpacking"):
    label: str
    upload: str
    """The upload's name as the author gave it."""

    def text(self) -> str:
        return f"{self.label}: unpacking {self.upload}"


class Copying(msgspec.Struct, frozen=True, tag_field="event", tag="copying"):
    label: str
    folder: str
    """The folder as shown to the author (theirs, or inside their upload)."""

    def text(self) -> str:
        return f"{self.label}: copying {self.folder}"


class Building(msgspec.Struct, frozen=True, tag_field="event", tag="building"):
    label: str
    argv: list[str]

    def text(self) -> str:
        return f"{self.label}: building ({' '.join(self.argv)})"


class Checking(msgspec.Struct, frozen=True, tag_field="event", tag="checking"):
    label: str
    game: str

    def text(self) -> str:
        return f"{self.label}: checking (arena check-bot {self.game})"


class Finished(msgspec.Struct, frozen=True, tag_field="event", tag="finished"):
    """The version's end: ``active``, or ``rejected`` at ``step`` for ``reason``."""

    label: str
    state: State
    step: Step = ""
    reason: str = ""

    def text(self) -> str:
        return f"{self.label}: {self.state}" + (
            f" at {self.step}: {self.reason}" if self.reason else "")


SubmitEvent: TypeAlias = Submitted | Unpacking | Copying | Building | Checking | Finished
"""What a submission tells as it goes, in order: submitted, then unpacking (an upload),
copying, building (a bot.toml build), checking, finished."""

Tell: TypeAlias = Callable[[SubmitEvent], None]

_event_decoder = msgspec.json.Decoder(SubmitEvent)


def encode_event(event: SubmitEvent) -> bytes:
    """One JSON line (``--events``)."""
    return msgspec.json.encode(event) + b"\n"


def decode_event(line: bytes | str) -> SubmitEvent:
    """An event from its JSON line; ``msgspec.DecodeError`` for anything else."""
    return _event_decoder.decode(line)


def say_events(event: SubmitEvent) -> None:
    """Events as a person reads them, on stdout."""
    print(event.text(), flush=True)



@dataclass(frozen=True)
class Submission:
    """What ``arena league submit`` was given: a folder (or an upload), a command, or both
    (the command then runs in the folder); the rest overrides the folder's ``bot.toml``."""

    name: str
    folder: Path | None = None
    upload: Path | None = None
    """Instead of a folder: an author's upload, a ``.tar.gz``/``.tgz``, ``.tar`` or ``.zip`` of
    the bot's folder or one source file (:func:`arena.league.archive.unpack`)."""
    upload_name: str | None = None
    """The upload's name as the author gave it, which says its kind (default: the file's)."""
    cmd: list[str] | None = None
    protocol: Protocol | None = None
    options: dict[str, OptionValue] = field(default_factory=dict)
    author: str | None = None


def submit(league: LeagueDir, settings: LeagueSettings, sub: Submission,
           tell: Tell = say_events, *, check_timeout: float | None = None) -> Version:
    """Make ``sub`` a version of the league and return it, active or rejected, telling each
    step as it goes (``tell``: :data:`SubmitEvent`; default, its line on stdout). Raises
    :class:`UserError` (and takes no number) only for a bad name, a missing folder or
    command, or a name that belongs to another author (:mod:`.authors`). ``check_timeout``
    bounds the check's handshake and ``isready`` answers (default ``check-bot``'s own).
    Synchronous: it runs the check under its own ``trio.run``."""
    _validate(sub)
    installed = sub.folder is None and sub.upload is None and sub.cmd is not None
    cmd = _installed_cmd(sub.cmd) if installed and sub.cmd is not None else sub.cmd
    with league_lock(league):
        number = next_number(league, sub.name)
        claim_bot(league, sub.name, number, sub.author)
        version = Version(name=sub.name, number=number, cmd=list(cmd or []),
                          submitted_at=time.time(), protocol=sub.protocol or "native",
                          options=dict(sub.options), author=sub.author or "")
        write_version(league, version)
    tell(Submitted(version.label))
    try:
        return _accept(league, settings, sub, version, tell, check_timeout)
    except BaseException as exc:  # an interrupt or a bug: the version says it did not finish
        if not isinstance(exc, UserError):
            _finish(league, version, "rejected", "", f"submission interrupted: "
                    f"{type(exc).__name__}: {exc}"[:MAX_REASON_CHARS], tell=tell)
        raise


def _validate(sub: Submission) -> None:
    if not NAME_PATTERN.fullmatch(sub.name):
        raise UserError(f"bot name {sub.name!r}: use 1 to 64 letters, digits, '.', '_' or "
                        "'-', starting with a letter or digit")
    if sub.folder is not None and sub.upload is not None:
        raise UserError("give a folder or an upload, not both")
    if sub.folder is None and sub.upload is None and not sub.cmd:
        raise UserError("nothing to submit: give a FOLDER or FILE, or an installed engine's "
                        "command after --")
    if sub.folder is not None and not sub.folder.is_dir():
        raise UserError(f"{sub.folder}: no such folder")
    if sub.upload is not None and not sub.upload.is_file():
        raise UserError(f"{sub.upload}: no such file")


def _installed_cmd(cmd: list[str]) -> list[str]:
    """An installed engine's command with its program as an absolute path, found now, and
    its arguments that name files here (``mybot.py``) made absolute too: a version names one
    program for its whole life, and nights run it from the league, not from where it was
    submitted."""
    program = cmd[0]
    found = (os.path.abspath(program) if os.sep in program else shutil.which(program))
    if found is None or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise UserError(f"{program}: no such executable program (looked "
                        f"{'here' if os.sep in program else 'on PATH'})")
    args = [os.path.abspath(arg) if not arg.startswith("-") and not os.path.isabs(arg)
            and os.path.isfile(arg) else arg for arg in cmd[1:]]
    return [found, *args]


def _accept(league: LeagueDir, settings: LeagueSettings, sub: Submission, version: Version,
            tell: Tell, check_timeout: float | None) -> Version:
    if sub.upload is None:
        return _accept_folder(league, settings, sub, version, tell, check_timeout, sub.folder,
                              sub.folder)
    name = sub.upload_name or sub.upload.name
    tell(Unpacking(version.label, name))
    league.store.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=store.UPLOAD_PREFIX, dir=league.store) as scratch:
        dest = Path(scratch) / "upload"
        try:
            source = unpack(sub.upload, name, dest, upload_limits(settings.policy))
        except ArchiveRefused as exc:
            return _reject(league, version, "upload", str(exc), tell)
        shown = Path(name) if source == dest else Path(name) / source.relative_to(dest)
        return _accept_folder(league, settings, sub, version, tell, check_timeout, source,
                              shown)


def _accept_folder(league: LeagueDir, settings: LeagueSettings, sub: Submission,
                   version: Version, tell: Tell, check_timeout: float | None,
                   source: Path | None, shown: Path | None) -> Version:
    """The steps from the copy on: ``source`` is the folder to copy (None for an installed
    engine), ``shown`` its name in messages (the author's folder, or the upload's name)."""
    folder = league.version_dir(version.name, version.number)
    rel = folder.relative_to(league.root)
    if source is not None and shown is not None:
        tell(Copying(version.label, str(shown)))
        try:
            incoming = store.copy_in(league.store, source, shown)
        except store.StoreError as exc:
            return _reject(league, version, "copy", str(exc), tell)
        try:
            bot_file = read_bot_file(incoming.tree, shown)
        except ConfigError as exc:
            store.discard(incoming)
            return _reject(league, version, "bot.toml", str(exc), tell)
        version = msgspec.structs.replace(
            version, source=incoming.digest, build=list(bot_file.build or []),
            protocol=sub.protocol or bot_file.protocol or "native",
            options={**bot_file.options, **sub.options},
            author=sub.author if sub.author is not None else bot_file.author or "")
        log = folder / BUILD_LOG
        built: store.FolderLimits | None = None
        if store.is_stored(league.store, incoming.digest):
            store.discard(incoming)
            log.write_text(f"[arena] the same content is stored already (store/"
                           f"{incoming.digest}): built then, not built again\n")
        elif not version.build:
            log.write_text("[arena] no build: bot.toml names none\n")
        else:
            tell(Building(version.label, list(version.build)))
            store.open_for_build(incoming)
            spec = build_spec(f"{version.label} build", version.build, incoming.tree,
                              settings.policy.build_memory_mb, settings.file.sandbox)
            result = run_build(spec, log, settings.policy.build_seconds, str(rel / BUILD_LOG))
            version = msgspec.structs.replace(version, build_seconds=round(result.seconds, 3))
            if not result.ok:
                store.discard(incoming)
                return _reject(league, version, "build", result.reason, tell)
            limits = upload_limits(settings.policy)
            built = store.FolderLimits(limits.files, limits.unpacked_bytes)
        try:  # what a build left is held to the rules of an upload before it is kept
            stored = store.commit(league.store, incoming, built)
        except store.StoreError as exc:
            return _reject(league, version, "build" if built else "copy", str(exc), tell)
        cmd = sub.cmd or bot_file.cmd
        if cmd is None:
            try:
                cmd = infer_cmd(stored, shown)
            except UserError as exc:
                return _reject(league, version, "bot.toml", str(exc), tell)
        version = msgspec.structs.replace(version, cmd=list(cmd))
    with league_lock(league):
        write_version(league, version)
    tell(Checking(version.label, settings.file.game))
    ok, reason = _check(league, settings, version, folder / CHECK_LOG, str(rel / CHECK_LOG),
                        check_timeout)
    if not ok:
        return _reject(league, version, "check", reason, tell)
    return _finish(league, version, "active", "", "", tell=tell)


def _check(league: LeagueDir, settings: LeagueSettings, version: Version, log_path: Path,
           shown_log: str, timeout: float | None) -> tuple[bool, str]:
    """check-bot on the version as a night starts it: (passed, one-line reason)."""
    with open(log_path, "w", encoding="utf-8") as log:
        def out(line: str) -> None:
            log.write(line + "\n")
            log.flush()

        out(f"[arena] check-bot {settings.file.game} for {version.label}: "
            f"{' '.join(version.cmd)}")
        try:
            loaded = versions_config(settings, league, [version], (PLACEHOLDER,))
        except ConfigError as exc:
            out(f"[arena] {exc}")
            return False, _one_line(f"the command cannot be started: {exc}")
        spec = loaded.bots[0]
        if version.source is not None and spec.cwd is not None:
            outside = outside_reach(version.cmd, spec.cmd, spec.cwd, str(league.root))
            if outside is not None:
                out(f"[arena] {outside}")
                return False, _one_line(outside)
        with tempfile.TemporaryDirectory(prefix="arena-league-check-") as tmp:
            stderr = Path(tmp) / "stderr.log"
            try:
                result = trio.run(check, spec, settings.file.game, stderr, out, timeout)
            except SandboxSetupError as exc:  # the machine's fault: say so, submit again
                out(f"[arena] {exc}")
                return False, _one_line(f"the machine could not start the sandbox ({exc}); "
                                        "submit again")
            _append_stderr(log, stderr)
    if result.passed:
        return True, ""
    return False, _one_line(result.reason, f"; see {shown_log}")


def _append_stderr(sink: TextIO, stderr: Path) -> None:
    try:
        with open(stderr, "rb") as f:
            data = f.read(MAX_STDERR_IN_LOG + 1)
    except OSError:
        return
    if data:
        sink.write("[arena] the bot's stderr:\n")
        sink.write(data[:MAX_STDERR_IN_LOG].decode("utf-8", errors="replace"))
        if len(data) > MAX_STDERR_IN_LOG:
            sink.write(f"\n[arena] (cut at {MAX_STDERR_IN_LOG} bytes)\n")


def _one_line(text: str, tail: str = "") -> str:
    """``text`` on one line, cut to fit :data:`MAX_REASON_CHARS` with ``tail`` kept."""
    flat = " ".join(text.split())
    room = MAX_REASON_CHARS - len(tail)
    if len(flat) > room:
        flat = flat[: room - 3] + "..."
    return flat + tail


def _reject(league: LeagueDir, version: Version, step: Step, reason: str, tell: Tell) -> Version:
    return _finish(league, version, "rejected", step, _one_line(reason), tell=tell)


def _finish(league: LeagueDir, version: Version, state: State, step: Step, reason: str,
            tell: Tell | None = None) -> Version:
    final = msgspec.structs.replace(version, state=state, step=step, reason=reason,
                                    checked_at=time.time())
    with league_lock(league):
        write_version(league, final)
        settle_claims(league)  # accepted: the name is the author's; rejected: free again
    if tell is not None:
        tell(Finished(final.label, state, step, reason))
    return final
