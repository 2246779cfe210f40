"""What a person watching ``arena run`` sees: games done/total, speed, ETA, standings, forfeits.

A run that ends at a deadline (a league night) has no total to count towards: it shows the
games played, the time left to the deadline, and how many more games fit in it by the lengths
of the games played before (:class:`Deadline`).

On a terminal this is a rich live panel redrawn about once a second; when stdout is not a TTY
(CI, a pipe, a log file) it is one plain line per finished game, so logs stay greppable. Both
end with the same final standings table: W/D/L counts ranked by the reports' rating fit, with
each rating's 95% interval, never by raw points, which favour whoever played more games (a
gauntlet's first bot plays everyone). rich is imported only when something is drawn with it
(the live panel, the final table), not before the first game.

A run that builds no report does not load the fit (numpy) at all, before, during or after its
games (:attr:`Standings.fitted` False): its table ranks by score per game, each with the
score's 95% Wilson interval (every bot listed still has a number with its uncertainty, and none
of it rests on a prior), and leaves the ratings to the head-to-head lines under it (the Elo
difference of each pair that met, with its 95% interval and LOS: :mod:`ratings.pairwise`,
cutechess's figures, which the report's head-to-head table shows too).
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar, TextIO

import msgspec

from referee.record import GameRecord, Termination

if TYPE_CHECKING:
    from rich.console import Console, Group
    from rich.live import Live
    from rich.table import Table

    from ratings.sources import GameResult

FAULT_TERMINATIONS = frozenset(
    {
        Termination.TIME_FORFEIT,
        Termination.ILLEGAL_MOVE,
        Termination.CRASH,
        Termination.STALL,
        Termination.PROTOCOL_ERROR,
    }
)


class BotScore(msgspec.Struct):
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2


ON_PRIOR_NOTE = ("Elo: 95% interval; *: the rating rests on the prior (the results alone only "
                 "order it)")

PAIR_LINES = 15
"""The most head-to-head lines the final standings of a run without a report print (a
round-robin of six bots); more are left to ``arena ratings DIR --pairs``."""


def _score_interval_text(score: BotScore) -> str:
    """``52-98``: the 95% Wilson interval of a bot's score per game, in %; ``-`` without games."""
    if not score.games:
        return "-"
    from ratings.pairwise import score_interval  # after the first game: not in the start-up

    low, high = score_interval(score.score, score.games)
    return f"{100 * low:.0f}-{100 * high:.0f}"


