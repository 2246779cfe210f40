"""Playing a tournament's games on a Dask cluster: ``arena run --cluster local:N|tcp://HOST:PORT``.

Only the games leave the machine. Everything else (schedule, journal, resume, progress, SPRT
stop, report) stays with the :class:`~arena.run.runner.Tournament` on the submitting machine,
which hands :meth:`DaskExecutor.play_batch` batches of games of one pairing
(:mod:`arena.cluster.batching`): one Dask task per batch
(``arena.cluster.worker.play_batch_on_worker``), whose games come back one by one as they end, as
Dask events on the run's topic. No thread waits for a game or a task: the events and the tasks'
completions arrive in the Dask client's own event loop and are handed to trio's (``run_sync_soon``).

Elastic. The run follows the cluster: the scheduler's ``add-worker``/``remove-worker`` events
tell when the workers change (and only then is the worker list asked for), :attr:`slots` is
the threads of the workers now, and the runner keeps that many batches running (plus a few
queued, so that an adaptive deployment sees work waiting and grows); a worker that joins late
gets a batch as soon as the runner hears of it.

Faults. A worker lost mid-batch (killed, or gone from the scheduler): its batch is cancelled,
the game it was playing is reported (``worker X lost: game Y replayed``) and every game of the
batch that had not come back is submitted again in a new batch; a record arriving for a game
already delivered is dropped, so a game is journaled once. A worker that cannot play a bot
(missing, different file, no interpreter) or fails because of the machine raises
:class:`~arena.cluster.worker.WorkerUnfit` / :class:`~arena.cluster.worker.WorkerFault`; the
batch's remaining games are submitted again, restricted to the other workers, at most
:data:`MAX_ATTEMPTS` times, and never scored. When no worker is left for a bot, the run fails
naming the bot and the workers (:class:`~arena.errors.RunFailure`), and what fixes each
worker's problems (:class:`~arena.cluster.worker.Problem`). A lost scheduler (the
batches' futures cancelled by the disconnection, or no answer from it for
:data:`SCHEDULER_GRACE_S`) is :class:`~arena.errors.ClusterLost`: the run stops with one
message and exit status 3, and the same command (with the new scheduler's address) plays the
rest. The scheduler is asked, not trusted: a scheduler that hangs (stopped, swapped out, its
machine frozen) keeps its connections open, and the client calls it running; so
:meth:`DaskExecutor.watch` sends it a cheap ``echo`` every :data:`PROBE_EVERY_S`. Once it is
lost, nothing more is asked of it (stopping the batches, ending the workers' bots): each of
those would wait for an answer that never comes.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

import msgspec
import trio
from distributed.diagnostics.plugin import WorkerPlugin

from arena.cluster.batching import BatchEvents
from arena.cluster.botfiles import BotFiles, code_hash, describe
from arena.cluster.worker import (
    RUN_SUBDIRS,
    Problem,
    WorkerFault,
    WorkerUnfit,
    check_on_worker,
    end_run,
    play_batch_on_worker,
    stop_batches,
    topic,
)
from arena.errors import ClusterLost, RunFailure, UserError
from arena.say import Say
from arena.settings.config import LoadedConfig
from referee.order import GameOrder
from referee.process.faults import MachineFault
from referee.record import MoveRecord, decode_record

LOCAL_PREFIX: Final = "local:"
MAX_ATTEMPTS: Final = 4
"""Submissions of one batch's games after worker faults before they count as failed."""
MAX_LOSSES: Final = 8
"""Workers a batch may lose (killed, retired) before each further loss counts as a fault."""
CONNECT_TIMEOUT_S: Final = 30
WORKERS_TIMEOUT_S: Final = 120
"""How long to wait for the first worker of an existing scheduler."""
SCHEDULER_GRACE_S: Final = 10.0
"""How long the scheduler may go without answering (or the client without a connection to it)
before the run stops: a short network outage or a scheduler slowed by a loaded machine is
waited out (the Dask client reconnects by itself). The README promises the run stops within
:data:`SCHEDULER_STOP_S`."""
PROBE_EVERY_S: Final = 1.0
"""How often the scheduler is asked whether it is there (one ``echo`` round trip)."""
SCHEDULER_STOP_S: Final = 15
"""What the README promises: a run whose scheduler stops answering has stopped (exit status 3)
within this many seconds (the grace, a probe's period, and ending the run without it)."""
LOST_CLOSE_TIMEOUT_S: Final = 2
"""How long closing the client may take once its scheduler is lost."""
CLOSE_TIMEOUT_S: Final = 10
BATCH_ENV: Final = "ARENA_CLUSTER_BATCH"
"""The most games per Dask task (default :data:`arena.cluster.batching.MAX_BATCH`; 1: one task per
game, as before batches)."""

