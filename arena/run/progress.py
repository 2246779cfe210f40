"""What a person watching ``arena run`` sees: games done/total, speed, ETA, standings, forfeits.

On a terminal this is a rich live panel redrawn about once a second; when stdout is not a TTY
(CI, a pipe, a log file) it is one plain line per finished game, so logs stay greppable. Both
end with the same final standings table: W/D/L counts ranked by a quick rating fit (no error
bars; :mod:`ratings` gives those), never by raw points, which favour whoever played
more games (a gauntlet's first bot plays everyone). rich is imported only when something is
drawn with it (the live panel, the final table), not before the first game.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from referee.record import P1_POINTS, GameRecord, Termination

if TYPE_CHECKING:
    from rich.console import Console, Group
    from rich.live import Live
    from rich.table import Table

FAULT_TERMINATIONS = frozenset(
    {
        Termination.TIME_FORFEIT,
        Termination.ILLEGAL_MOVE,
        Termination.CRASH,
        Termination.STALL,
        Termination.PROTOCOL_ERROR,
    }
)


@dataclass
class BotScore:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2


@dataclass
class Standings:
    """W/D/L per bot and forfeit counts, from finished game records."""

    bots: dict[str, BotScore] = field(default_factory=dict)
    forfeits: Counter[str] = field(default_factory=Counter)
    """Termination value -> count, for games a bot lost by its own fault."""
    results: list[tuple[str, str, float]] = field(default_factory=list)
    """(p1, p2, p1's score) of every finished game, for the rating fit that ranks."""
    _elo: tuple[int, dict[str, float]] = (0, {})
    _place: dict[str, int] = field(default_factory=dict)
    """Each rated bot's place in the fit's order (which ranks separated results by group)."""
    _group: dict[str, int] = field(default_factory=dict)
    """Each bot's group when the results only order the bots (no common scale); else empty."""

    @classmethod
    def of(cls, names: Iterable[str], records: Iterable[GameRecord] = ()) -> Standings:
        standings = cls({name: BotScore() for name in names})
        for record in records:
            standings.add(record)
        return standings

    def add(self, record: GameRecord) -> None:
        if record.result not in ("1-0", "0-1", "1/2-1/2"):
            return
        one = self.bots.setdefault(record.p1, BotScore())
        two = self.bots.setdefault(record.p2, BotScore())
        if record.result == "1-0":
            one.wins += 1
            two.losses += 1
        elif record.result == "0-1":
            one.losses += 1
            two.wins += 1
        else:
            one.draws += 1
            two.draws += 1
        if record.termination in FAULT_TERMINATIONS:
            self.forfeits[str(record.termination)] += 1
        score = P1_POINTS[record.result]
        self.results.append((record.p1, record.p2, score))

    def elo(self) -> dict[str, float]:
        """Ratings of the games so far (bounds for perfect scores), refitted when games came
        in since the last call; bots without games are absent."""
        if self._elo[0] != len(self.results):
            from ratings import GameResult, aggregate, fit_ratings

            fit = fit_ratings(
                aggregate([GameResult(a, b, x) for a, b, x in self.results]), errors="none"
            )
            values = {p: float(fit.ratings[i]) for i, p in enumerate(fit.players)}
            self._elo = (len(self.results), {p: v for p, v in values.items() if v == v})
            self._place = {fit.players[i]: k for k, i in enumerate(fit.order())
                           if fit.played[i] > 0}
            self._group = {p: g for i, p in enumerate(fit.players)
                           if (g := fit.group(i)) is not None}
        return self._elo[1]

    def ranked(self) -> list[tuple[str, BotScore]]:
        """Best first in the rating fit's order (bounds rank by what they bound, separated
        results by group); then by score per game; bots without games last."""
        self.elo()
        place = self._place

        def key(kv: tuple[str, BotScore]) -> tuple[int, float, str]:
            name, s = kv
            pct = s.score / s.games if s.games else -1.0
            return (place.get(name, len(place)), -pct, name)

        return sorted(self.bots.items(), key=key)

    COLUMNS: tuple[tuple[str, str], ...] = (
        ("#", "right"), ("bot", "left"), ("games", "right"), ("W", "right"), ("D", "right"),
        ("L", "right"), ("score", "right"), ("%", "right"), ("Elo", "right"),
    )  # fmt: skip

    def rows(self) -> list[tuple[str, ...]]:
        """The standings as text cells, best first (one per column of :data:`COLUMNS`)."""
        elo = self.elo()
        rows: list[tuple[str, ...]] = []
        for rank, (name, s) in enumerate(self.ranked(), start=1):
            pct = f"{100 * s.score / s.games:.1f}" if s.games else "-"
            rating = elo.get(name)
            bound = "≥ " if s.games and s.wins == s.games else "≤ " if s.losses == s.games else ""
            group = self._group.get(name)
            if group is not None:  # separated results: no common scale
                shown = f"order (g{group})" if rating is None else f"{rating:.0f} in g{group}"
            else:
                shown = "-" if rating is None or not s.games else f"{bound}{rating:.0f}"
            rows.append((
                str(rank), name, str(s.games), str(s.wins), str(s.draws), str(s.losses),
                f"{s.score:g}", pct, shown,
            ))  # fmt: skip
        return rows

    def table(self, title: str = "Standings") -> Table:
        """The standings as a rich table (the live display)."""
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        for column, justify in self.COLUMNS:
            table.add_column(column, justify=justify)  # type: ignore[arg-type]
        for row in self.rows():
            table.add_row(*row)
        return table

    def text(self, title: str = "Standings") -> str:
        """The standings as plain aligned columns, for logs and pipes (``--plain``): printed
        once at the end, not worth loading rich for."""
        cells = [tuple(name for name, _ in self.COLUMNS), *self.rows()]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.COLUMNS))]
        lines = [title]
        for row in cells:
            lines.append("  ".join(
                cell.rjust(width) if justify == "right" else cell.ljust(width)
                for cell, width, (_, justify) in zip(row, widths, self.COLUMNS, strict=True)
            ).rstrip())
        return "\n".join(lines)

    def forfeit_text(self) -> str:
        if not self.forfeits:
            return "forfeits: none"
        parts = ", ".join(f"{reason} {n}" for reason, n in self.forfeits.most_common())
        return f"forfeits: {parts}"


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


