"""The first games' bots, launched before the runner imports trio.

``arena run`` needs a fifth of a second to import trio and the referee here, and an engine
as long again to load its tables (Fairy-Stockfish: 0.15 s before it reads a line). Launched
first, a bot loads while the runner does, and the first ``go`` goes out that much sooner. The
processes are launched exactly as the pool would launch them (:func:`referee.process.spawn.launch`:
same containment and limits) and handed to the :class:`arena.bots.pool.BotPool`, which ends the
ones no game took. This module imports nothing that imports trio.

Before the first launch, the sandbox is tried once (``bwrap /bin/true``: 50-100 ms on a busy
machine). :func:`try_sandbox_early` starts that trial as soon as the config is read, so that it
runs while this process goes on loading rather than ahead of the first bot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from arena.formats.schedule import ScheduledGame
from referee.botspec import BotSpec
from referee.process.sandbox import bwrap_problem, bwrap_trial_pending, start_bwrap_trial
from referee.process.spawn import Launched, launch


def try_sandbox_early(specs: Iterable[BotSpec]) -> None:
    """Start the sandbox's trial run now (without waiting for it) when a bot may run in
    bubblewrap; :func:`prestart` (or the first game) reads its result."""
    if any(spec.sandbox in ("auto", "bwrap") for spec in specs):
        start_bwrap_trial()


def end_sandbox_trial() -> None:
    """Read the early trial's result if no launch did (nothing was played): no child is left
    unreaped. Cheap: the trial is over by then."""
    if bwrap_trial_pending():
        bwrap_problem()


def first_bots(pending: Sequence[ScheduledGame], concurrency: int,
               bots: Mapping[str, BotSpec]) -> list[BotSpec]:
    """The bots the first ``concurrency`` games start with, one entry per process needed."""
    return [bots[name] for game in pending[:max(1, concurrency)] for name in (game.p1, game.p2)]


def prestart(specs: Sequence[BotSpec], *, capture_stderr: bool
             ) -> list[tuple[BotSpec, Launched]]:
    """Launch one process per spec now; best effort: a bot that cannot be launched is left
    out, and the pool's own start reports why when its game comes (with the retries and the
    scoring that a start always has)."""
    started = []
    for spec in specs:
        try:
            started.append((spec, launch(spec, capture_stderr=capture_stderr)))
        except Exception:  # reported by the game's own start, see above
            continue
    return started


def discard(prestarted: list[tuple[BotSpec, Launched]]) -> None:
    """End the launched processes still in ``prestarted`` (the pool removes those it takes)."""
    while prestarted:
        prestarted.pop()[1].discard()
