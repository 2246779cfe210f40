"""Plays correctly and reports, as ``info string`` with each move, what it can see of its
world: the environment's variable names, whether it leads its own session, its address-space,
CPU and process limits, and its parent-death signal (prctl PR_GET_PDEATHSIG)."""

import ctypes
import os
import resource

from _base import say, serve

libc = ctypes.CDLL(None, use_errno=True)
death = ctypes.c_int(0)
libc.prctl(2, ctypes.byref(death), 0, 0, 0)  # PR_GET_PDEATHSIG
limits = {name: resource.getrlimit(getattr(resource, name))[0]
          for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE")}
report = (f"env={','.join(sorted(os.environ))} session={int(os.getsid(0) == os.getpid())} "
          f"pdeathsig={death.value} " + " ".join(f"{k}={v}" for k, v in limits.items()))


def on_go(legal: list[str], moves: int) -> bool:
    say("info string " + report)
    return False


serve(on_go)
