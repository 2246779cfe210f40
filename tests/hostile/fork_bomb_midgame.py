"""Plays AFTER moves, then forks sleeping children until fork fails (EAGAIN: the process limit
is reached) or 400 are running, and plays on: every other bot that the arena starts meanwhile
finds no process slot left. Its children carry TAG and die with its process group."""

import os
import time

from _base import TAG, note, serve

MAX_CHILDREN = 400
bombed = False


def on_go(legal: list[str], moves: int) -> bool:
    global bombed
    if not bombed:
        bombed = True
        children = 0
        while children < MAX_CHILDREN:
            try:
                pid = os.fork()
            except OSError as exc:
                note(f"fork failed after {children} children: {exc}")
                break
            if pid == 0:
                os.execvp("sleep", [TAG, "300"])  # argv[0] carries TAG for the scan
            children += 1
        time.sleep(3.0)  # hold every slot a while, as a bomb does
    return False  # then play the move as usual


serve(on_go)
