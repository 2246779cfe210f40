"""Playing a tournament's games on a Dask cluster: ``arena run --cluster local:N|tcp://HOST:PORT``.

Only the games leave the machine. Everything else (schedule, journal, resume, progress, SPRT
stop, report) stays with the :class:`~arena.runner.Tournament` on the submitting machine,
which calls :meth:`DaskExecutor.play` from as many of its trio workers as the cluster has
threads: one Dask task per game (``arena.cluster.worker.play_on_worker``), so the tasks in
flight never exceed the free slots, and an SPRT stop or a Ctrl-C acts as in a local run.

Faults. A worker that dies mid-game: Dask itself runs the task again on another worker (up to
``distributed.scheduler.allowed-failures`` deaths), and since each game is one future whose
result is read once, a replayed game is journaled once. A worker that cannot play a bot
(missing, different file, no interpreter) or fails because of the machine raises
:class:`~arena.cluster.worker.WorkerUnfit` / :class:`~arena.cluster.worker.WorkerFault`; the
game is submitted again, restricted to the other workers, at most :data:`MAX_ATTEMPTS` times,
and never scored. When no worker is left for a bot, the run fails naming the bot and the
workers (:class:`~arena.errors.RunFailure`).
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import trio
from distributed.diagnostics.plugin import WorkerPlugin

from arena.cluster.botfiles import BotFiles, code_hash, describe
from arena.cluster.loop import close_loops
from arena.cluster.worker import (
    RUN_SUBDIRS,
    WorkerFault,
    WorkerResult,
    WorkerUnfit,
    check_on_worker,
    play_on_worker,
)
from arena.config import LoadedConfig
from arena.errors import RunFailure, UserError
from referee.order import GameOrder
from referee.process.faults import MachineFault
from referee.record import GameRecord

LOCAL_PREFIX: Final = "local:"
MAX_ATTEMPTS: Final = 4
"""Submissions of one game after worker faults before it counts as failed (replayed on resume)."""
CONNECT_TIMEOUT_S: Final = 30
WORKERS_TIMEOUT_S: Final = 120
"""How long to wait for the first worker of an existing scheduler."""

Warn = Callable[[str], None]


class DaskExecutor:
    """Plays games on a Dask cluster for a :class:`~arena.runner.Tournament`."""

    def __init__(self, client: Any, loaded: LoadedConfig, run_dir: Path, warn: Warn) -> None:
        self.client = client
        self.loaded = loaded
        self.run_dir = run_dir
        self.warn = warn
        self._bots = {bot.name: bot for bot in loaded.bots}
        described = [describe(bot, ship=bot.ship) for bot in loaded.bots]
        self._files: tuple[BotFiles, ...] = tuple(files for files, _ in described)
        archives = {files.archive_sha256: data for files, data in described
                    if files.archive_sha256 is not None and data is not None}
        # Sent once to the cluster; each worker fetches a copy with its first game.
        self._archives = client.scatter(archives, broadcast=False) if archives else {}
        self._code = code_hash()
        self._unfit: dict[str, dict[str, list[str]]] = {}
        """Worker address -> bot name ("" for every bot) -> why it cannot play there."""
        self._delivered: set[str] = set()
        self._token = uuid.uuid4().hex[:12]
        """In every task key: two runs on one scheduler never share a task."""
        self.slots = self.threads()
        self._limiter = trio.CapacityLimiter(max(1, self.slots) + 4)

    def check_workers(self) -> None:
        """Check every bot on every worker now (workers that join later check before their
        first game); refuse the run if some bot has no worker that can play it."""
        workers = self.workers()
        futures = [
            self.client.submit(check_on_worker, self._files, self._code, self._bots,
                               self._archives, key=f"arena:{self._token}:check:{i}", pure=False,
                               workers=[worker], allow_other_workers=False)
            for i, worker in enumerate(workers)
        ]  # fmt: skip
        for address, problems in self.client.gather(futures):
            self._note_unfit(WorkerUnfit(address, problems))
        for bot in self._bots:
            fit = [w for w in workers if not any(
                self._unfit.get(w, {}).get(n) for n in ("", bot))]
            if not fit:
                lines = "\n  ".join(
                    f"{w}: {'; '.join(self._unfit[w].get('') or self._unfit[w][bot])}"
                    for w in workers)
                raise RunFailure(
                    f"no worker of the cluster can play bot {bot!r}:\n  {lines}\n"
                    "install the same bot files on the workers, or set ship = true for the bot")

    def close(self) -> None:
        """End the bots the workers keep for this run (a worker that is gone has no bots)."""
        with contextlib.suppress(Exception):
            self.client.run(close_loops, self._token, wait=True)

    def threads(self) -> int:
        return sum(worker_threads(self.client).values())

    def workers(self) -> list[str]:
        return list(worker_threads(self.client))

    async def play(self, order: GameOrder) -> GameRecord:
        """Play one game on some worker (its order sent as it is); raises like a local game
        would (not journaled) or :class:`RunFailure` when no worker is left that can play its
        bots."""
        avoid: set[str] = set()
        faults: list[str] = []
        for attempt in range(1, MAX_ATTEMPTS + 1):
            allowed = await self._allowed(order, avoid)
            future = self.client.submit(
                play_on_worker, self._token, order, self._files, self._code, self._bots,
                self._archives,
                key=f"arena:{self._token}:{order.id}:{attempt}", pure=False,
                # Loose: if every allowed worker has gone, the task may run elsewhere rather
                # than wait forever; an unfit worker then refuses it and it comes back here.
                workers=allowed, allow_other_workers=allowed is not None,
            )  # fmt: skip
            try:
                outcome: WorkerResult = await trio.to_thread.run_sync(
                    future.result, abandon_on_cancel=True, limiter=self._limiter)
            except trio.Cancelled:
                with trio.CancelScope(shield=True), trio.move_on_after(5):
                    await trio.to_thread.run_sync(future.cancel, abandon_on_cancel=True)
                raise
            except WorkerUnfit as exc:
                self._note_unfit(exc)
                continue
            except WorkerFault as exc:
                self.warn(f"{exc}; playing it again on another worker")
                avoid.add(exc.worker)
                faults.append(str(exc))
                continue
            finally:
                future.release()
            if order.id in self._delivered:  # never two records for one game
                raise RuntimeError(f"game {order.id} came back twice from the cluster")
            self._delivered.add(order.id)
            self._write_files(outcome.files)
            return outcome.record
        # Not the bots' fault: the runner tries again later, then stops the run (status 3).
        raise MachineFault(f"game {order.id}: no worker played it in {MAX_ATTEMPTS} attempts"
                           + (": " + "; ".join(faults[-2:]) if faults else ""))

    async def _allowed(self, order: GameOrder, avoid: set[str]) -> list[str] | None:
        """The workers this game may go to; None (any) while no worker is known to be bad."""
        if not avoid and not self._unfit:
            return None
        workers = await trio.to_thread.run_sync(self.workers)
        p1, p2 = order.bots
        names = ("", p1.name, p2.name)
        good = [w for w in workers if w not in avoid
                and not any(self._unfit.get(w, {}).get(n) for n in names)]
        if good:
            return good
        unfit = {w: texts for w in workers
                 for texts in [[t for n in names for t in self._unfit.get(w, {}).get(n, [])]]
                 if texts}
        if unfit and len(unfit) == len(workers):
            lines = "\n  ".join(f"{w}: {'; '.join(texts)}" for w, texts in unfit.items())
            bots = ", ".join(sorted({p1.name, p2.name}))
            raise RunFailure(
                f"no worker of the cluster can play game {order.id} ({bots}):\n  {lines}\n"
                "install the same bot files on the workers, or set ship = true for the bot")
        raise RuntimeError(f"game {order.id}: every worker failed it ({', '.join(sorted(avoid))})")

    def _note_unfit(self, exc: WorkerUnfit) -> None:
        """Keep what a worker cannot play; a worker fit for every bot leaves no entry, so that
        while none is unfit a game goes anywhere without asking for the worker list."""
        for bot, texts in exc.problems.items():
            known = self._unfit.setdefault(exc.worker, {}) if texts else {}
            if texts and bot not in known:
                known[bot] = texts
                who = "every bot" if not bot else f"bot {bot!r}"
                self.warn(f"worker {exc.worker} refused for {who}: {'; '.join(texts)}")

    def _write_files(self, files: dict[str, bytes]) -> None:
        """A game's logs and transcripts, where a local run would have written them."""
        root = self.run_dir.resolve()
        for relative, data in files.items():
            path = (root / relative).resolve()
            if not path.is_relative_to(root) or relative.split("/")[0] not in RUN_SUBDIRS:
                continue  # a path from a worker never lands elsewhere in the run directory
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "ab") as handle:
                handle.write(data)