_moves = msgspec.json.Decoder(list[MoveRecord])


@dataclass
class _Batch:
    """A batch in flight: the trio channel its events arrive on, where it runs now."""

    send: trio.MemorySendChannel[dict[str, Any]]
    worker: str | None = None
    running: str | None = None
    """The game being played now (its ``start`` came, its ``done`` not yet)."""
    future: Any = None


class DaskExecutor:
    """Plays games on a Dask cluster for a :class:`~arena.run.runner.Tournament`."""

    def __init__(self, client: Any, loaded: LoadedConfig, run_dir: Path, warn: Say,
                 *, batch_cap: int | None = None) -> None:
        self.client = client
        self.loaded = loaded
        self.run_dir = run_dir
        self.warn = warn
        self.batch_cap = batch_cap if batch_cap is not None else _batch_env()
        self._bots = {bot.name: bot for bot in loaded.bots}
        described = [describe(bot, ship=bot.ship) for bot in loaded.bots]
        self._files: tuple[BotFiles, ...] = tuple(files for files, _ in described)
        archives = {files.digest: data for files, data in described
                    if files.digest is not None and data is not None}
        # Sent once to the cluster; each worker fetches a copy with its first game.
        self._archives = client.scatter(archives, broadcast=False) if archives else {}
        self._code = code_hash()
        self._unfit: dict[str, dict[str, list[Problem]]] = {}
        """Worker address -> bot name ("" for every bot) -> why it cannot play there."""
        self._delivered: set[str] = set()
        self._token = uuid.uuid4().hex[:12]
        """In every task key and the events' topic: two runs on one scheduler never mix."""
        self._threads = worker_threads(client)
        """The workers of the cluster as last heard, with their threads."""
        self._batches: dict[str, _Batch] = {}
        self._serial = 0
        self._trio: trio.lowlevel.TrioToken | None = None
        self._changed: Callable[[], None] = lambda: None
        self._notes: set[str] = set()
        self._gone = False
        """The scheduler is lost: nothing more is asked of it."""
        self._stopped = False

    # ------------------------------------------------------------------ the cluster's size
    @property
    def slots(self) -> int:
        """Games the cluster plays at once now: the threads of its workers fit to play."""
        return sum(n for w, n in self._threads.items() if not self._unfit.get(w, {}).get(""))

    def workers(self) -> list[str]:
        return list(self._threads)

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
                raise _refusal(f"bot {bot!r}", {
                    w: self._unfit[w].get("") or self._unfit[w][bot] for w in workers})

    # ------------------------------------------------------------------ the run
    def attach(self, changed: Callable[[], None]) -> None:
        """Start hearing from the cluster (called in trio's thread before the first batch):
        ``changed`` is called whenever the workers change."""
        self._trio = trio.lowlevel.current_trio_token()
        self._changed = changed
        self.client.subscribe_topic(topic(self._token), self._on_event)
        self.client.subscribe_topic("all", self._on_scheduler_event)
        # Anything that changed between opening the cluster and now.
        self._threads = worker_threads(self.client)

    async def watch(self) -> str:
        """Follow the scheduler for the whole run (a task of the runner's); returns why the run
        must stop: the client closed, or no answer to :meth:`_probe` for
        :data:`SCHEDULER_GRACE_S` (each probe waits at most until then)."""
        answered = time.monotonic()
        while True:
            await trio.sleep(PROBE_EVERY_S)
            if self.client.status in ("closed", "closing"):
                return self._lost()
            left = answered + SCHEDULER_GRACE_S - time.monotonic()
            if self.client.status in ("running", "newly-created") and left > 0 and \
                    await self._probe(left):
                answered = time.monotonic()
            elif time.monotonic() - answered >= SCHEDULER_GRACE_S:
                return self._lost()

    async def _probe(self, timeout: float) -> bool:
        """Does the scheduler answer an ``echo`` within ``timeout`` seconds? Asked in a thread
        (the client's calls block), given up on at the timeout whatever that thread does; the
        call carries the same timeout, so the thread ends too."""
        def ask() -> bool:
            try:
                self.client.sync(self.client.scheduler.echo, data=b"",
                                 callback_timeout=timeout)
            except Exception:  # a timeout, a closed connection: no answer
                return False
            return True

        with trio.move_on_after(timeout + 0.5):
            return await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
        return False

    def _lost(self) -> str:
        """The one message of a run that lost its scheduler, however it was noticed; the Dask
        client's own log lines about it (reconnecting, giving up) are silenced from now on,
        and nothing more is asked of the scheduler."""
        self._gone = True
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        return (f"lost the cluster's scheduler {self.client.scheduler.address}: stopping; the "
                "games that finished are in the journal. Start a scheduler and workers, then "
                "run the same command (with --cluster naming the new scheduler) to play the "
                "rest")

    @property
    def lost(self) -> bool:
        """The scheduler is lost (closing the client need not wait for it)."""
        return self._gone

    def stop(self) -> None:
        """No more games: the running batches end after their running game (best effort)."""
        if self._stopped or self._gone or self.client.status != "running":
            return
        self._stopped = True
        with contextlib.suppress(Exception):
            self.client.run(stop_batches, self._token, on_error="ignore")

    def close(self) -> None:
        """End the bots the workers keep for this run (a worker that is gone has no bots)."""
        if self._gone or self.client.status != "running":
            return
        with contextlib.suppress(Exception):
            self.client.unsubscribe_topic(topic(self._token))
            self.client.unsubscribe_topic("all")
        with contextlib.suppress(Exception):
            self.client.run(end_run, self._token, wait=True)

    async def play_batch(self, orders: list[GameOrder], events: BatchEvents) -> None:
        """Play ``orders`` on some worker, telling ``events`` each game as it goes; returns
        when each game has been delivered or failed, or the run stops scheduling. Raises
        :class:`RunFailure` when no worker is left that can play its bots,
        :class:`ClusterLost` without a scheduler, and :class:`MachineFault` when the batch
        failed on :data:`MAX_ATTEMPTS` workers (not the bots' fault: a resume plays it)."""
        remaining = {order.id: order for order in orders if order.id not in self._delivered}
        avoid: set[str] = set()
        faults: list[str] = []
        attempt = losses = 0
        while remaining and not self._stopped:
            attempt += 1
            if attempt > MAX_ATTEMPTS:
                raise MachineFault(
                    f"games {', '.join(remaining)}: no worker played them in {MAX_ATTEMPTS} "
                    "attempts" + (": " + "; ".join(faults[-2:]) if faults else ""))
            if self.client.status != "running":
                raise ClusterLost(self._lost())
            allowed = self._allowed(list(remaining.values()), avoid)
            self._serial += 1
            name = f"{self._serial}"
            send, receive = trio.open_memory_channel[dict[str, Any]](math.inf)
            batch = self._batches[name] = _Batch(send)
            future = batch.future = self.client.submit(
                play_batch_on_worker, self._token, name, list(remaining.values()), self._files,
                self._code, self._bots, self._archives,
                key=f"arena:{self._token}:batch:{name}", pure=False,
                # Loose: if every allowed worker has gone, the task may run elsewhere rather
                # than wait forever; an unfit worker then refuses it and it comes back here.
                workers=allowed, allow_other_workers=allowed is not None,
            )  # fmt: skip
            token = self._trio
            assert token is not None, "attach() runs before play_batch()"
            future.add_done_callback(partial(_ended, token, self._route, name))
            try:
                with receive:  # closed without a checkpoint: no event comes in between
                    outcome = await self._follow(batch, receive, remaining, events)
                    self._batches.pop(name, None)
            except trio.Cancelled:
                if not self._gone:  # a lost scheduler cancels nothing, and never answers
                    with trio.CancelScope(shield=True), trio.move_on_after(5):
                        await trio.to_thread.run_sync(future.cancel, abandon_on_cancel=True)
                raise
            finally:
                self._batches.pop(name, None)
                with contextlib.suppress(Exception):
                    future.release()
            if isinstance(outcome, WorkerUnfit):
                self._note_unfit(outcome)
                attempt -= 1  # not a fault: the worker is now known and avoided
                if self._unfit_everywhere(list(remaining.values())):
                    raise self._no_worker(list(remaining.values()))
            elif isinstance(outcome, WorkerFault):
                self.warn(f"{outcome}; playing it again on another worker")
                avoid.add(outcome.worker)
                faults.append(str(outcome))
            elif isinstance(outcome, str):  # lost with its worker: played again elsewhere
                losses += 1
                if losses <= MAX_LOSSES:  # a cluster that shrinks is no fault of the games,
                    attempt -= 1  # but games that take every worker they go to down are

    async def _follow(self, batch: _Batch, receive: trio.MemoryReceiveChannel[dict[str, Any]],
                      remaining: dict[str, GameOrder], events: BatchEvents
                      ) -> WorkerUnfit | WorkerFault | str | None:
        """Hand a batch's events to the runner until its task ends; what ended it."""
        async for msg in receive:
            kind = msg["k"]
            if kind == "done":
                game_id = msg["g"]
                batch.worker, batch.running = msg["w"], None
                if game_id in self._delivered or game_id not in remaining:
                    continue  # never two records for one game
                record = decode_record(msg["r"])
                self._delivered.add(game_id)
                del remaining[game_id]
                self._write_files(msg.get("f") or {})
                events.finished(record)
            elif kind == "start":
                batch.worker, batch.running = msg["w"], msg["g"]
                if msg["g"] in remaining:
                    events.started(remaining[msg["g"]], msg["w"])
            elif kind == "begin":
                batch.worker = msg["w"]
            elif kind == "moves":
                if msg["g"] == batch.running:
                    events.moved(msg["g"], _moves.decode(msg["m"]))
            elif kind == "error":
                batch.running = None
                if remaining.pop(msg["g"], None) is not None:
                    events.failed(msg["g"], msg["t"])
            elif kind == "lost":
                # Played in order: the game it was playing is the first not back, if it had
                # begun the batch (an event came from there).
                running = batch.running or (next(iter(remaining), None)
                                            if batch.worker == msg["w"] else None)
                if running in remaining:
                    events.replayed(running, f"worker {msg['w']} lost: game {running} replayed")
                with contextlib.suppress(Exception):
                    batch.future.cancel()
                return "lost"
            elif kind == "end":
                return await self._ended(batch, remaining, events)
        return None

    async def _ended(self, batch: _Batch, remaining: dict[str, GameOrder],
                     events: BatchEvents) -> WorkerUnfit | WorkerFault | str | None:
        """A batch's task ended: how (its games not delivered are played again, if any)."""
        future = batch.future
        if future.status == "finished" or self._stopped:
            return None
        if future.status == "cancelled" or self.client.status != "running":
            raise ClusterLost(self._lost())
        try:
            error = await trio.to_thread.run_sync(future.exception, CLOSE_TIMEOUT_S)
        except Exception:  # the scheduler went away meanwhile
            raise ClusterLost(self._lost()) from None
        if isinstance(error, WorkerUnfit | WorkerFault):
            return error
        if type(error).__name__ == "KilledWorker":  # died with it, allowed-failures times
            if batch.running in remaining:
                events.replayed(batch.running, f"worker {batch.worker} lost: game "
                                f"{batch.running} replayed")
            return "lost"
        raise MachineFault(f"a batch failed on worker {batch.worker}: "
                           f"{type(error).__name__}: {error}")

    # ------------------------------------------------------------------ events (Dask's loop)
    def _on_event(self, event: tuple[float, dict[str, Any]]) -> None:
        """A game event from a worker, in the Dask client's event loop: to trio's."""
        if self._trio is not None:
            _soon(self._trio, self._route, event[1])

    async def _on_scheduler_event(self, event: tuple[float, dict[str, Any]]) -> None:
        """A worker joined or left (the scheduler's ``all`` topic): the worker list is asked
        for now, and only now."""
        action = event[1].get("action") if isinstance(event[1], dict) else None
        if action not in ("add-worker", "remove-worker") or self._trio is None:
            return
        if action == "remove-worker":
            _soon(self._trio, self._worker_gone,
                  (event[1].get("worker"), set(event[1].get("processing-tasks") or ())))
        with contextlib.suppress(Exception):
            identity = await self.client.scheduler.identity(n_workers=-1)
            threads = {a: int(w.get("nthreads", 1)) for a, w in identity["workers"].items()}
            _soon(self._trio, self._set_members, threads)

    def _route(self, msg: dict[str, Any]) -> None:
        """Hand an event to its batch (in trio's thread); a note is told once per worker."""
        if msg["k"] == "note":
            if msg["t"] not in self._notes:  # the same line from every worker: said once
                self._notes.add(msg["t"])
                print(f"arena: worker {msg['w']}: {msg['t']}", file=sys.stderr, flush=True)
            return
        batch = self._batches.get(msg.get("b", ""))
        if batch is not None:  # else a batch given up already (its games went elsewhere)
            _tell(batch, msg)

    def _worker_gone(self, gone: tuple[str | None, set[str]]) -> None:
        """A worker left the cluster: the batches it was running (or had queued) are lost."""
        address, keys = gone
        for batch in list(self._batches.values()):
            if address and (batch.worker == address or batch.future.key in keys):
                _tell(batch, {"k": "lost", "w": address})

    def _set_members(self, threads: dict[str, int]) -> None:
        self._threads = threads
        self._changed()

    # ------------------------------------------------------------------ where games may go
    def _allowed(self, orders: list[GameOrder], avoid: set[str]) -> list[str] | None:
        """The workers these games may go to; None (any) while no worker is known to be bad."""
        if not avoid and not self._unfit:
            return None
        names = self._names(orders)
        good = [w for w in self.workers() if w not in avoid
                and not any(self._unfit.get(w, {}).get(n) for n in names)]
        if good:
            return good
        if self._unfit_everywhere(orders):
            raise self._no_worker(orders)
        return None  # every worker failed these games once: any may try again

    @staticmethod
    def _names(orders: list[GameOrder]) -> set[str]:
        return {""} | {bot.name for order in orders for bot in order.bots}

    def _unfit_everywhere(self, orders: list[GameOrder]) -> bool:
        names = self._names(orders)
        workers = self.workers()
        return bool(workers) and all(
            any(self._unfit.get(w, {}).get(n) for n in names) for w in workers)

    def _no_worker(self, orders: list[GameOrder]) -> RunFailure:
        names = self._names(orders)
        bots = ", ".join(sorted(names - {""}))
        return _refusal(f"games {orders[0].id}... ({bots})", {
            w: [p for n in names for p in self._unfit.get(w, {}).get(n, [])]
            for w in self.workers()})

    def _note_unfit(self, exc: WorkerUnfit) -> None:
        """Keep what a worker cannot play; a worker fit for every bot leaves no entry, so that
        while none is unfit a game goes anywhere without asking for the worker list."""
        for bot, problems in exc.problems.items():
            known = self._unfit.setdefault(exc.worker, {}) if problems else {}
            if problems and bot not in known:
                known[bot] = problems
                who = "every bot" if not bot else f"bot {bot!r}"
                self.warn(f"worker {exc.worker} refused for {who}: "
                          + "; ".join(p.text for p in problems))

    def _write_files(self, files: dict[str, bytes]) -> None:
        """A game's logs and transcripts, where a local run would have written them."""
        if not files:
            return
        root = self.run_dir.resolve()
        for relative, data in files.items():
            path = (root / relative).resolve()
            if not path.is_relative_to(root) or relative.split("/")[0] not in RUN_SUBDIRS:
                continue  # a path from a worker never lands elsewhere in the run directory
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "ab") as handle:
                handle.write(data)


