"""A command's start without the cyclic garbage collector, until its work begins.

Starting ``arena run`` creates a few hundred thousand objects (the modules, classes and
functions of trio, msgspec, the rules, the referee), nearly all of which live as long as the
process. The collector, triggered by allocations, walks them again and again while they are
made: a tenth of the runner's CPU before its first ``go``, for no garbage. So the program
(:func:`arena.cli.console`) starts with the collector off (:func:`pause`), and the command
turns it back on when its long work begins (:func:`settle`: ``arena run`` just before its
games, any other command before it runs), first moving everything alive then into the
permanent generation (:func:`gc.freeze`), so that no later collection walks it again either.
Reference counting frees everything else as usual in between; only cycles made during the
start wait for the collector. Tests that call :func:`arena.cli.main` in their own process
never pause it.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the cyclic collector off for the start of this process's command."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def settle() -> None:
    """The start is over: freeze what is alive and turn the collector back on (a no-op
    unless :func:`pause` turned it off)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
