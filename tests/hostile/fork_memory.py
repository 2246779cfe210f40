"""Spreads memory over forked children: each of 6 children touches 100 MB and sleeps, each
alone under a per-process limit. Reports (stderr) how each child ended, then plays correctly.
Standard library only."""

import os
import time

from _base import TAG, note, serve

children = []
for _ in range(6):
    pid = os.fork()
    if pid == 0:
        try:
            hoard = bytearray(100 << 20)
            for i in range(0, len(hoard), 4096):
                hoard[i] = 1
            time.sleep(3)
        finally:
            os._exit(0)
    children.append(pid)
    note(f"child {pid}")
ends = []
for pid in children:
    _, status = os.waitpid(pid, 0)
    ends.append(f"signal{os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "exit")
note(f"children {','.join(ends)} {TAG}")
serve()
