"""Reading a run's journal (``games.jsonl``) into compact summaries the report is built from.

A journal can hold 100,000 games of hundreds of moves each, so records are decoded one line at
a time and only what the report needs is kept: one summary row per game and flat per-move
arrays (time, depth, nodes) in :mod:`array` buffers. The full record of a game is read back
later by byte offset, only for the games whose viewer file must be (re)rendered.

The runner may be appending while we read. The journal's lines come from its one reader
(:func:`arena.rundir.journal.journal_lines`): a final line without its newline is a game still
being written and is left for the next read; any other undecodable line is an error naming
file and line.
"""

from __future__ import annotations

import math
import os
import re
import stat
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import GenericAlias
from typing import Any, cast

import msgspec

from arena.atomicfile import write_with
from arena.rundir.journal import journal_lines
from arena.rundir.layout import RunDir
from protocol.messages import SearchInfo
from ratings.sources import PAIR_TAGS
from referee.games import get_game, is_game
from referee.games.rounds import PartieRecord
from referee.latency import GameLatency
from referee.record import GameRecord, MoveRecord, decode_record


class JournalError(ValueError):
    """A journal line that is not a game record; the message names the file and line."""


@dataclass(slots=True)
class GameSummary:
    """What the tables, charts and game list need of one game (no moves)."""

    index: int
    """Position in the journal, 0-based (the order games finished in)."""
    key: str
    """Unique, file-name-safe key of the game inside this report."""
    id: str
    game: str
    round: int
    p1: str
    p2: str
    result: str
    winner: int | None
    termination: str
    reason: str
    plies: int
    time_control: str
    started_at: float
    ended_at: float
    opening: str
    """The opening's moves, space-separated (book or random plies; empty for none)."""
    start_position: str
    """The position the game began from when it is not the game's own start (an EPD book's
    opening, a ``fen`` line), else empty."""
    opening_source: str
    """Which opening the game was played from, for the openings table: the runner's tag
    (``book.pgn:12``, ``random: m1 m2``), else its moves, else its start position."""
    pair: str | None
    """The colour pair the game belongs to (runner tag ``pair``), for pentanomial statistics."""
    transcript: str | None
    """The game's protocol transcript (``transcripts/<file>``, runner tag ``transcript``)."""
    worker: str | None
    """The cluster worker that played the game (``arena run --cluster``), None for this machine."""
    move_ms: float
    """Milliseconds the bots took over their moves (book moves excluded)."""
    latency: GameLatency | None
    """The game's delays per side (:mod:`referee.latency`); None in older journals."""
    bot_moves: int
    """Moves the bots made (book moves excluded)."""
    fingerprint: str
    """Checksum of the journal line: a viewer file is re-rendered only when it changes."""
    parties: tuple[PartieRecord, ...]
    """Games played as rounds of parties (Donkan): every partie, oldest first; else empty."""
    offset: int
    length: int


@dataclass(slots=True)
class MoveStats:
    """Flat per-move columns over every bot-made (non-book) move of the journal.

    Single precision (7 significant digits) is plenty for charts and summary tables and halves
    the memory and the summary cache: 14 bytes per move."""

    bot: array = field(default_factory=lambda: array("h"))
    """Index into :attr:`JournalSummary.bots` of the bot that made the move."""
    elapsed_ms: array = field(default_factory=lambda: array("f"))
    depth: array = field(default_factory=lambda: array("f"))
    """NaN where the bot did not report it."""
    nodes: array = field(default_factory=lambda: array("f"))
    """NaN where the bot did not report it."""


