"""The shared loop of the hostile test bots: a correct bot until its hook misbehaves.

Each bot is ``python3 BOT.py TAG [AFTER]``: TAG is a unique word that the test looks for in
the command lines of leftover processes, AFTER (default 2) how many moves it plays correctly
of each game before the hook takes over. Every bot writes ``pid P pgid G`` to stderr first
(the referee keeps stderr in ``<log_dir>/<name>.stderr.log``), so a test knows which group to
check.
Standard library only.
"""

import os
import sys
from collections.abc import Callable

TAG = sys.argv[1] if len(sys.argv) > 1 else "untagged"
AFTER = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def attempt(name: str, action: Callable[[], object]) -> None:
    """Try ``action`` and report ``name ok RESULT`` or ``name refused ERROR`` to stderr."""
    try:
        result = action()
        note(f"{name} ok {result!r}"[:200])
    except OSError as exc:
        note(f"{name} refused {type(exc).__name__}")


def sleeper(seconds: float = 300) -> list[str]:
    """argv of a child that sleeps and carries TAG in its command line."""
    return [sys.executable, "-c", f"import time; time.sleep({seconds})", TAG]


def serve(on_go: Callable[[list[str], int], bool] | None = None,
          on_ugi: Callable[[], bool] | None = None, quit_exits: bool = True) -> None:
    """Play the first legal move. ``on_go(legal, moves_made)`` runs from move AFTER on and
    returns True when it has dealt with the ``go`` itself; ``on_ugi()`` likewise for ``ugi``."""
    note(f"pid {os.getpid()} pgid {os.getpgid(0)}")
    legal: list[str] = []
    moves = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "ugi":
            if on_ugi is not None and on_ugi():
                continue
            say("id name hostile")
            say("ugiok")
        elif cmd == "isready":
            say("readyok")
        elif cmd == "uginewgame":  # a kept process starts each game afresh
            moves = 0
        elif cmd == "legal":
            legal = words[1:]
        elif cmd == "go":
            if on_go is not None and moves >= AFTER and on_go(legal, moves):
                continue
            moves += 1
            say("bestmove " + legal[0])
        elif cmd == "quit" and quit_exits:
            return
