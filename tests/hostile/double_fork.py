"""Daemonises a sleeper the classic way (fork, setsid, fork, first child exits), so that it is
reparented to init and nobody's descendant any more; then plays correctly. Only a PID
namespace (sandbox = "bwrap") is certain to catch it."""

import os
import sys

from _base import note, serve, sleeper

pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        argv = sleeper()
        os.execv(argv[0], argv)
    os._exit(0)
os.waitpid(pid, 0)
note("daemonised")
sys.stderr.flush()
serve()