def worker_threads(client: Any) -> dict[str, int]:
    """Every worker of the cluster now, by address, with its threads, asked of the scheduler.

    Not ``client.scheduler_info()``: it returns the client's cached copy of the scheduler's
    identity, which the client's own refresh (every 2 s) replaces with a copy that lists no
    worker (distributed 2026.8), so under load the list came back empty at random and a game
    failed with "every worker failed it"."""
    identity = client.sync(client.scheduler.identity, n_workers=-1)
    return {address: int(worker.get("nthreads", 1))
            for address, worker in identity["workers"].items()}


@contextlib.contextmanager
def open_cluster(address: str, loaded: LoadedConfig, run_dir: Path, warn: Warn
                 ) -> Iterator[DaskExecutor]:
    """Connect to (or, for ``local:N``, start) a cluster; everything is closed on exit."""
    from distributed import Client, LocalCluster
    with contextlib.ExitStack() as stack:
        if address.startswith(LOCAL_PREFIX):
            count = _local_count(address)
            # ":0": the scheduler's HTTP server takes a free port (8787 may be taken).
            cluster = stack.enter_context(LocalCluster(
                n_workers=count, threads_per_worker=1, processes=True, dashboard_address=":0",
                memory_limit=0, silence_logs=logging.ERROR,
            ))  # fmt: skip
            client = stack.enter_context(Client(cluster))
            client.register_plugin(_OwnProcessGroup())
        elif address.startswith(("tcp://", "tls://", "ucx://", "ws://", "wss://", "inproc://")):
            try:
                client = stack.enter_context(Client(address, timeout=CONNECT_TIMEOUT_S))
            except (OSError, TimeoutError) as exc:
                raise UserError(f"--cluster {address}: cannot reach the scheduler: {exc}"
                                ) from None
            try:
                client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
            except TimeoutError:
                raise UserError(f"--cluster {address}: no worker joined the scheduler in "
                                f"{WORKERS_TIMEOUT_S} s (start one: dask worker {address})"
                                ) from None
        else:
            raise UserError(f"--cluster {address!r}: expected local:N or tcp://HOST:PORT")
        executor = DaskExecutor(client, loaded, run_dir, warn)
        stack.callback(executor.close)
        executor.check_workers()
        print(f"arena: cluster {client.scheduler.address}: {len(executor.workers())} workers, "
              f"{executor.slots} threads", flush=True)
        yield executor


def _local_count(address: str) -> int:
    text = address.removeprefix(LOCAL_PREFIX)
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"--cluster {address!r}: N in local:N must be a positive number")
    return int(text)


class _OwnProcessGroup(WorkerPlugin):
    """A worker plugin: a LocalCluster's worker processes leave the terminal's process group,
    so that Ctrl-C reaches only ``arena run`` (which lets the running games finish) and not
    the workers playing them."""

    name = "arena-own-process-group"

    def setup(self, worker: Any) -> None:
        import os

        with contextlib.suppress(OSError):
            os.setpgid(0, 0)

