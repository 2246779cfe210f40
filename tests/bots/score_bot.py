"""A native bot that plays the first legal move and reports a scripted score with each move:
for the score adjudication tests. ``score_bot.py SCORE [FROM_MOVE]``: from its FROM_MOVE-th
move on (1-based, default 1) it prints ``info depth 1 score cp SCORE`` before ``bestmove``;
before that it prints no score. SCORE ``mate`` prints ``score mate 3``; ``alt`` alternates
+900 and -900."""

from __future__ import annotations

import sys


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> int:
    score = sys.argv[1]
    start = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    legal: list[str] = []
    made = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "ugi":
            say("id name score-bot")
            say("ugiok")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "legal":
            legal = words[1:]
        elif words[0] == "go":
            made += 1
            if made >= start:
                if score == "mate":
                    say("info depth 1 score mate 3")
                elif score == "alt":
                    say(f"info depth 1 score cp {900 if made % 2 else -900}")
                else:
                    say(f"info depth 1 score cp {int(score)}")
            say(f"bestmove {legal[0]}")
        elif words[0] == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
