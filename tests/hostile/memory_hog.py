"""Plays AFTER moves, then allocates (and touches) memory without bound."""

from _base import note, serve

hoard: list[bytearray] = []


def on_go(legal: list[str], moves: int) -> bool:
    note("hoarding memory")
    while True:
        hoard.append(bytearray(16 << 20))  # zero-filled: really allocated


serve(on_go)