class Standings(msgspec.Struct):
    """W/D/L per bot and forfeit counts, from finished game records."""

    bots: dict[str, BotScore] = msgspec.field(default_factory=dict)
    forfeits: Counter[str] = msgspec.field(default_factory=Counter)
    """Termination value -> count, for games a bot lost by its own fault."""
    results: list[GameResult] = msgspec.field(default_factory=list)
    """Every finished game, for the rating fit that ranks and the head-to-head lines."""
    fitted: bool = True
    """Rank and rate by the reports' Bayesian fit (numpy); False: rank by score per game, and
    the ratings are the head-to-head lines' (:meth:`pair_text`, no numpy)."""
    _elo: tuple[int, dict[str, float]] = (0, {})
    _place: dict[str, int] = msgspec.field(default_factory=dict)
    """Each rated bot's place in the fit's order (which ranks separated results by group)."""
    _error: dict[str, float] = msgspec.field(default_factory=dict)
    """Each rating's 95% interval half-width."""
    _on_prior: set[str] = msgspec.field(default_factory=set)
    """The bots whose rating rests on the prior (the results alone only order them)."""

    @classmethod
    def of(cls, names: Iterable[str], records: Iterable[GameRecord] = (), *,
           fitted: bool = True) -> Standings:
        standings = cls({name: BotScore() for name in names}, fitted=fitted)
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
        from ratings.sources import record_result  # after the first game: not in the start-up

        result = record_result(record, record.id)
        if result is not None:
            self.results.append(result)

    def elo(self) -> dict[str, float]:
        """Ratings of the games so far (the reports' Bayesian fit: a number for every bot
        with games), refitted when games came in since the last call; bots without games
        are absent, and all of them when the standings are not :attr:`fitted`."""
        if self.fitted and self._elo[0] != len(self.results):
            from ratings import Prior, aggregate, fit_ratings, version_parents
            from ratings.model import ON_PRIOR

            counts = aggregate(self.results)
            fit = fit_ratings(counts, prior=Prior(parents=version_parents(counts.players)))
            played = {p for i, p in enumerate(fit.players) if fit.played[i] > 0}
            self._elo = (len(self.results), {p: float(fit.ratings[i])
                                             for i, p in enumerate(fit.players) if p in played})
            self._error = {p: float(fit.errors[i]) for i, p in enumerate(fit.players)}
            self._place = {fit.players[i]: k for k, i in enumerate(fit.order())
                           if fit.played[i] > 0}
            self._on_prior = {p for i, p in enumerate(fit.players) if fit.marks[i] == ON_PRIOR}
        return self._elo[1]

    def ranked(self) -> list[tuple[str, BotScore]]:
        """Best first in the rating fit's order (bounds rank by what they bound, separated
        results by group; not :attr:`fitted`: none); then by score per game; bots without
        games last."""
        self.elo()
        place = self._place

        def key(kv: tuple[str, BotScore]) -> tuple[int, float, str]:
            name, s = kv
            pct = s.score / s.games if s.games else -1.0
            return (place.get(name, len(place)), -pct, name)

        return sorted(self.bots.items(), key=key)

    COLUMNS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("#", "right"), ("bot", "left"), ("games", "right"), ("W", "right"), ("D", "right"),
        ("L", "right"), ("score", "right"), ("%", "right"), ("Elo", "right"),
    )  # fmt: skip

    SCORE_INTERVAL_COLUMN: ClassVar[tuple[str, str]] = ("% 95%", "right")
    """Instead of the Elo column when not :attr:`fitted`: the score's own uncertainty, so that
    every bot listed has a number with its interval without the fit."""

    @property
    def columns(self) -> tuple[tuple[str, str], ...]:
        """The columns shown: :data:`COLUMNS`; when not :attr:`fitted`, the score's interval
        instead of the Elo column."""
        return self.COLUMNS if self.fitted else (*self.COLUMNS[:-1], self.SCORE_INTERVAL_COLUMN)

    def rows(self) -> list[tuple[str, ...]]:
        """The standings as text cells, best first (one per column of :attr:`columns`)."""
        elo = self.elo()
        rows: list[tuple[str, ...]] = []
        for rank, (name, s) in enumerate(self.ranked(), start=1):
            pct = f"{100 * s.score / s.games:.1f}" if s.games else "-"
            rating = elo.get(name)
            if not self.fitted:
                shown = _score_interval_text(s)
            elif rating is None or not s.games:
                shown = "-"
            else:
                error = self._error.get(name, math.nan)
                shown = f"{rating:+.0f}" + (f" ± {error:.0f}" if error == error else "")
                shown += " *" if name in self._on_prior else ""
            rows.append((
                str(rank), name, str(s.games), str(s.wins), str(s.draws), str(s.losses),
                f"{s.score:g}", pct, shown,
            ))  # fmt: skip
        return rows

    def pair_text(self) -> str:
        """The head-to-head lines of the standings that are not :attr:`fitted` (cutechess's:
        W - L - D, score, the Elo difference with its 95% interval, LOS, the pentanomial
        counts), each pair from its higher-ranked bot's side; empty when fitted (the fit's
        intervals are in the table) or before any game."""
        if self.fitted or not self.results:
            return ""
        from ratings.pairwise import pairwise
        from reports.pair_text import format_pairs, ranked_pairs

        pairs = ranked_pairs(pairwise(self.results).values(), [n for n, _ in self.ranked()])
        head = ("head to head: Elo difference +/- its 95% interval, LOS (`arena ratings "
                "RUN_DIR` fits the ratings)")
        if len(pairs) > PAIR_LINES:
            return f"{len(pairs)} pairs met: `arena ratings RUN_DIR --pairs` lists them"
        return head + "\n" + format_pairs(pairs).rstrip("\n")

    def table(self, title: str = "Standings") -> Table:
        """The standings as a rich table (the live display)."""
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        for column, justify in self.columns:
            table.add_column(column, justify=justify)  # type: ignore[arg-type]
        for row in self.rows():
            table.add_row(*row)
        if self._on_prior:
            table.caption = ON_PRIOR_NOTE
        return table

    def text(self, title: str = "Standings") -> str:
        """The standings as plain aligned columns, for logs and pipes (``--plain``): printed
        once at the end, not worth loading rich for."""
        columns = self.columns
        cells = [tuple(name for name, _ in columns), *self.rows()]
        widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
        lines = [title]
        for row in cells:
            lines.append("  ".join(
                cell.rjust(width) if justify == "right" else cell.ljust(width)
                for cell, width, (_, justify) in zip(row, widths, columns, strict=True)
            ).rstrip())
        if self._on_prior:
            lines.append(ON_PRIOR_NOTE)
        return "\n".join(lines)

    def forfeit_text(self) -> str:
        if not self.forfeits:
            return "forfeits: none"
        parts = ", ".join(f"{reason} {n}" for reason, n in self.forfeits.most_common())
        return f"forfeits: {parts}"


