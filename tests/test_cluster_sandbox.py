"""A bot on a cluster worker without bubblewrap reaches no port of the machine: neither the
scheduler nor the other workers, which would run anything it sends as the worker's user
(root). Real scheduler and worker processes; the worker's PATH has no bwrap, so its bots get
the ``uid`` containment.

Before, that containment kept the host's network: the bot found the scheduler in
/proc/net/tcp and ran ``Client(addr).run(os.system, ...)`` as root on every worker and on the
scheduler.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import test_cluster
from test_cluster import _scheduler, _stop, _wait_for_workers, env_with, run
from test_hostile_bots import CAP, FIRST_BOT, HOSTILE
from test_hostile_no_bwrap import path_without_bwrap
from test_runner import check_complete, write_config

cluster_tag = test_cluster.tag  # a tag for this test's processes: none may be left
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="the arena as root, as CI runs it")]


def test_a_bot_on_a_worker_without_bubblewrap_cannot_reach_the_scheduler(
        tmp_path: Path, cluster_tag: str) -> None:
    tag = cluster_tag
    marker = Path("/tmp") / f"arena-takeover-{uuid.uuid4().hex}"
    scheduler, address = _scheduler(tmp_path, tag)
    procs = [scheduler]
    try:
        env = {**env_with(tag), "PATH": path_without_bwrap(tmp_path / "bin")}
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
             "--no-nanny", "--no-dashboard", "--name", "plain", "--host", "127.0.0.1"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_for_workers(address, 1)
        thief = ['[[bots]]', 'name = "thief"',
                 f'cmd = ["{{python}}", "{HOSTILE / "dask_client.py"}", "thief-{tag}", "2"]',
                 f'env = {{ DASK_SCHEDULER = "{address}", MARKER = "{marker}" }}', ""]
        first = ['[[bots]]', 'name = "first"', f'cmd = ["{{python}}", "{FIRST_BOT}"]', ""]
        head = (f'game = "dobutsu"\ntc = "30+0"\ngames_per_pairing = 2\n[adjudication]\n'
                f"max_plies = {CAP.max_plies}\n")
        config = write_config(tmp_path, head, ["\n".join(thief), "\n".join(first)])
        done = run(config, tmp_path / "out", tag, "--cluster", address)
        assert done.returncode == 0, done.stderr
        assert "bubblewrap (bwrap) is not installed" in done.stderr, done.stderr
        records = check_complete(tmp_path / "out")
        assert len(records) == 2 and all(r.termination.value == "adjudication" for r in records)
        logs = "\n".join(p.read_text() for p in (tmp_path / "out" / "logs").rglob("*.log")
                         if "thief" in str(p))
        assert logs.count("dask-client refused") == 2 and "dask-client ok" not in logs, logs
        assert not marker.exists()
    finally:
        _stop(procs[::-1])
        marker.unlink(missing_ok=True)
