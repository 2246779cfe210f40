"""A bot that knows the cluster's scheduler (DASK_SCHEDULER, as a bot could read it in
/proc/net/tcp) and, on its move AFTER, tries to take over the cluster: ``Client(address)``, then
``run`` a command on every worker and on the scheduler that would write MARKER (a host path).
Reports one ``name result`` line per attempt to stderr, then plays correctly. Needs the
arena's Python (``{python}``: Dask)."""

import os

from _base import AFTER, note, serve


def take_over(legal, moves_made):
    if moves_made != AFTER:
        return False
    address, marker = os.environ["DASK_SCHEDULER"], os.environ["MARKER"]
    try:
        from distributed import Client

        with Client(address, timeout=5) as client:
            client.run(os.system, f"id > {marker}")
            client.run_on_scheduler(os.system, f"id >> {marker}")
        note("dask-client ok")
    except Exception as exc:  # whatever Dask raises for a scheduler it cannot reach
        note(f"dask-client refused {type(exc).__name__}: {str(exc)[:120]}")
    return False


serve(take_over)
