"""Referee overhead per move next to the raw pipe round trip, measured in the same run.

Overhead: the time from reading one bot's ``bestmove`` to writing the other bot's ``go``
(checking the move, adjudication, the next legal list, formatting, the write itself), shown
whole and split into the referee's work (up to the start of the write, with the rules' own
share measured in process) and the write system call, which wakes the next bot. Raw: one
line written to a minimal echo process and its echo read back, alternating between two such
processes, with the same trio pipes the referee uses. The bots here answer instantly with
a random legal move (seeded), so the games are all referee. Target: median overhead <= 2x raw.

The machine is shared and noisy, so the whole measurement (raw round trips, then every game)
is repeated :data:`REPEATS` times, interleaved, and the verdict reads the median and the best
(min) of the per-run ratios: one noisy run cannot flip it.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.games import GAME_NAMES, get_game
from referee.match import open_bot, play_on
from referee.order import GameOrder
from referee.process.botprocess import BotProcess
from referee.timecontrol import TimeControl

INSTANT_BOT = """
import random, sys
rng = random.Random(1)
out = sys.stdout
legal = []
for line in sys.stdin:
    if line.startswith("legal"):
        legal = line.split()[1:]
    elif line.startswith("go"):
        out.write("bestmove " + rng.choice(legal) + "\\n"); out.flush()
    elif line.startswith("ugi"):
        out.write("id name instant\\nugiok\\n"); out.flush()
    elif line.startswith("isready"):
        out.write("readyok\\n"); out.flush()
    elif line.startswith("quit"):
        break
"""

ECHO = """
import sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
for line in inp:
    out.write(line); out.flush()
"""

REPEATS = 5
ROUND_TRIPS = 1500
MOVES_PER_GAME_KIND = 800
MAX_GAMES = 300
MAX_PLIES = 300


def _quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


async def raw_round_trips(count: int) -> list[float]:
    """Seconds per line written to an echo process and read back, alternating two echoes."""
    spec = BotSpec(name="echo", cmd=[sys.executable, "-c", ECHO])
    echoes = [await BotProcess.start(spec), await BotProcess.start(spec)]
    line = "position startpos moves " + " ".join(["a1a2"] * 20)
    times: list[float] = []
    try:
        for i in range(count + 100):
            echo = echoes[i % 2]
            started = trio.current_time()
            await echo.send(line)
            await echo.readline()
            if i >= 100:  # warm-up
                times.append(trio.current_time() - started)
    finally:
        for echo in echoes:
            await echo.aclose()
    return times


async def referee_overheads(game: str, bot_path: Path) -> tuple[list[tuple[float, float]], int]:
    """(to the start of the write, to its end) per move, and the plies played."""
    spec1 = BotSpec(name="instant-1", cmd=[sys.executable, str(bot_path)])
    spec2 = BotSpec(name="instant-2", cmd=[sys.executable, str(bot_path)])
    c1, c2 = await open_bot(spec1), await open_bot(spec2)
    overheads: list[tuple[float, float]] = []
    plies = 0
    order = GameOrder.checked(game, spec1, spec2, tc=TimeControl(base_ms=60_000.0, inc_ms=1000.0),
                              adjudication=Adjudication(max_plies=MAX_PLIES))
    try:
        games = 0
        while len(overheads) < MOVES_PER_GAME_KIND and games < MAX_GAMES:
            record = await play_on(order, (c1, c2), overheads=overheads)
            plies += record.plies
            games += 1
    finally:
        await c1.aclose()
        await c2.aclose()
    return overheads, plies


def rules_cost(game: str, moves: int = 2000) -> float:
    """Median seconds per move of the rules' own share of the overhead, in process: the end
    checks, move generation and formatting for the legal line, and playing the move."""
    rng = random.Random(1)
    adjudication = Adjudication(max_plies=MAX_PLIES)
    times: list[float] = []
    rules = get_game(game)
    while len(times) < moves:
        board = rules.start()
        while True:
            started = time.perf_counter()
            if board.outcome() is not None or board.adjudication() is not None \
                    or board.ply >= (adjudication.max_plies or 0):
                break
            internal = board.moves()
            legal = [board.format_move(m) for m in internal]
            board.push(internal[legal.index(rng.choice(legal))])
            times.append(time.perf_counter() - started)
    return statistics.median(times)


async def one_run(bot_path: Path) -> tuple[float, float]:
    """One interleaved measurement; (overhead / raw, referee work / raw), medians."""
    raw_median, _ = _quantiles(await raw_round_trips(ROUND_TRIPS))
    work: list[float] = []
    total: list[float] = []
    for game in GAME_NAMES:
        overheads, _plies = await referee_overheads(game, bot_path)
        work += [before for before, _ in overheads]
        total += [after for _, after in overheads]
    return _quantiles(total)[0] / raw_median, _quantiles(work)[0] / raw_median


async def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        # Run as root, the bots run as an unprivileged uid of their own (the arena's
        # containment), which must be able to read the bot: a temporary folder is 0700.
        Path(tmp).chmod(0o755)
        bot_path = Path(tmp) / "instant_bot.py"
        bot_path.write_text(INSTANT_BOT)
        bot_path.chmod(0o644)
        await detailed(bot_path)
        ratios = [await one_run(bot_path) for _ in range(REPEATS)]
        total = [r[0] for r in ratios]
        work = [r[1] for r in ratios]
        verdict = "within" if statistics.median(total) <= 2 else "OVER"
        print(f"{REPEATS} interleaved runs: overhead / raw round trip: median "
              f"{statistics.median(total):4.2f}x, min {min(total):4.2f}x, max {max(total):4.2f}x "
              f"({verdict} the 2x target by the median); referee work alone: median "
              f"{statistics.median(work):4.2f}x, min {min(work):4.2f}x")


async def detailed(bot_path: Path) -> None:
    """The first run, printed per game (where the time goes)."""
    raw = await raw_round_trips(ROUND_TRIPS)
    raw_median, raw_p99 = _quantiles(raw)
    print(f"raw pipe round trip ({len(raw)} lines): median {raw_median * 1e6:7.1f} us, "
          f"p99 {raw_p99 * 1e6:7.1f} us")
    work: list[float] = []
    total: list[float] = []
    for game in GAME_NAMES:
        started = time.perf_counter()
        overheads, plies = await referee_overheads(game, bot_path)
        wall = time.perf_counter() - started
        work += [before for before, _ in overheads]
        total += [after for _, after in overheads]
        w_median, _ = _quantiles([before for before, _ in overheads])
        median, p99 = _quantiles([after for _, after in overheads])
        print(f"{game:9} ({len(overheads):4} moves) overhead median {median * 1e6:5.1f} us "
              f"[work {w_median * 1e6:5.1f}, of which rules {rules_cost(game) * 1e6:4.1f}; "
              f"write {(median - w_median) * 1e6:5.1f}], p99 {p99 * 1e6:6.1f} us, "
              f"{median / raw_median:4.2f}x raw; {plies / wall:5.0f} plies/s")
    w_median, w_p99 = _quantiles(work)
    median, p99 = _quantiles(total)
    ratio = median / raw_median
    print(f"all games: overhead to the end of the write: median {median * 1e6:5.1f} us, p99 "
          f"{p99 * 1e6:6.1f} us = {ratio:4.2f}x raw (this run)")
    print(f"           referee work alone (to the start of the write): median "
          f"{w_median * 1e6:5.1f} us, p99 {w_p99 * 1e6:6.1f} us = "
          f"{w_median / raw_median:4.2f}x raw")


def main() -> None:
    trio.run(run)


if __name__ == "__main__":
    main()
