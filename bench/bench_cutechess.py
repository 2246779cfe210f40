"""The arena next to cutechess-cli: the same Fairy-Stockfish dobutsu matches run by both.

Both runners play Fairy-Stockfish against itself from the same start positions (the balanced
openings of ``examples/openings/dobutsu-balanced.txt``, each with both colours), at the same
settings, in interleaved runs (arena, cutechess, arena, cutechess...) so that the machine's
load hits both alike; each figure is the median over the runs with the spread (min-max), and
the ratio arena/cutechess. What is measured, per run:

* games/min (wall clock from the runner's start to its exit);
* the runner's own CPU per ply (its utime + stime, read from /proc while it is a zombie, so
  the engines' CPU is not counted), and its RSS at the end (last sample before it exits);
* time forfeits (from the journal, or the PGN's ``Termination`` tags);
* plies/min and plies per game: the two runners do not play the same games (below), so
  games/min compares runners only as far as their games are as long.

Then, for the arena alone (cutechess has no counterpart worth timing): ``arena --help`` and
the time from ``arena run``'s start to the first ``go`` a bot receives (cutechess's figure,
with the same probe engine, is printed next to it), the runner's CPU by then, and its RSS at
that ``go`` and at its end, each against the floor of Python with trio alone.

Fairy-Stockfish comes from the Debian package ``fairy-stockfish`` (``/usr/games``); without it
this benchmark prints a message and returns. cutechess-cli is found through the
``CUTECHESS_CLI`` environment variable, else on PATH; without it only the arena's figures
are printed. Building it: bench/README.md. ``BENCH_QUICK=1`` runs small sizes (a smoke test).

A rules difference to know: Fairy-Stockfish's dobutsu forbids leaving one's lion attacked,
ours (and cutechess's) allow it, so in some positions FSF answers ``bestmove (none)``; the
arena scores that as an illegal move, cutechess by its own rules. The games end either way,
so the throughput comparison holds; the results are not meant to agree. Nor would the
games' lengths: cutechess refuses Fairy-Stockfish's chick promotions written without their
``+`` (``a3a4``; the arena accepts it, the move is unambiguous) and ends those games early as
illegal moves (about 21 plies a game against 27 from all the openings). So the benchmark
first plays every opening with both colours at ``nodes=1`` in both runners and keeps the
openings whose two games have the same length in both (about two thirds of them): at
``nodes=1`` Fairy-Stockfish is deterministic, so from those both runners play the same games
and games/min compares like with like (plies/game is printed to show it). Under a clock the
games differ from run to run anyway; plies/min is the figure to read there.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.run.referees import GAMES_PER_REFEREE, referees_for, think_slots_for
from arena.rundir.journal import iter_records
from arena.rundir.layout import RunDir
from referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent
OPENINGS = ROOT / "examples" / "openings" / "dobutsu-balanced.txt"
QUICK = os.environ.get("BENCH_QUICK") == "1"
REPEATS = 2 if QUICK else 3
PART = os.environ.get("BENCH_CUTECHESS_PART", "")
"""``startup``, ``busy`` or ``many``: that section alone; ``nodes1``: the side-by-side
``nodes=1`` lines at concurrency 1 and 2 alone (the runner's CPU per ply); ``long``: the 100-
and 1,000-game ``nodes=1`` runs alone; ``split``: the busy section's start-up and per-ply
split alone (:func:`busy_split`); else every section."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MAX_PLIES = 400


@dataclass
class Run:
    """One runner process, measured."""

    wall: float
    cpu: float
    """The runner's own user + system seconds (not its children's)."""
    rss_mb: float
    """Resident set size at the last sample before it exited."""
    games: int = 0
    plies: int = 0
    forfeits: int = 0
    status: int = 0
    lengths: dict[tuple[str, str], int] = field(default_factory=dict)
    """Plies per game by (start position in cutechess's FEN, first player)."""
    no_move: int = 0
    """Games that ended before their first move (the arena's journal; counted apart so that
    the openings' lengths still compare)."""
    move_ms: list[float] = field(default_factory=list)
    """Every bot move's time as the runner measured it (its clock's view)."""
    turnaround_ms: list[float] = field(default_factory=list)
    """The arena's own: each game's p99 of the referee's time before a ``go``."""
    first_line_ms: list[float] = field(default_factory=list)
    """The arena's own: each game's p99 of the time from ``go`` to the bot's first line."""
    slot_wait_ms: list[float] = field(default_factory=list)
    """The arena's own: each game's p99 of the wait for a thinking slot before a ``go``."""
    waited_ms: list[float] = field(default_factory=list)
    """The arena's own: every clocked move's wait for a CPU, not charged to the bot's clock
    (:mod:`referee.process.schedstat`)."""

    @property
    def games_per_min(self) -> float:
        return 60.0 * self.games / self.wall if self.wall > 0 else 0.0

    @property
    def plies_per_min(self) -> float:
        return 60.0 * self.plies / self.wall if self.wall > 0 else 0.0

    @property
    def plies_per_game(self) -> float:
        return self.plies / self.games if self.games else 0.0

    @property
    def cpu_per_ply_us(self) -> float:
        return 1e6 * self.cpu / self.plies if self.plies else float("nan")


def measure(argv: Sequence[str], *, cwd: Path, log: Path) -> Run:
    """Run ``argv`` to its end; its wall time, own CPU (from its zombie's /proc stat) and RSS."""
    with open(log, "wb") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(list(argv), cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        pidfd = os.pidfd_open(proc.pid)
        rss_kb = 0
        try:
            while True:
                status = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
                if status is not None:
                    break
                rss_kb = _rss_kb(proc.pid) or rss_kb
                select.select([pidfd], [], [], 0.25)
            wall = time.perf_counter() - started
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
        finally:
            os.close(pidfd)
            code = proc.wait()
    return Run(wall=wall, cpu=cpu, rss_mb=rss_kb / 1024, status=code)


def _rss_kb(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# ----------------------------------------------------------------------------- openings
def start_positions() -> list[str]:
    """Our position text after each balanced opening."""
    from referee.games import get_game

    rules = get_game("dobutsu")
    positions = []
    for line in OPENINGS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line.startswith("moves "):
            continue
        board = rules.start()
        for move in line.split()[1:]:
            board.play(move)
        positions.append(board.position())
    return positions


def cutechess_fen(position: str) -> str:
    """Our dobutsu text (``board[hand] side - - half full``) in cutechess's shogi-style FEN
    (``board[hand] side - full``, an empty hand written ``-``)."""
    board, side, _castling, _ep, _half, full = position.split()
    return f"{board.replace('[]', '[-]')} {side} - {full}"


def write_openings(directory: Path, positions: Sequence[str], tag: str = "openings"
                   ) -> tuple[Path, Path]:
    """The positions as an arena openings file and a cutechess PGN, in the same order."""
    ours = directory / f"{tag}.txt"
    ours.write_text("".join(f"fen {p}\n" for p in positions))
    theirs = directory / f"{tag}.pgn"
    theirs.write_text("".join(
        f'[Event "opening {i + 1}"]\n[Variant "dobutsu"]\n[SetUp "1"]\n'
        f'[FEN "{cutechess_fen(p)}"]\n\n*\n\n' for i, p in enumerate(positions)))
    return ours, theirs


# ----------------------------------------------------------------------------- runners
@dataclass(frozen=True)
class Match:
    """One benchmark setting, for both runners."""

    name: str
    games: int
    concurrency: int
    tc: str
    """Arena time-control text."""
    cutechess_tc: list[str]
    """The same, as cutechess ``-each`` arguments."""


def arena_run(match: Match, work: Path, engine: str, openings: Path, tag: str,
              extra: Sequence[str] = ()) -> Run:
    config = work / f"{tag}.toml"
    out = work / f"{tag}-out"
    shutil.rmtree(out, ignore_errors=True)
    bots = "".join(f'[[bots]]\nname = "fsf{i}"\ncmd = ["{engine}"]\nprotocol = "uci"\n'
                   for i in (1, 2))
    config.write_text(
        f'game = "dobutsu"\ngames_per_pairing = {match.games}\ntc = "{match.tc}"\n'
        f"concurrency = {match.concurrency}\n[openings]\nfile = \"{openings}\"\n"
        f"[adjudication]\nmax_plies = {MAX_PLIES}\n{bots}")
    argv = [sys.executable, "-m", "arena.cli", "run", str(config), "-o", str(out), "--plain",
            "--no-report", *extra]
    run = measure(argv, cwd=ROOT, log=work / f"{tag}.log")
    for record in iter_records(RunDir(out).journal):
        run.forfeits += record.termination == "time-forfeit"
        if not record.plies:  # no move played (a forfeit at the first move under load):
            run.no_move += 1  # a game for games/min, nothing for the plies
            continue
        run.games += 1
        run.plies += record.plies
        run.lengths[cutechess_fen(record.start_position), record.p1] = record.plies
        run.move_ms.extend(move.elapsed_ms for move in record.moves if not move.book)
        run.waited_ms.extend(move.waited_ms for move in record.moves if not move.book)
        for side in record.latency.sides if record.latency is not None else ():
            if side.turnaround is not None:
                run.turnaround_ms.append(side.turnaround.p99_ms)
            if side.first_line is not None:
                run.first_line_ms.append(side.first_line.p99_ms)
            if side.slot_wait is not None:
                run.slot_wait_ms.append(side.slot_wait.p99_ms)
    return run


def cutechess_run(match: Match, work: Path, cutechess: str, engine: str, openings: Path,
                  tag: str) -> Run:
    pgn = work / f"{tag}.pgn"
    pgn.unlink(missing_ok=True)
    argv = [cutechess, "-variant", "dobutsu",
            "-engine", f"cmd={engine}", "name=fsf1", "proto=uci",
            "-engine", f"cmd={engine}", "name=fsf2", "proto=uci",
            "-each", *match.cutechess_tc,
            "-games", "2", "-rounds", str(match.games // 2), "-repeat",
            "-openings", f"file={openings}", "format=pgn", "order=sequential",
            "-concurrency", str(match.concurrency), "-maxmoves", str(MAX_PLIES // 2),
            "-pgnout", str(pgn)]
    run = measure(argv, cwd=work, log=work / f"{tag}.log")
    text = pgn.read_text(errors="replace") if pgn.exists() else ""
    for game in text.split("[Event ")[1:]:
        fen, white, plies = (re.search(pattern, game) for pattern in (
            r'\[FEN "([^"]+)"\]', r'\[White "([^"]+)"\]', r'\[PlyCount "(\d+)"\]'))
        run.games += 1
        run.plies += int(plies.group(1)) if plies else 0
        if fen and white and plies:
            run.lengths[fen.group(1), white.group(1)] = int(plies.group(1))
    run.forfeits = len(re.findall(r'\[Termination "time forfeit"\]', text))
    run.move_ms = [1000 * float(t) for t in re.findall(r"[{ ](\d+(?:\.\d+)?)s}", text)]
    return run


def agreeing_openings(work: Path, cutechess: str, engine: str, positions: list[str]
                      ) -> list[str]:
    """The positions from which both runners play games of the same lengths, both colours.

    One ``nodes=1`` game per opening and colour in each runner; Fairy-Stockfish is
    deterministic there, so equal lengths mean the same games (the ones cutechess ends at a
    promotion it refuses differ)."""
    ours_file, their_file = write_openings(work, positions, "all-openings")
    probe = Match("openings", 2 * len(positions), 1, "inf nodes=1", ["tc=inf", "nodes=1"])
    ours = arena_run(probe, work, engine, ours_file, "agree-a")
    theirs = cutechess_run(probe, work, cutechess, engine, their_file, "agree-c")
    kept = []
    for position in positions:
        fen = cutechess_fen(position)
        keys = [(fen, "fsf1"), (fen, "fsf2")]
        if all(key in ours.lengths and ours.lengths[key] == theirs.lengths.get(key)
               for key in keys):
            kept.append(position)
    print(f"-- openings: {len(kept)} of {len(positions)} give the same games in both runners "
          f"(nodes=1, both colours; the others end early in cutechess at a promotion it "
          f"refuses); the matches below use those {len(kept)}", flush=True)
    return kept or positions


# ----------------------------------------------------------------------------- reporting
def spread(values: list[float], unit: str, digits: int = 0) -> str:
    if not values:
        return "-"
    fmt = f"{{:.{digits}f}}"
    median = fmt.format(statistics.median(values))
    return f"{median}{unit} [{fmt.format(min(values))}-{fmt.format(max(values))}]"


def ratio(ours: list[float], theirs: list[float]) -> str:
    if not ours or not theirs or statistics.median(theirs) == 0:
        return "-"
    return f"{statistics.median(ours) / statistics.median(theirs):.2f}x"


def report(match: Match, ours: list[Run], theirs: list[Run]) -> None:
    print(f"-- {match.name}: {match.games} games, concurrency {match.concurrency}, "
          f"tc {match.tc} ({len(ours)} interleaved runs each; median [min-max])")
    rows: list[tuple[str, Callable[[Run], float], str, int]] = [
        ("games/min", lambda r: r.games_per_min, "", 0),
        ("plies/min", lambda r: r.plies_per_min, "", 0),
        ("plies/game", lambda r: r.plies_per_game, "", 1),
        ("wall", lambda r: r.wall, " s", 1),
        ("runner CPU/ply", lambda r: r.cpu_per_ply_us, " us", 0),
        ("runner RSS end", lambda r: r.rss_mb, " MB", 0),
        ("time forfeits", lambda r: float(r.forfeits), "", 0),
    ]
    for label, get, unit, digits in rows:
        a = [get(r) for r in ours]
        c = [get(r) for r in theirs]
        line = f"   {label:15} arena {spread(a, unit, digits):26}"
        if theirs:
            line += f" cutechess {spread(c, unit, digits):26} ratio {ratio(a, c)}"
        print(line, flush=True)
    bad = [r for r in ours + theirs if r.status != 0 or r.games < match.games]
    if bad:
        print(f"   WARNING: {len(bad)} run(s) ended with a non-zero status or missing games "
              f"(statuses {[r.status for r in bad]}, games {[r.games for r in bad]})")


# ----------------------------------------------------------------------------- start-up
PROBE = """
import os, sys, time
log = sys.argv[1]
for line in sys.stdin:
    word = line.split()[:1]
    if word == ["uci"] or word == ["ugi"]:
        sys.stdout.write("id name probe\\noption name UCI_Variant type combo default dobutsu "
                         "var dobutsu\\n" + line.strip() + "ok\\n"); sys.stdout.flush()
    elif word == ["isready"]:
        sys.stdout.write("readyok\\n"); sys.stdout.flush()
    elif word == ["go"]:
        now = time.time()
        with open("/proc/%d/schedstat" % os.getppid()) as stat:
            cpu_ns = int(stat.read().split()[0])
        with open("/proc/%d/status" % os.getppid()) as status:
            rss_kb = [int(x.split()[1]) for x in status if x.startswith("VmRSS:")][0]
        with open(log, "a") as f:
            f.write("%r %r %r\\n" % (now, cpu_ns / 1e9, rss_kb / 1024))
        sys.stdout.write("bestmove a1a1\\n"); sys.stdout.flush()
    elif word == ["quit"]:
        break
"""

FLOOR = """
import sys
import trio

ENGINE = [sys.executable, "-S", sys.argv[1], sys.argv[2]]


async def engine():
    proc = await trio.lowlevel.open_process(ENGINE, stdin=-1, stdout=-1)
    seen = b""

    async def until(word):
        nonlocal seen
        while word not in seen:
            seen += await proc.stdout.receive_some(4096)

    for line, reply in ((b"uci", b"uciok"), (b"isready", b"readyok"),
                        (b"position startpos\\ngo nodes 1", b"bestmove")):
        await proc.stdin.send_all(line + b"\\n")
        await until(reply)
    await proc.stdin.send_all(b"quit\\n")
    await proc.wait()


async def main():
    async with trio.open_nursery() as nursery:
        nursery.start_soon(engine)
        nursery.start_soon(engine)


trio.run(main)
"""
"""The floor under any runner built on the project's stack: the interpreter, trio's import,
two probe engines started, their handshake and a first ``go``, nothing else (no config, no
rules, no journal). The arena's first ``go`` cannot come before this one's."""


@dataclass
class StartUp:
    """One runner's start, to its first ``go`` and on to its end."""

    go: float
    """Seconds from starting it to the first ``go`` its probe engine reads."""
    cpu: float
    """Its own CPU seconds by then (``/proc/PID/schedstat``: nanoseconds, not clock ticks)."""
    rss_go: float
    """Its RSS at that ``go``, MB."""
    rss_end: float
    """Its RSS at the last sample before it exited (every 10 ms), MB."""
    end: float = float("nan")
    """Seconds from the last ``go`` its probe engines read to its exit: the end of a run
    (the bots' ``quit``, the journal, the standings, the interpreter's exit)."""
    cpu_end: float = float("nan")
    """Its own CPU seconds after that last ``go``."""


def first_go(argv_for: Callable[[Path], list[str]], work: Path, tag: str) -> StartUp:
    """A runner's start (:class:`StartUp`): the probe reads its parent's /proc entries at its
    first ``go``; the RSS at the end is sampled from here."""
    stamps = work / f"{tag}.stamps"
    stamps.unlink(missing_ok=True)
    started = time.time()
    proc = subprocess.Popen(argv_for(stamps), cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    pidfd = os.pidfd_open(proc.pid)
    rss_kb = 0
    cpu = float("nan")
    try:
        while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is None:
            if time.time() - started > 120:
                proc.kill()
            rss_kb = _rss_kb(proc.pid) or rss_kb
            select.select([pidfd], [], [], 0.01)
        ended = time.time()
        with contextlib.suppress(OSError, ValueError):  # a zombie's, still readable
            cpu = int(Path(f"/proc/{proc.pid}/schedstat").read_text().split()[0]) / 1e9
    finally:
        os.close(pidfd)
        proc.wait()
    stamped = sorted(tuple(float(x) for x in line.split())
                     for line in stamps.read_text().splitlines()) if stamps.exists() else []
    if not stamped:
        return StartUp(*(float("nan"),) * 4)
    return StartUp(stamped[0][0] - started, stamped[0][1], stamped[0][2], rss_kb / 1024,
                   end=ended - stamped[-1][0], cpu_end=cpu - stamped[-1][1])


def startup(work: Path, cutechess: str | None) -> None:
    """``arena --help``, and start to first ``go``. The probe runs unsandboxed in both runners
    (it reports through a file in ``work`` and reads its parent's /proc entry, which a private
    /tmp and PID namespace would hide); bench_spawn measures what the sandbox adds."""
    probe = work / "probe.py"
    probe.write_text(PROBE)
    python = sys.executable

    def ours(stamps: Path) -> list[str]:
        out = work / "probe-out"
        shutil.rmtree(out, ignore_errors=True)
        config = work / "probe.toml"
        config.write_text(
            'game = "dobutsu"\ngames_per_pairing = 2\ntc = "10+0.1"\n' + "".join(
                f'[[bots]]\nname = "p{i}"\nprotocol = "uci"\nsandbox = "none"\n'
                f'cmd = ["{python}", "-S", "{probe}", "{stamps}"]\n' for i in (1, 2)))
        return [*arena[:-1], "run", str(config), "-o", str(out), "--plain", "--no-report"]

    def theirs(stamps: Path) -> list[str]:
        engine = f"cmd={python}", "arg=-S", f"arg={probe}", f"arg={stamps}"
        return [str(cutechess), "-variant", "dobutsu", "-engine", *engine, "name=p1",
                "proto=uci", "-engine", *engine, "name=p2", "proto=uci", "-each", "tc=10+0.1",
                "-games", "1"]

    floor = work / "floor.py"
    floor.write_text(FLOOR)

    def stack_floor(stamps: Path) -> list[str]:
        return [python, str(floor), str(probe), str(stamps)]

    help_times: list[float] = []
    ours_go: list[StartUp] = []
    theirs_go: list[StartUp] = []
    floor_go: list[StartUp] = []
    # The ``arena`` command as installed, as people run it (else through ``-m``).
    arena = [python, "-m", "arena.cli", "--help"]
    script = Path(python).with_name("arena")
    if script.exists():
        arena = [str(script), "--help"]
    for _ in range(3 if QUICK else 7):
        started = time.perf_counter()
        subprocess.run(arena, stdout=subprocess.DEVNULL, check=True, timeout=60)
        help_times.append(time.perf_counter() - started)
        ours_go.append(first_go(ours, work, "ours"))
        floor_go.append(first_go(stack_floor, work, "floor"))
        if cutechess:
            theirs_go.append(first_go(theirs, work, "theirs"))
    print("-- start-up (median [min-max])")
    print(f"   arena --help       {spread(help_times, ' s', 3):26} (target < 0.2 s)")
    rows: list[tuple[str, Callable[[StartUp], float], str, int, str]] = [
        ("first go (wall)", lambda r: r.go, " s", 3, " (target < 0.25 s)"),
        ("CPU by first go", lambda r: r.cpu, " s", 3, ""),
        ("RSS at first go", lambda r: r.rss_go, " MB", 1, ""),
        ("RSS at the end", lambda r: r.rss_end, " MB", 1, ""),
        ("last go to exit", lambda r: r.end, " s", 3, ""),
        ("CPU after it", lambda r: r.cpu_end, " s", 3, ""),
    ]
    for label, get, unit, digits, target in rows:
        a = [get(r) for r in ours_go]
        c = [get(r) for r in theirs_go]
        line = f"   {label:18} arena {spread(a, unit, digits):26}"
        if c:
            line += f" cutechess {spread(c, unit, digits):26} ratio {ratio(a, c)}"
        print(line + target, flush=True)
        f = [get(r) for r in floor_go]
        what = (" (python + trio + two engines to a first go, no arena: the least any runner on"
                " this stack takes)" if label.startswith("first") else "")
        if unit == " MB":
            what = f" arena/floor {ratio(a, f)} (target <= 1.5x)"
        print(f"   {'':18} floor {spread(f, unit, digits):26}{what}", flush=True)
    # Paired, run by run: the machine's load drifts less within a pair than over the section.
    above = [r.go - f.go for r, f in zip(ours_go, floor_go, strict=True)]
    print(f"   first go above the floor  {spread(above, ' s', 3):26} (target <= 0.050 s)",
          flush=True)


# ----------------------------------------------------------------------------- many games at once
BUSY_PROCESSES = 8
"""The busy loops of the loaded half of the concurrency section."""
RUNNER_BOUND = 16
"""Games at once of the runner-bound setting (``nodes=1``: the engines answer at once, the
referee's work is all there is), where N referee processes must beat one."""


@contextlib.contextmanager
def busy(count: int) -> Iterator[None]:
    """``count`` Python busy loops while the block runs (the machine under load)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest rank; nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def load_text() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def many_at_once(work: Path, engine: str, ours_openings: Path, their_openings: Path,
                 cutechess: str | None) -> None:
    """``nodes=1`` at concurrency 16 (runner-bound), then st=0.02 at concurrency 16, 32 and 64
    (``BENCH_CONCURRENCY=16,32`` to choose, empty for none): the
    arena with one referee process and with N (:mod:`arena.run.referees`), and cutechess;
    once quiet and once with :data:`BUSY_PROCESSES` busy loops (``BENCH_LOADS=busy`` or
    ``quiet`` for one of them). Per run: games/min, time
    forfeits, the move times as the runner measured them (p50/p99), and the arena's own
    latency (the highest of the games' p99 of the referee's time before a ``go`` and of the
    time from ``go`` to the bot's first line), with its think slots (:mod:`referee.thinkslots`,
    the default: the cores, shared over the referee processes) and the highest of the games'
    p99 wait for one, and the time its bots waited for a CPU, credited to their clocks. One run
    each: the figures are noisy on a shared machine, and the load
    average is printed with each."""
    cores = os.cpu_count() or 1
    levels = [int(x) for x in os.environ.get("BENCH_CONCURRENCY", "16,32,64").split(",") if x]
    print(f"-- many games at once: {cores} cores, one run each "
          "(noisy: read with the load average)", flush=True)
    ratios: list[tuple[str, int, str, float]] = []
    loads = os.environ.get("BENCH_LOADS", "quiet,busy").split(",")
    for label, count in (("quiet", 0), (f"{BUSY_PROCESSES} busy processes", BUSY_PROCESSES)):
        if ("quiet" if count == 0 else "busy") not in loads:
            continue
        with busy(count):
            settings = [("nodes=1", "inf nodes=1", ["tc=inf", "nodes=1"], RUNNER_BOUND)] + [
                ("st=0.02", "st=0.02 timemargin=20", ["st=0.02", "timemargin=20"], level)
                for level in levels]
            for tc_name, tc, cutechess_tc, level in settings:
                games = (level if QUICK else 2 * level) * (4 if tc_name == "nodes=1" else 1)
                match = Match(f"{tc_name} c{level}", games, level, tc, cutechess_tc)
                many = max(2, referees_for(None, level, cores).count)
                slots = think_slots_for(None, timed=not TimeControl.parse(tc).infinite)
                slot_text = {
                    1: _slots_text(referees_for(1, level, cores, think_slots=slots).thinking, 1),
                    many: _slots_text(referees_for(many, level, cores, think_slots=slots).thinking,
                                      many)}
                runs: list[tuple[str, Run, str]] = []
                for name, extra in (("arena 1 referee", ("--referees", "1")),
                                    (f"arena {many} referees", ("--referees", str(many)))):
                    load = load_text()
                    runs.append((name, arena_run(match, work, engine, ours_openings,
                                                 f"many-{level}-{name[6]}", extra), load))
                if cutechess:
                    load = load_text()
                    runs.append(("cutechess", cutechess_run(match, work, cutechess, engine,
                                                            their_openings, f"many-c{level}"),
                                 load))
                print(f"   {tc_name} c={level} {games} games, {label}:", flush=True)
                for (name, run, load), processes in zip(runs, (1, many, 0), strict=False):
                    extra_text = ""
                    if run.turnaround_ms or run.first_line_ms:
                        extra_text = (f" referee p99 {max(run.turnaround_ms, default=0):.1f} ms,"
                                      f" go->first line p99 "
                                      f"{max(run.first_line_ms, default=0):.1f} ms")
                    if processes and any(run.waited_ms):
                        extra_text += (f", CPU wait credited p50 "
                                       f"{percentile(run.waited_ms, 0.5):.1f} p99 "
                                       f"{percentile(run.waited_ms, 0.99):.1f} ms")
                    if processes:
                        extra_text += f", {slot_text[processes]}"
                        if run.slot_wait_ms:
                            extra_text += f" (wait p99 {max(run.slot_wait_ms):.1f} ms)"
                    if run.status != 0:
                        extra_text += f"  exit status {run.status}"
                    done = run.games + run.no_move
                    print(f"     {name:18} {60 * done / run.wall:7.0f} games/min "
                          f"{run.forfeits:4d} forfeits  move p50 "
                          f"{percentile(run.move_ms, 0.5):6.1f} p99 "
                          f"{percentile(run.move_ms, 0.99):6.1f} ms{extra_text}  ({load})",
                          flush=True)
                one, spread_ = runs[0][1], runs[1][1]
                if one.games + one.no_move:
                    ratios.append((f"{tc_name} c={level}", many, label,
                                   (spread_.games + spread_.no_move) * one.wall
                                   / ((one.games + one.no_move) * spread_.wall)))
    print(f"-- how referee processes scale: the runner's work for a game is done by its "
          f"referee process, so N processes can use N cores; here {cores} cores, shared "
          "with the engines (at st=0.02 the engines, not the referee, fill the cores)")
    for setting, many, label, value in ratios:
        print(f"   {setting} {label}: {many} referees / 1 = {value:.2f}x games/min")
    print(f"   on a machine with K cores, --referees K/2 (the default: one per "
          f"{GAMES_PER_REFEREE} games at once, at most one per two cores) should approach "
          f"min(K/2, c/{GAMES_PER_REFEREE})x where the runner is the bottleneck (nodes=1, "
          "fast bots), less each referee process's start (about 0.3 s of CPU); "
          "`python -m bench refpool` splits the CPU per game and models it", flush=True)


def _slots_text(thinking: int, processes: int) -> str:
    """The arena's think slots on a run's line: how many bots think at once, or none."""
    if not thinking:
        return "no think slots (no more games at once than slots, or no clock)"
    each = f" ({thinking} per referee process)" if processes > 1 else ""
    return f"think slots {thinking * processes}{each}"


# ----------------------------------------------------------------------------- main
def find_cutechess() -> str | None:
    named = os.environ.get("CUTECHESS_CLI")
    if named:
        if not os.access(named, os.X_OK):
            print(f"CUTECHESS_CLI={named} is not an executable file; comparison skipped")
            return None
        return named
    return shutil.which("cutechess-cli")


def compile_sources() -> None:
    """Byte-compile the project first, as an installed copy is: a run that compiles its
    sources each time (PYTHONDONTWRITEBYTECODE) would measure the compiler."""
    import compileall

    for package in ("arena", "protocol", "ratings", "referee", "reports"):
        compileall.compile_dir(ROOT / package, quiet=1)


def main() -> None:
    compile_sources()
    engine = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
    if not os.access(engine, os.X_OK):
        print("fairy-stockfish not installed (apt-get install -y fairy-stockfish): skipped")
        return
    cutechess = find_cutechess()
    if cutechess is None:
        print("cutechess-cli not found (set CUTECHESS_CLI or put it on PATH; bench/README.md "
              "says how to build it): the arena's figures only, no ratios")
    scale = 10 if QUICK else 1
    matches = [
        Match("nodes=1", 200 // scale, 1, "inf nodes=1", ["tc=inf", "nodes=1"]),
        Match("nodes=1", 200 // scale, 2, "inf nodes=1", ["tc=inf", "nodes=1"]),
        # Fairy-Stockfish answers "go movetime 20" in 20.8-23 ms even on an idle machine, so
        # without a margin both runners forfeit every game on its first move: the same
        # 20 ms margin for both (cutechess's timemargin=, ours).
        Match("st=0.02", 40 // (scale // 5 or 1), 2, "st=0.02 timemargin=20",
              ["st=0.02", "timemargin=20"]),
        Match("tc=2+0.05", 16 // (scale // 5 or 1), 2, "2+0.05", ["tc=2+0.05"]),
    ]
    with tempfile.TemporaryDirectory(prefix="bench-cutechess-") as tmp:
        work = Path(tmp)
        positions = start_positions()
        if cutechess:
            positions = agreeing_openings(work, cutechess, engine, positions)
        ours_openings, their_openings = write_openings(work, positions)
        if PART == "startup":
            startup(work, cutechess)
            return
        if PART == "many":
            many_at_once(work, engine, ours_openings, their_openings, cutechess)
            return
        if PART == "busy":
            busy_lines(matches, work, engine, ours_openings, their_openings, cutechess)
            return
        if PART == "split":
            with busy(BUSY_PROCESSES):
                busy_split(work, engine, ours_openings, their_openings, cutechess)
            return
        if PART == "nodes1":
            for match in matches[:2]:
                side_by_side(match, work, engine, ours_openings, their_openings, cutechess)
            return
        if PART == "long":
            long_runs(work, engine, ours_openings, their_openings, cutechess)
            return
        for match in matches:
            side_by_side(match, work, engine, ours_openings, their_openings, cutechess)
        long_runs(work, engine, ours_openings, their_openings, cutechess)
        startup(work, cutechess)
        busy_lines(matches, work, engine, ours_openings, their_openings, cutechess)
        many_at_once(work, engine, ours_openings, their_openings, cutechess)


def long_runs(work: Path, engine: str, ours_openings: Path, their_openings: Path,
              cutechess: str | None) -> None:
    """``nodes=1`` runs of 100 and 1,000 games at concurrency 2, one of each runner per
    size: memory at the end of 1,000 games, and CPU per ply against 100 games."""
    long_games = 100 if QUICK else 1000
    sizes: list[tuple[Run, Run | None]] = []
    for games in (100 // (10 if QUICK else 1), long_games):
        match = Match(f"nodes=1 long ({games} games)", games, 2, "inf nodes=1",
                      ["tc=inf", "nodes=1"])
        ours = [arena_run(match, work, engine, ours_openings, "long")]
        theirs = ([cutechess_run(match, work, cutechess, engine, their_openings, "long")]
                  if cutechess else [])
        report(match, ours, theirs)
        sizes.append((ours[0], theirs[0] if theirs else None))
    cpu_split(sizes)


def side_by_side(match: Match, work: Path, engine: str, ours_openings: Path,
                 their_openings: Path, cutechess: str | None) -> None:
    """``match`` played by each runner in turn, :data:`REPEATS` times, and reported."""
    ours: list[Run] = []
    theirs: list[Run] = []
    for rep in range(REPEATS):
        ours.append(arena_run(match, work, engine, ours_openings, f"a{rep}"))
        if cutechess:
            theirs.append(cutechess_run(match, work, cutechess, engine, their_openings,
                                        f"c{rep}"))
    report(match, ours, theirs)


def busy_lines(matches: Sequence[Match], work: Path, engine: str, ours_openings: Path,
               their_openings: Path, cutechess: str | None) -> None:
    """The headline lines again (``nodes=1`` at concurrency 1 and 2, ``st=0.02``, and the
    start-up) with :data:`BUSY_PROCESSES` busy loops on the cores: a shared machine, where
    a runner gets the CPU its runnable threads and processes win from the scheduler. Each
    runner's own figures, interleaved as on a quiet machine."""
    print(f"-- the same with {BUSY_PROCESSES} busy processes on the cores ({load_text()} "
          "before they start)", flush=True)
    with busy(BUSY_PROCESSES):
        for match in matches[:3]:
            loaded = replace(match, name=f"{match.name}, {BUSY_PROCESSES} busy processes")
            side_by_side(loaded, work, engine, ours_openings, their_openings, cutechess)
        busy_split(work, engine, ours_openings, their_openings, cutechess)
        startup(work, cutechess)


def busy_split(work: Path, engine: str, ours_openings: Path, their_openings: Path,
               cutechess: str | None) -> None:
    """With the busy loops running: each runner's CPU at ``nodes=1`` concurrency 1 as
    start-up plus a cost per ply (:func:`start_and_slope` through a short and a long run,
    :data:`REPEATS` interleaved pairs), and the number of games from which the arena's
    whole-run CPU per ply is at or below cutechess's. A starved cutechess gets cheaper per ply
    (its reads come together), while the interpreter and trio cost the arena the same
    start-up: this says which of the two a ``CPU/ply`` ratio at 200 games is about."""
    sizes = (10, 40) if QUICK else (100, 400)
    runs: dict[tuple[str, int], list[Run]] = {}
    for rep in range(REPEATS):
        for games in sizes:
            match = Match(f"split {games}", games, 1, "inf nodes=1", ["tc=inf", "nodes=1"])
            runs.setdefault(("arena", games), []).append(
                arena_run(match, work, engine, ours_openings, f"split-a{rep}"))
            if cutechess:
                runs.setdefault(("cutechess", games), []).append(
                    cutechess_run(match, work, cutechess, engine, their_openings,
                                  f"split-c{rep}"))
    fits: dict[str, tuple[float, float]] = {}
    print(f"-- runner CPU as start-up + per ply, nodes=1 concurrency 1, {BUSY_PROCESSES} busy "
          f"processes (the line through {sizes[0]}- and {sizes[1]}-game runs, {REPEATS} pairs; "
          "medians [min-max])")
    for runner in ("arena", "cutechess") if cutechess else ("arena",):
        lines = [start_and_slope(short, long) for short, long in
                 zip(runs[runner, sizes[0]], runs[runner, sizes[1]], strict=True)]
        slopes, starts = [s for s, _ in lines], [t for _, t in lines]
        fits[runner] = statistics.median(slopes), statistics.median(starts)
        print(f"   {runner:<10} per ply {spread(slopes, ' us')}   start-up "
              f"{spread(starts, ' s', 3)}")
    if "cutechess" not in fits:
        return
    (ours_ply, ours_start), (their_ply, their_start) = fits["arena"], fits["cutechess"]
    plies_per_game = statistics.median(run.plies_per_game for run in runs["arena", sizes[1]])
    if their_ply > ours_ply:
        even = (ours_start - their_start) / ((their_ply - ours_ply) / 1e6) / plies_per_game
        print(f"   the arena's whole-run CPU per ply is at or below cutechess's from about "
              f"{max(even, 0):.0f} games up ({plies_per_game:.1f} plies a game)", flush=True)
    else:
        print("   the arena's cost per ply is above cutechess's here: no run length evens it",
              flush=True)


def cpu_split(sizes: list[tuple[Run, Run | None]]) -> None:
    """Each runner's CPU as start-up plus a cost per ply: the line through its short and long
    ``nodes=1`` runs. CPU/ply of one run mixes the two; at 200 games the start-up (the
    interpreter and trio) weighs as much as a third of the arena's CPU."""
    (short, short_cc), (long, long_cc) = sizes

    ours = start_and_slope(short, long)
    print(f"-- runner CPU as start-up + per ply (the line through the {short.games}- and "
          f"{long.games}-game runs; one run each)")
    if short_cc is None or long_cc is None:
        print(f"   per ply         arena {ours[0]:.0f} us   start-up arena {ours[1]:.2f} s")
        return
    theirs = start_and_slope(short_cc, long_cc)
    print(f"   per ply         arena {ours[0]:.0f} us       cutechess {theirs[0]:.0f} us"
          f"       ratio {ours[0] / theirs[0]:.2f}x")
    print(f"   start-up        arena {ours[1]:.2f} s       cutechess {theirs[1]:.2f} s",
          flush=True)


def start_and_slope(short: Run, long: Run) -> tuple[float, float]:
    """(us per ply, s of start-up): the line through two runs' CPU against their plies."""
    if long.plies == short.plies:
        return float("nan"), float("nan")
    slope = (long.cpu - short.cpu) / (long.plies - short.plies)
    return slope * 1e6, short.cpu - slope * short.plies


if __name__ == "__main__":
    main()
