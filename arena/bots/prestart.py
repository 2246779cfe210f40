"""The first games' bots, launched before the runner imports trio.

``arena run`` needs a fifth of a second to import trio and the referee here, and an engine
as long again to load its tables (Fairy-Stockfish: 0.15 s before it reads a line). Launched
first, a bot loads while the runner does, and the first ``go`` goes out that much sooner. The
processes are launched exactly as the pool would launch them (:func:`referee.process.spawn.launch`:
same containment and limits) and handed to the :class:`arena.bots.pool.BotPool`, which ends the
ones no game took. This module imports nothing that imports trio.

The launches themselves run in a thread of their own (:func:`prestart_soon`) while the main
thread imports trio and the referee: a launch is mostly waiting (the cgroup's directories, the
``vfork`` until the child has ``exec``'d, which on a busy machine waits for a core), and done
in line it held the runner's start back by those waits (30-44 ms for four engines at load 10,
more when busier). The games begin once its launches are done (:meth:`EarlyBots.join`); the
thread itself stays until the run is over, as the parent of the processes it started
(:class:`EarlyBots`).

Before the first launch, the sandbox is tried once (``bwrap /bin/true``: 50-100 ms on a busy
machine). :func:`try_sandbox_early` starts that trial as soon as the config is read, so that it
runs while this process goes on loading rather than ahead of the first bot.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from arena.formats.schedule import ScheduledGame
from referee.botspec import BotSpec
from referee.process.sandbox import bwrap_problem, bwrap_trial_pending, start_bwrap_trial
from referee.process.spawn import Launched, launch

LAUNCH_SWITCH_S: Final = 0.0005
"""The interpreter's thread switch interval while the launching thread works (its default is
5 ms). A launch hands the interpreter lock back and forth a dozen times (the cgroup's files,
the ``vfork``, the limits), and while the main thread imports trio, each time the launching
thread waited up to the whole default interval for it: four engines took 70-170 ms to
launch where they take 40-65 ms so. Set back once the launches are done."""


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


class EarlyBots:
    """The first bots, launched by a thread of their own (:func:`prestart_soon`).

    The thread lives until :meth:`discard`, well after its launches: the kernel sends a
    bot's death signal (``setpriv --pdeathsig``, which makes a bot die with the runner) when
    the *thread* that started it ends, not the process. So it waits, idle, until the run is
    over and every process it started has been ended (the pool ends those it took before
    the driver calls :meth:`discard`)."""

    def __init__(self, specs: Sequence[BotSpec], *, capture_stderr: bool) -> None:
        self.launched: list[tuple[BotSpec, Launched]] = []
        """Filled by the thread; read it only after :meth:`join`."""
        self._launched = threading.Event()
        self._over = threading.Event()
        self._thread: threading.Thread | None = None

        switch = sys.getswitchinterval()

        def launch_and_stay() -> None:
            try:
                self.launched.extend(prestart(specs, capture_stderr=capture_stderr))
            finally:
                sys.setswitchinterval(switch)
                self._launched.set()
            self._over.wait()  # the bots' parent thread: see the class's doc

        if specs:
            thread = threading.Thread(target=launch_and_stay, name="arena prestart")
            sys.setswitchinterval(min(switch, LAUNCH_SWITCH_S))
            try:
                thread.start()
            except RuntimeError:  # no thread to be had (a pids limit, as after a fork bomb):
                sys.setswitchinterval(switch)
                self._launched.set()  # the games launch their bots, and report the fault
            else:
                self._thread = thread
        else:
            self._launched.set()

    def join(self) -> list[tuple[BotSpec, Launched]]:
        """Wait for the launches to be done; the launched processes (the pool takes them)."""
        self._launched.wait()
        return self.launched

    def discard(self) -> None:
        """At the end of the run: wait for the launches, end the processes no one took (see
        :func:`discard`), then let the thread end (every process it started is gone)."""
        discard(self.join())
        self._over.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def prestart_soon(specs: Sequence[BotSpec], *, capture_stderr: bool) -> EarlyBots:
    """Launch one process per spec in a thread (:func:`prestart` there), returning at once."""
    return EarlyBots(specs, capture_stderr=capture_stderr)


def discard(prestarted: list[tuple[BotSpec, Launched]]) -> None:
    """End the launched processes still in ``prestarted`` (the pool removes those it takes)."""
    while prestarted:
        prestarted.pop()[1].discard()
