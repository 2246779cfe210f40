"""Soak test of the referee: many games at concurrency 2 between random and hostile bots mixed.

Games are played in this process with the referee's ``play_game`` (what ``arena run`` calls per
game), two at a time, between bots drawn at random from the sample random bot and the hostile
test bots (``tests/hostile/``: crashes, hangs, floods, bad UTF-8, illegal moves, forks,
setsid escapes, SIGTERM ignorers, memory hogs...). Reported: games per minute, the forfeit
counts by termination, the referee's RSS at the start, after a warm-up and at the end (it must
not grow with the number of games), and any bot process left behind (there must be none).

``SOAK_GAMES`` sets the number of games (default 1000); ``SOAK_SEED`` the draw of pairings.
"""

from __future__ import annotations

import os
import random
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

from referee.adjudication import Adjudication
from referee.botspec import BotSpec, Limits
from referee.match import FreshBots, play_game
from referee.order import GameOrder
from referee.process import proctree
from referee.record import GameRecord
from referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"
GAME = "jungle"
TC = TimeControl(base_ms=1000.0)
CAP = Adjudication(max_plies=60)
CONCURRENCY = 2
WARMUP = 100
# Hostile bots; each is drawn as often as one random bot (the random bots weigh the rest).
HOSTILE_BOTS = ["crash_at_start.py", "crash_at_start.sh", "crash_midgame.py",
                "exit_silently.py", "ugiok_twice.py", "hang_on_go.py", "info_forever.py",
                "flood_no_newline.py", "ten_mb_line.py", "bad_utf8.py", "illegal_move.py",
                "wrong_game_move.py", "bestmove_none.py", "late_bestmove.py",
                "ignore_sigterm.py", "fork_child.py", "fork_child.sh", "fork_setsid.py",
                "memory_hog.py"]
RANDOM_WEIGHT = len(HOSTILE_BOTS)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def tagged(tag: str) -> list[int]:
    return sorted(proctree.tagged(tag))


def pool(tag: str) -> list[BotSpec]:
    # -X tag=...: an ignored interpreter option, so the tag shows in the command line.
    bots = [BotSpec(name=f"random{i}", cmd=[sys.executable, "-X", f"tag={tag}", str(RANDOM_BOT),
                                            "--seed", str(i)]) for i in range(RANDOM_WEIGHT)]
    for script in HOSTILE_BOTS:
        program = HOSTILE / script
        cmd = [sys.executable, str(program)] if script.endswith(".py") else [str(program)]
        limits = Limits(memory_mb=256) if script == "memory_hog.py" else Limits()
        bots.append(BotSpec(name=program.name.replace(".", "_"), cmd=[*cmd, tag],
                            limits=limits))
    return bots


async def soak(games: int, seed: int, log_dir: Path, tag: str) -> None:
    rng = random.Random(seed)
    bots = pool(tag)
    pairings = [tuple(rng.sample(bots, 2)) for _ in range(games)]
    # Only counts are kept (not the records), so that RSS shows the referee's own footprint.
    ends: Counter[str] = Counter()
    losers: Counter[str] = Counter()
    played = 0
    failures: list[str] = []
    rss = {"start": rss_mb()}
    samples: list[tuple[int, float]] = []
    started = time.perf_counter()
    send, receive = trio.open_memory_channel[tuple[BotSpec, ...]](0)

    async def worker(inbox: trio.MemoryReceiveChannel[tuple[BotSpec, ...]]) -> None:
        async with inbox:
            async for p1, p2 in inbox:
                try:
                    record = await play_game(
                        GameOrder.checked(GAME, p1, p2, tc=TC, adjudication=CAP),
                        FreshBots(log_dir))
                except Exception as exc:  # a referee bug: counted, reported, not fatal
                    failures.append(f"{p1.name}-{p2.name}: {type(exc).__name__}: {exc}")
                    continue
                nonlocal played
                played += 1
                done = played
                count(record, ends, losers)
                if done == WARMUP:
                    rss["warm"] = rss_mb()
                if done % 100 == 0:
                    samples.append((done, rss_mb()))
                    rate = 60 * done / (time.perf_counter() - started)
                    print(f"  {done} games, {rate:.0f} games/min, RSS {samples[-1][1]:.1f} MB",
                          flush=True)

    async with trio.open_nursery() as nursery:
        for _ in range(CONCURRENCY):
            nursery.start_soon(worker, receive.clone())
        await receive.aclose()
        async with send:
            for pairing in pairings:
                await send.send(pairing)
    elapsed = time.perf_counter() - started
    rss["end"] = rss_mb()
    report(played, ends, losers, failures, rss, samples, elapsed, tag)


def count(record: GameRecord, ends: Counter[str], losers: Counter[str]) -> None:
    ends[str(record.termination)] += 1
    if record.winner is not None and record.termination != "normal":
        losers[f"{(record.p1, record.p2)[1 - record.winner]}: {record.termination}"] += 1


def report(played: int, ends: Counter[str], losers: Counter[str], failures: list[str],
           rss: dict[str, float], samples: list[tuple[int, float]], elapsed: float,
           tag: str) -> None:
    print(f"games: {played} in {elapsed:.0f} s at concurrency {CONCURRENCY} = "
          f"{60 * played / elapsed:.0f} games/min (referee failures: {len(failures)})")
    for failure in failures[:10]:
        print(f"  referee failure: {failure}")
    print("terminations: " + ", ".join(f"{k} {v}" for k, v in ends.most_common()))
    print("forfeits by bot and termination:")
    for key, count in sorted(losers.items()):
        print(f"  {key:45} {count}")
    warm = rss.get("warm", rss["start"])
    print(f"referee RSS: start {rss['start']:.1f} MB, after {WARMUP} games {warm:.1f} MB, "
          f"end {rss['end']:.1f} MB (growth after warm-up {rss['end'] - warm:+.1f} MB)")
    if samples:
        print("RSS by games played: " + ", ".join(f"{n}: {m:.1f}" for n, m in samples))
    time.sleep(3)  # init reaps the killed children of dead bots every couple of seconds
    left = tagged(tag)
    print(f"bot processes left behind: {len(left)}")
    if left:
        for pid in left:  # do not leave them running after the benchmark
            os.kill(pid, 9)


def main() -> None:
    games = int(os.environ.get("SOAK_GAMES", "1000"))
    seed = int(os.environ.get("SOAK_SEED", "1"))
    tag = f"soak-{uuid.uuid4().hex[:10]}"
    with TemporaryDirectory() as tmp:
        trio.run(soak, games, seed, Path(tmp), tag)


if __name__ == "__main__":
    main()
