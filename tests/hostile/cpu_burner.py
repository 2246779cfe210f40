"""Plays AFTER moves, then spins on the CPU without end (stopped by RLIMIT_CPU's SIGXCPU)."""

from _base import serve


def on_go(legal: list[str], moves: int) -> bool:
    n = 0
    while True:
        n += 1


serve(on_go)