@dataclass(slots=True)
class JournalSummary:
    """A whole journal in summary form, and where reading it stopped (to resume from there)."""

    path: Path
    games: list[GameSummary] = field(default_factory=list)
    bots: list[str] = field(default_factory=list)
    """Every bot name, in order of first appearance."""
    moves: MoveStats = field(default_factory=MoveStats)
    end: int = 0
    """Bytes of the journal summarised so far (always at a line boundary)."""
    lines: int = 0
    """Lines (blank ones included) summarised so far, for messages naming a line."""
    seen: dict[str, int] = field(default_factory=dict)
    """How often each game key base was used (duplicate ids get ``~2``, ``~3``...)."""
    check: tuple[int, int] = (0, 0)
    """Checksums of the first and the last 4 kB summarised: a cached summary is resumed only
    if the file still holds the same bytes there (the runner only ever appends)."""


CACHE_VERSION = 9
"""7: msgpack (:class:`_CachedSummary`); up to 6 the cache was a pickle, never read now.
8: :attr:`GameSummary.start_position`; 9: a game's latency kept."""
_CHECK_BYTES = 4096
_CACHE_SLACK = 1 << 20
"""A cache is read only if it is at most twice the journal's size plus this (a summary is far
smaller than the records it summarises): a planted giant file is not read into memory."""


class _CachedSummary(msgspec.Struct, forbid_unknown_fields=True):
    """The summary cache's one record, in msgpack: plain values only, decoded to these types
    and checked, so that a cache file found in a run directory (which may come from anyone)
    can at worst be wrong about the journal, never run code. It was a pickle, and a planted
    one with a ``__reduce__`` ran its command as whoever built the report."""

    version: int
    byteorder: str
    """The machine's byte order the move columns were written in (:data:`sys.byteorder`)."""
    games: list[GameSummary]
    bots: list[str]
    move_bot: bytes
    move_ms: bytes
    move_depth: bytes
    move_nodes: bytes
    """:class:`MoveStats`'s columns as their raw bytes."""
    end: int
    lines: int
    seen: dict[str, int]
    check: tuple[int, int]


_cache_decoder = msgspec.msgpack.Decoder(_CachedSummary)
_cache_encoder = msgspec.msgpack.Encoder()


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_key(text: str) -> str:
    """A file-name-safe form of a game id (ids come from the schedule, e.g. ``r1-p3-g2``)."""
    return _UNSAFE.sub("_", text).strip("._")[:80]


def _checksums(path: Path, end: int) -> tuple[int, int]:
    with path.open("rb") as fh:
        head = fh.read(min(end, _CHECK_BYTES))
        fh.seek(max(0, end - _CHECK_BYTES))
        tail = fh.read(min(end, _CHECK_BYTES))
    return zlib.crc32(head), zlib.crc32(tail)