def _refusal(what: str, problems: dict[str, list[Problem]]) -> RunFailure:
    """No worker can play ``what``: each worker with its problems, then what fixes them (each
    fix once: a bot file missing everywhere is one line to act on)."""
    lines = "\n  ".join(f"{worker}: {'; '.join(p.text for p in found)}"
                        for worker, found in problems.items())
    fixes = "\n".join(dict.fromkeys(p.fix for found in problems.values() for p in found))
    return RunFailure(f"no worker of the cluster can play {what}:\n  {lines}\n{fixes}")


def _tell(batch: _Batch, msg: dict[str, Any]) -> None:
    """Hand ``msg`` to a batch; one that is ending (its channel closed) needs it no more."""
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        batch.send.send_nowait(msg)


def _ended(token: trio.lowlevel.TrioToken, route: Callable[[Any], None], name: str,
           _future: object) -> None:
    """A batch's task ended (called in Dask's callback thread): tell its batch in trio's."""
    _soon(token, route, {"k": "end", "b": name})


def _soon(token: trio.lowlevel.TrioToken, fn: Callable[[Any], None], arg: Any) -> None:
    """Call ``fn(arg)`` in trio's thread (from the Dask client's); a finished run drops it."""
    with contextlib.suppress(trio.RunFinishedError):
        token.run_sync_soon(fn, arg)


