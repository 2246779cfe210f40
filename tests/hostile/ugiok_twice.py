"""Answers ``ugi`` with ``ugiok`` twice, and repeats ``ugiok`` before some moves: harmless
noise that must not confuse the referee (the game goes on normally)."""

from _base import say, serve


def on_ugi() -> bool:
    say("id name twice")
    say("ugiok")
    say("ugiok")
    return True


def on_go(legal: list[str], moves: int) -> bool:
    say("ugiok")
    return False  # then the normal move


serve(on_go, on_ugi)
