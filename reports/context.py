"""The context of a run for its report: the settings it was played with, when, and by which arena.

Everything comes from what ``arena run`` leaves in the run directory: ``config.toml`` (the copy
of the config used), ``sessions.jsonl`` (one line when a session of ``arena run`` starts and one
when it ends: time, arena version, concurrency) and the journal's own start and end times. A
run directory made by hand (a journal alone) gets the rows it has and says what is unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import pandas as pd

from arena.rundir.layout import CONFIG_COPY, RunDir
from arena.rundir.sessions import Session, read_sessions
from arena.settings.config import Config, SprtConfig
from ratings import Sprt, SprtStatus
from reports.htmlkit import when
from reports.journal_summary import GameSummary

UNKNOWN = "unknown"


@dataclass
class RunContext:
    """What a reader needs to know to interpret a run's numbers."""

    config: Config | None
    sessions: list[Session] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def sprt(self) -> SprtConfig | None:
        return self.config.sprt if self.config is not None else None


def read_context(run_dir: Path) -> RunContext:
    """The config copy and the session lines of ``run_dir``; an unreadable one is a note."""
    config: Config | None = None
    problems: list[str] = []
    copy = RunDir(run_dir).config
    if copy.is_file():
        try:
            config = msgspec.toml.decode(copy.read_bytes(), type=Config)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            problems.append(f"{copy}: not readable as a config ({exc}); settings unknown")
    sessions, more = read_sessions(run_dir)
    problems.extend(more)
    return RunContext(config, sessions, problems)


def _stamp(t: float) -> str:
    return when(t, seconds=True)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h {m:02d}m {s:02d}s" if h else f"{m}m {s:02d}s"


def _openings(config: Config) -> str:
    o = config.openings
    if o is None or (o.file is None and not o.random_plies):
        return "none: every game from the start position"
    parts = []
    if o.file is not None:
        how = [o.format or "", f"{o.order or 'sequential'} order",
               f"first {o.plies} plies" if o.plies else ""]
        parts.append(f"file {o.file} ({', '.join(h for h in how if h)})")
    if o.random_plies:
        parts.append(f"{o.random_plies} random plies")
    return ", ".join(parts) + f" (seed {config.seed}); each opening played with colours swapped"


def _format(config: Config) -> str:
    c = config
    if c.format == "knockout":
        return (f"knockout, {c.games_per_pairing} games per match, up to {c.tiebreak_pairs} "
                "tie-break colour pair(s), then the better seed")
    if c.format == "swiss":
        return (f"swiss, {c.rounds} round(s), {c.games_per_pairing} games per pairing, a bye "
                f"worth {c.bye_points:g} a game")
    return f"{c.format}, {c.rounds} round(s), {c.games_per_pairing} games per pairing"


def _adjudication(config: Config) -> str:
    a = config.adjudication
    parts = []
    for name in a.__struct_fields__:
        value = getattr(a, name)
        if value is None:
            continue
        parts.append(f"{name.replace('_', ' ')} = {value}")
    return ", ".join(parts) or "none"


def context_rows(context: RunContext, games: pd.DataFrame) -> list[tuple[str, str]]:
    """(label, value) rows of the context block, in reading order."""
    c = context.config
    rows: list[tuple[str, str]] = []
    if c is None:
        rows.append(("settings", f"unknown (no readable {CONFIG_COPY} in the run directory)"))
    else:
        options = ", ".join(f"{k} = {v}" for k, v in c.game_options.items())
        rows.append(("game", c.game + (f" ({options})" if options else "")))
        rows.append(("format", _format(c)))
        own = [f"{b.name}: {b.tc}" for b in c.bots if getattr(b, "tc", None)]
        tc = c.tc or "none (no clock)"
        rows.append(("time control", tc + (f"; own: {', '.join(own)}" if own else "")))
        rows.append(("openings", _openings(c)))
        rows.append(("adjudication", _adjudication(c)))
        if c.sprt is not None:
            s = c.sprt
            rows.append(("SPRT", f"elo0 = {s.elo0}, elo1 = {s.elo1}, alpha = {s.alpha}, "
                                 f"beta = {s.beta}, {s.model}, {s.elo_model}"))
    concurrency = list(dict.fromkeys(
        s.concurrency for s in context.sessions if s.event == "start" and s.concurrency))
    if concurrency:
        rows.append(("concurrency", " then ".join(str(n) for n in concurrency)
                     + " game(s) at once"))
    elif c is not None:
        rows.append(("concurrency", f"{c.concurrency} game(s) at once (config)"))
    starts = [s.at for s in context.sessions if s.event == "start"]
    ends = [s.at for s in context.sessions if s.event == "end"]
    played = games[games["started_at"] > 0]
    first = min(starts) if starts else (float(played["started_at"].min()) if len(played)
                                        else math.nan)
    running = bool(starts) and (not ends or max(starts) > max(ends))
    last = max(ends) if ends and not running else (
        float(played["ended_at"].max()) if len(played) else math.nan)
    rows.append(("start", _stamp(first) if not math.isnan(first) else UNKNOWN))
    if running:
        rows.append(("end", "still running (or stopped without finishing its session)"))
    else:
        rows.append(("end", _stamp(last) if not math.isnan(last) else UNKNOWN))
    if not math.isnan(first) and not math.isnan(last):
        text = _duration(last - first)
        if len(starts) > 1:
            text += f" over {len(starts)} sessions (resumed)"
        rows.append(("duration", text + (" so far" if running else "")))
    versions = sorted({s.arena_version for s in context.sessions if s.arena_version})
    rows.append(("arena version", ", ".join(versions) if versions else UNKNOWN))
    return rows


def sprt_llr(sprt: SprtConfig, tested: str, opponent: str,
             games: list[GameSummary]) -> tuple[pd.DataFrame, SprtStatus]:
    """The LLR after each finished game (columns: games, llr) and the final status, replaying
    the journal in order exactly as ``arena run`` fed its SPRT (the tested bot's score, the
    colour pair tag)."""
    test = Sprt(sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, model=sprt.model,
                elo_model=sprt.elo_model)
    status = test.status()
    rows: list[dict[str, float]] = []
    for g in games:
        if {g.p1, g.p2} != {tested, opponent}:
            continue
        if g.result == "1/2-1/2":
            score = 0.5
        elif g.result in ("1-0", "0-1"):
            score = 1.0 if (g.result == "1-0") == (g.p1 == tested) else 0.0
        else:
            continue
        status = test.update(score, pair=g.pair)
        rows.append({"games": len(rows) + 1, "llr": status.llr})
    return pd.DataFrame(rows, columns=["games", "llr"]), status