def _batch_env() -> int | None:
    text = os.environ.get(BATCH_ENV, "")
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"{BATCH_ENV}={text!r}: expected a positive number of games")
    return int(text)


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
def open_cluster(address: str, loaded: LoadedConfig, run_dir: Path,
                 warn: Say) -> Iterator[DaskExecutor]:
    """Connect to (or, for ``local:N``, start) a cluster; everything is closed on exit. A
    ``local:N`` worker plays one game at a time."""
    from distributed import Client, LocalCluster

    # The client logs every failed reconnection with a traceback; what a lost scheduler means
    # for the run is said once, by the run (DaskExecutor.watch).
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    executor: DaskExecutor | None = None  # read when the client is closed: lost or not
    with contextlib.ExitStack() as stack:
        if address.startswith(LOCAL_PREFIX):
            count = _local_count(address)
            # ":0": the scheduler's HTTP server takes a free port (8787 may be taken).
            cluster = stack.enter_context(LocalCluster(
                n_workers=count, threads_per_worker=1, processes=True,
                dashboard_address=":0", memory_limit=0, silence_logs=logging.ERROR,
            ))  # fmt: skip
            client = stack.enter_context(Client(cluster))
            client.register_plugin(_OwnProcessGroup())
        elif address.startswith(("tcp://", "tls://", "ucx://", "ws://", "wss://", "inproc://")):
            try:
                client = Client(address, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError) as exc:
                raise UserError(f"--cluster {address}: cannot reach the scheduler: {exc}"
                                ) from None
            stack.callback(lambda: _close_client(client, executor))
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
        print(f"arena: cluster {client.scheduler.address}: {len(executor.workers())} "
              f"workers, {executor.slots} threads", flush=True)
        yield executor


def _close_client(client: Any, executor: DaskExecutor | None) -> None:
    """Close the client, without waiting long for a scheduler that is gone."""
    lost = executor is not None and executor.lost
    with contextlib.suppress(Exception):
        client.close(timeout=LOST_CLOSE_TIMEOUT_S if lost else CLOSE_TIMEOUT_S)


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