def _load_cache(cache: Path, path: Path) -> JournalSummary | None:
    """The cached summary if it is one and still describes a prefix of the journal, else None
    (the caller reads the journal from its start). The cache is opened without following a
    link and without waiting on a FIFO; anything but a regular file of a plausible size is
    not read."""
    try:
        fd = os.open(cache, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        try:
            limit = 2 * path.stat().st_size + _CACHE_SLACK
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = fh.read(limit + 1)
    try:
        cached = _cache_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if cached.version != CACHE_VERSION or cached.byteorder != sys.byteorder:
        return None
    moves = MoveStats()
    try:
        for column, raw in ((moves.bot, cached.move_bot), (moves.elapsed_ms, cached.move_ms),
                            (moves.depth, cached.move_depth), (moves.nodes, cached.move_nodes)):
            column.frombytes(raw)
    except ValueError:  # not a whole number of items
        return None
    if len({len(moves.bot), len(moves.elapsed_ms), len(moves.depth), len(moves.nodes)}) != 1:
        return None
    if any(game.index != i or game.offset + game.length > cached.end
           for i, game in enumerate(cached.games)):
        return None
    try:
        if path.stat().st_size < cached.end or _checksums(path, cached.end) != cached.check:
            return None
    except OSError:
        return None
    return JournalSummary(path=path, games=cached.games, bots=cached.bots, moves=moves,
                          end=cached.end, lines=cached.lines, seen=cached.seen,
                          check=cached.check)


def _save_cache(cache: Path, journal: JournalSummary) -> None:
    moves = journal.moves
    data = _cache_encoder.encode(_CachedSummary(
        version=CACHE_VERSION, byteorder=sys.byteorder, games=journal.games, bots=journal.bots,
        move_bot=moves.bot.tobytes(), move_ms=moves.elapsed_ms.tobytes(),
        move_depth=moves.depth.tobytes(), move_nodes=moves.nodes.tobytes(), end=journal.end,
        lines=journal.lines, seen=journal.seen, check=journal.check))
    write_with(cache, lambda tmp: tmp.write_bytes(data))


def summarise_journal(run_dir: Path, cache: Path | None = None) -> JournalSummary:
    """Summarise the journal of ``run_dir``; raise :class:`JournalError` on a bad line.

    With ``cache`` (a file), the summary of an earlier call is loaded from it and only the lines
    appended since are read, then the cache is rewritten: refreshing the report of a long run
    costs the new games, not the whole journal. A cache that is not one of ours (damaged, of
    another version, planted) is ignored, and rewritten from the journal.
    """
    path = RunDir(run_dir).journal
    if not path.is_file():
        raise JournalError(f"{path}: no game journal here (is {run_dir} a run directory?)")
    journal = ((_load_cache(cache, path) if cache is not None else None)
               or JournalSummary(path=path))
    before = journal.end
    _summarise(journal)
    if cache is not None and journal.end != before:
        journal.check = _checksums(path, journal.end)
        _save_cache(cache, journal)
    return journal


def projection(name: str, whole: type[msgspec.Struct], keep: Iterable[str],
               **nested: Any) -> type[msgspec.Struct]:
    """A struct that decodes only the fields ``keep`` of ``whole``, each with ``whole``'s own
    name, type and default, so that every valid record decodes and no other; a field named in
    ``nested`` takes that type instead (a projection of its own type, for a list of moves).

    Untracked by the garbage collector: a journal holds millions of moves and GC passes over
    them would cost more than decoding. Built from the record type itself, not written out a
    second time: ``tests/test_record_projections.py`` checks the nested types too."""
    wanted = set(keep)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for info in msgspec.structs.fields(whole):
        if info.name not in wanted:
            continue
        kind = nested.get(info.name, info.type)
        if info.required:
            fields.append((info.name, kind))
        elif info.default_factory is not msgspec.NODEFAULT:
            fields.append((info.name, kind, msgspec.field(default_factory=info.default_factory)))
        else:
            fields.append((info.name, kind, info.default))
    missing = wanted - {entry[0] for entry in fields}
    if missing:
        raise TypeError(f"{whole.__name__} has no field {', '.join(sorted(missing))}")
    return msgspec.defstruct(name, fields, gc=False, module=__name__)


_Info = projection("_Info", SearchInfo, ("depth", "nodes"))
_Move = projection("_Move", MoveRecord, ("side", "elapsed_ms", "info", "book"),
                   info=_Info | None)
_Record = projection(
    "_Record", GameRecord,
    ("game", "p1", "p2", "result", "termination", "reason", "winner", "id", "round", "opening",
     "moves", "time_control", "started_at", "ended_at", "plies", "tags", "worker",
     "start_position", "parties", "latency"),
    moves=GenericAlias(list, (_Move,)))
"""What a summary needs of a game record (:class:`_Move`, :class:`_Info`: of a move and its
search report)."""

_summary_decoder = msgspec.json.Decoder(_Record)


def update_summary(journal: JournalSummary) -> int:
    """Summarise the lines appended since ``journal`` was last read (a watcher following a
    running tournament); returns how many games were added."""
    before = len(journal.games)
    _summarise(journal)
    return len(journal.games) - before


def _summarise(journal: JournalSummary) -> None:
    """Read the journal from ``journal.end`` to its last complete line, in place."""
    path = journal.path
    games = journal.games
    bots = {name: i for i, name in enumerate(journal.bots)}
    stats = journal.moves
    seen = journal.seen
    nan = math.nan
    lines = journal_lines(path, start=journal.end, before=journal.lines)
    for line in lines:
        try:
            # Typed as the record it projects: a field it does not keep fails every test.
            rec = cast(GameRecord, _summary_decoder.decode(line.data))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise JournalError(f"{path}:{line.number}: not a game record: {exc}") from None
        base = safe_key(rec.id) or f"game{len(games) + 1}"
        count = seen.get(base, 0)
        seen[base] = count + 1
        key = base if count == 0 else f"{base}~{count + 1}"
        ids = []
        for name in (rec.p1, rec.p2):
            if name not in bots:
                bots[name] = len(bots)
            ids.append(bots[name])
        own = [(m.side, m.elapsed_ms, m.info) for m in rec.moves if not m.book]
        move_ms = 0.0
        if own:
            sides, elapsed, infos = zip(*own, strict=True)
            first, second = ids
            stats.bot.extend([second if side else first for side in sides])
            stats.elapsed_ms.extend(elapsed)
            move_ms = sum(elapsed)
            if any(infos):
                stats.depth.extend([nan if i is None or i.depth is None else i.depth
                                    for i in infos])
                stats.nodes.extend([nan if i is None or i.nodes is None else i.nodes
                                    for i in infos])
            else:
                blank = array("f", [nan]) * len(own)
                stats.depth.extend(blank)
                stats.nodes.extend(blank)
        games.append(
            GameSummary(
                index=len(games),
                key=key,
                id=rec.id,
                game=rec.game,
                round=rec.round,
                p1=rec.p1,
                p2=rec.p2,
                result=rec.result,
                winner=rec.winner,
                termination=str(rec.termination),
                reason=rec.reason,
                plies=rec.plies or len(rec.moves),
                time_control=rec.time_control,
                started_at=rec.started_at,
                ended_at=rec.ended_at,
                opening=" ".join(rec.opening),
                start_position="" if _standard_start(rec) else rec.start_position,
                opening_source=opening_source(rec),
                pair=next((rec.tags[t] for t in PAIR_TAGS if rec.tags.get(t)), None),
                transcript=rec.tags.get("transcript") or None,
                worker=rec.worker,
                move_ms=move_ms,
                latency=rec.latency,
                bot_moves=len(own),
                fingerprint=f"{zlib.crc32(line.data):08x}",
                parties=tuple(rec.parties),
                offset=line.offset,
                length=len(line.data),
            )
        )
        if len(bots) != len(journal.bots):
            journal.bots = list(bots)
        journal.end = lines.end
        journal.lines = lines.lines
    journal.end = lines.end  # and the blank lines after the last game
    journal.lines = lines.lines


def opening_source(rec: GameRecord) -> str:
    """The opening a record was played from, as the openings table names it."""
    if tag := rec.tags.get("opening"):
        return tag
    if rec.opening:
        return " ".join(rec.opening)
    if _standard_start(rec):
        return "start position"
    return rec.start_position


def _standard_start(rec: GameRecord) -> bool:
    """Did the game begin from its game's own start (however the record writes it)?"""
    return rec.start_position in ("", "startpos") or (
        is_game(rec.game) and rec.start_position == get_game(rec.game).START_POSITION)


def read_record(journal: JournalSummary, game: GameSummary) -> GameRecord:
    """The full record of one summarised game, read back by its byte offset."""
    with journal.path.open("rb") as fh:
        fh.seek(game.offset)
        return decode_record(fh.read(game.length))


def read_records(journal: JournalSummary, games: list[GameSummary]) -> Iterator[GameRecord]:
    """Full records of several games, with one open file (games in any order)."""
    with journal.path.open("rb") as fh:
        for game in games:
            fh.seek(game.offset)
            yield decode_record(fh.read(game.length))