class Deadline(msgspec.Struct, frozen=True):
    """A run's end at a moment rather than after a number of games."""

    at: float
    """The deadline, in seconds since the epoch."""
    clock: Callable[[], float]
    """Now, in the same seconds (the run's own clock: a test's moves with its games)."""
    lengths: Callable[[], Sequence[float]]
    """The wall-clock lengths of past games in seconds (the league's closed nights' and this
    night's so far): what the estimate of the games that fit rests on."""
    concurrency: int = 1
    """Games played at once."""
    _median: list[float] = msgspec.field(default_factory=lambda: [-1, 0.0])
    """(how many lengths, their median): the median is taken again only when games came in
    (the display asks at every event, and a league's history holds thousands)."""

    def left(self) -> float:
        return max(0.0, self.at - self.clock())

    def typical(self) -> float | None:
        """The median past game's length; None before any game has one."""
        lengths = self.lengths()
        if not lengths:
            return None
        if self._median[0] != len(lengths):
            import statistics  # a night's only (fractions, decimal): not in a run's start-up

            self._median[:] = [len(lengths), statistics.median(lengths)]
        return self._median[1]

    def fits(self) -> int | None:
        """Games the time left holds: as many at once as the run plays, each as long as the
        median past game; None before any game has a length."""
        typical = self.typical()
        if typical is None:
            return None
        return int(self.left() // max(typical, 1e-3)) * self.concurrency

    def text(self) -> str:
        """``1h02m00s left to 07:00, about 40 more games fit (median game 1m30s)``;
        before any game has a length, the time left only."""
        end = time.strftime("%H:%M", time.localtime(self.at))
        typical, fits = self.typical(), self.fits()
        if typical is None or fits is None:
            return f"{_duration(self.left())} left to {end}, no game lengths yet"
        shown = f"{typical:.1f} s" if typical < 60 else _duration(typical)
        return (f"{_duration(self.left())} left to {end}, about {fits} more games fit "
                f"(median game {shown})")


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
        deadline: Deadline | None = None,
        fitted: bool = True,
    ) -> None:
        self.title = title
        self.deadline = deadline
        """The run's deadline: then no total is shown, but the time left and what fits."""
        self.out = out or sys.stdout
        self.total = total
        finished = list(done)
        self.standings = Standings.of(names, finished, fitted=fitted)
        """``fitted``: ranked and rated by the reports' fit, which loads numpy (a run that
        builds no report passes False: :attr:`Standings.fitted`)."""
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
            whole = "" if self.deadline is not None else f"/{self.total}"
            self._line(f"resuming: {self.resumed}{whole} games already played")
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
                f"[{self.count_text(self.done)}] {record.id} {record.p1} - {record.p2} "
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

    def count_text(self, done: int) -> str:
        """``12/40`` towards a total; ``12 played`` towards a deadline."""
        return f"{done} played" if self.deadline is not None else f"{done}/{self.total}"

    def rate_text(self) -> str:
        if self.deadline is not None:
            return f"{self.games_per_minute():.1f} games/min, {self.deadline.text()}"
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
            f"{self.title}: "
            f"{f'{self.done} games played' if self.deadline else f'{self.done}/{self.total} games'}"
            f", {self.rate_text()}, "
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
        pairs = [text] if (text := self.standings.pair_text()) else []
        if self.is_live:
            self.console.print(self.standings.table(title=title))
            for line in [*pairs, self.standings.forfeit_text()]:
                self.console.print(line, markup=False, highlight=False)
        else:
            print(self.standings.text(title), *pairs, self.standings.forfeit_text(), sep="\n",
                  file=self.out, flush=True)
