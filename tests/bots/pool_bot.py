"""Test bot for the process pool: says which process it is and misbehaves in a chosen game.

It appends its pid to ``--pids FILE`` when it starts (so a test counts the processes a run
started) and ``quit <pid>`` when told to quit (an orderly end, not a kill), and writes ``hello
from <pid>`` to stderr (not with ``--quiet``; ``--say-game K`` writes ``said in game K`` there
on the first ``go`` of its K-th game); it plays the first move of each ``legal`` line. The game
count is per process (each ``uginewgame`` starts the next one): ``--crash-game K`` exits on the
first ``go`` of its K-th game, ``--slow-game K`` answers the first ``go`` of its K-th game only
after ``--slow-seconds`` (a time loss at a short control; the late ``bestmove`` still comes),
``--illegal-game K`` answers it with a move that does not exist; ``--log FILE`` appends every
line it reads to FILE; ``--hold-quit FILE`` exits after ``quit`` only once FILE exists (a bot
slow to exit). Standard library only, so it starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pids", required=True)
    parser.add_argument("--crash-game", type=int, default=0)
    parser.add_argument("--slow-game", type=int, default=0)
    parser.add_argument("--slow-seconds", type=float, default=1.0)
    parser.add_argument("--illegal-game", type=int, default=0)
    parser.add_argument("--tag", default="")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--say-game", type=int, default=0)
    parser.add_argument("--log", default="")
    parser.add_argument("--hold-quit", default="")
    args = parser.parse_args()
    with open(args.pids, "a") as pids:
        pids.write(f"{os.getpid()}\n")
    if not args.quiet:
        print(f"hello from {os.getpid()}", file=sys.stderr, flush=True)
    games = 0
    first_go = False
    legal: list[str] = []
    for raw in sys.stdin:
        if args.log:
            with open(args.log, "a") as log:
                log.write(raw)
        words = raw.split()
        if not words:
            continue
        command = words[0]
        reply = None
        if command in ("ugi", "uci"):
            reply = "id name pool-bot\nugiok"
        elif command == "isready":
            reply = "readyok"
        elif command == "uginewgame":
            games += 1
            first_go = True
        elif command == "legal":
            legal = words[1:]
        elif command == "go":
            if first_go and games == args.crash_game:
                os._exit(3)
            if first_go and games == args.say_game:
                print(f"said in game {games}", file=sys.stderr, flush=True)
            if first_go and games == args.slow_game:
                time.sleep(args.slow_seconds)
            move = legal[0] if legal else "(none)"
            if first_go and games == args.illegal_game:
                move = "z9z9"
            first_go = False
            reply = f"bestmove {move}"
        elif command == "quit":  # noted, so a test can tell an orderly end from a kill
            with open(args.pids, "a") as pids:
                pids.write(f"quit {os.getpid()}\n")
            while args.hold_quit and not os.path.exists(args.hold_quit):
                time.sleep(0.01)
            return 0
        if reply is not None:
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