class Progress:
    """Counts games and draws the display; call :meth:`finished` for every journaled game."""

    def __init__(
        self,
        *,
        title: str,
        names: Iterable[str],
        total: int,
        done: Iterable[GameRecord] = (),
        out: TextIO | None = None,
        live: bool | None = None,
    ) -> None:
        self.title = title
        self.out = out or sys.stdout
        self.total = total
        finished = list(done)
        self.standings = Standings.of(names, finished)
        self.done = len(finished)
        self.resumed = self.done
        self.failed = 0
        self.running: dict[str, str] = {}
        self.started = time.monotonic()
        self.note = ""
        self._console: Console | None = None
        self.is_live = self.console.is_terminal if live is None else live
        self._live: Live | None = None

    @property
    def console(self) -> Console:
        """The rich console on ``out``, made on first use."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.out, highlight=False)
        return self._console

    # ----- events -------------------------------------------------------------------------
    def __enter__(self) -> Progress:
        if self.is_live:
            from rich.live import Live

            self._live = Live(
                self._render(), console=self.console, auto_refresh=False, transient=True
            )
            self._live.__enter__()
        elif self.resumed:
            self._line(f"resuming: {self.resumed}/{self.total} games already played")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self._render(), refresh=True)
            self._live.__exit__(None, None, None)
            self._live = None

    def started_game(self, game_id: str, label: str) -> None:
        self.running[game_id] = label
        self.refresh()

    def finished(self, record: GameRecord) -> None:
        self.running.pop(record.id, None)
        self.standings.add(record)
        self.done += 1
        if not self.is_live:
            why = f"{record.termination}" + (f": {record.reason}" if record.reason else "")
            self._line(
                f"[{self.done}/{self.total}] {record.id} {record.p1} - {record.p2} "
                f"{record.result} ({why}) {self.rate_text()}"
            )
        self.refresh()

    def failed_game(self, game_id: str, message: str) -> None:
        """A game the referee could not play at all (not journaled; replayed on resume)."""
        self.running.pop(game_id, None)
        self.failed += 1
        self._line(f"game {game_id} could not be played: {message}", force=True)
        self.refresh()

    def message(self, text: str) -> None:
        self.note = text
        self._line(text, force=True)
        self.refresh()

    # ----- figures ------------------------------------------------------------------------
    def games_per_minute(self) -> float:
        played = self.done - self.resumed
        elapsed = time.monotonic() - self.started
        return 60 * played / elapsed if played and elapsed > 0 else 0.0

    def eta_seconds(self) -> float | None:
        rate = self.games_per_minute()
        if not rate:
            return None
        return 60 * (self.total - self.done) / rate

    def rate_text(self) -> str:
        eta = self.eta_seconds()
        eta_text = _duration(eta) if eta is not None else "?"
        return f"{self.games_per_minute():.1f} games/min, eta {eta_text}"

    # ----- drawing ------------------------------------------------------------------------
    def refresh(self) -> None:
        if self._live is not None:
            self._live.update(self._render(), refresh=True)

    def _line(self, text: str, *, force: bool = False) -> None:
        if self._live is not None:
            if force:
                self._live.console.print(text, markup=False)
            return
        print(text, file=self.out, flush=True)

    def _render(self) -> Group:
        from rich.console import Group
        from rich.text import Text

        elapsed = _duration(time.monotonic() - self.started)
        head = Text(
            f"{self.title}: {self.done}/{self.total} games, {self.rate_text()}, "
            f"elapsed {elapsed}, running {len(self.running)}"
        )
        parts: list[Text | Table] = [
            head,
            self.standings.table(),
            Text(self.standings.forfeit_text()),
        ]
        if self.running:
            shown = list(self.running.items())[:8]
            parts.append(Text("now: " + "; ".join(f"{gid} {label}" for gid, label in shown)))
        if self.note:
            parts.append(Text(self.note))
        return Group(*parts)

    def summary(self) -> None:
        """The final standings, printed once (also in plain mode)."""
        title = f"{self.title}: final standings"
        if self.is_live:
            self.console.print(self.standings.table(title=title))
            self.console.print(self.standings.forfeit_text(), markup=False)
        else:
            print(self.standings.text(title), self.standings.forfeit_text(), sep="\n",
                  file=self.out, flush=True)
