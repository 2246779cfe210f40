"""What one bot start costs the referee: parent CPU per spawn, in a parent of ~100 MB (the size
of a referee with pandas and a long journal), the arena's spawn against the peer it replaced.

* ``preexec_fn`` (the old way, the peer): ``subprocess.Popen`` with a ``preexec_fn`` that sets
  the rlimits and the death signal in the child; CPython must then fork the whole parent
  (copying its page tables) instead of vfork-ing it.
* ``arena (none|uid|bwrap)``: :func:`referee.process.spawn.launch` as the referee runs it: vfork,
  the setpriv + gate launcher, the cgroup and the rlimits set from the parent.

Runs are interleaved (A, B, A, B...) so that the machine's noise hits both alike; medians and
spreads (min-max) of the parent's CPU time per spawn are printed, and the ratio of the medians.
The child's own start (exec, bwrap's namespaces) runs on the other core and is not counted:
what is measured is what the referee cannot do while it spawns.
"""

from __future__ import annotations

import os
import resource
import signal
import statistics
import subprocess
import time
from collections.abc import Callable

import trio

from referee.botspec import BotSpec, Limits
from referee.process.sandbox import bwrap_path
from referee.process.spawn import launch

BALLAST_MB = 100
ROUNDS = 7
SPAWNS_PER_ROUND = 20
PROGRAM = ["/bin/sleep", "30"]


def _old_preexec(limits: Limits) -> Callable[[], None]:
    """The removed preexec_fn: setrlimit and PR_SET_PDEATHSIG in the forked child."""
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def apply() -> None:
        prctl(1, signal.SIGKILL, 0, 0, 0)
        if limits.memory_mb is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb << 20,) * 2)
        if limits.file_mb is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb << 20,) * 2)

    return apply


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # the parent only, not its children
    return usage.ru_utime + usage.ru_stime


async def _old_round(limits: Limits) -> float:
    spent = 0.0
    procs = []
    for _ in range(SPAWNS_PER_ROUND):
        before = _cpu()
        procs.append(subprocess.Popen(PROGRAM, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, start_new_session=True,
                                      preexec_fn=_old_preexec(limits), close_fds=True))
        spent += _cpu() - before
    for proc in procs:
        proc.kill()
        proc.wait()
    return spent / SPAWNS_PER_ROUND


async def _arena_round(spec: BotSpec) -> float:
    spent = 0.0
    children = []
    for _ in range(SPAWNS_PER_ROUND):
        before = _cpu()
        children.append(launch(spec))
        spent += _cpu() - before
    for child in children:
        child.discard()
    return spent / SPAWNS_PER_ROUND


async def _run() -> None:
    ballast = bytearray(BALLAST_MB << 20)
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1  # resident, as a real referee's heap is
    limits = Limits()
    modes = ["none", "uid"] + (["bwrap"] if bwrap_path() else [])
    if os.geteuid() != 0:
        modes.remove("uid")
    specs = {m: BotSpec(name=f"spawn-{m}", cmd=PROGRAM, sandbox=m,  # type: ignore[arg-type]
                        limits=limits) for m in modes}
    times: dict[str, list[float]] = {"preexec_fn (old)": [], **{f"arena ({m})": [] for m in modes}}
    for _ in range(ROUNDS):
        times["preexec_fn (old)"].append(await _old_round(limits))
        for mode, spec in specs.items():
            times[f"arena ({mode})"].append(await _arena_round(spec))
    peer = statistics.median(times["preexec_fn (old)"])
    print(f"parent CPU per spawn, parent RSS ~{BALLAST_MB} MB, {ROUNDS} interleaved rounds of "
          f"{SPAWNS_PER_ROUND}:")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:18s} median {median * 1000:6.3f} ms  (min {min(values) * 1000:.3f}, "
              f"max {max(values) * 1000:.3f})  ratio to old {median / peer:.2f}x")
    del ballast


def main() -> None:
    started = time.perf_counter()
    trio.run(_run)
    print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
