"""Prints what the referee's process control gave it (environment, limits, session), then echoes.

Each input line comes back as ``echo <line>``; ``quit`` ends it. Standard library only."""

import os
import resource
import sys

print("env " + ",".join(sorted(os.environ)), flush=True)
print(f"cwd {os.getcwd()}", flush=True)
print(f"as {resource.getrlimit(resource.RLIMIT_AS)[0]}", flush=True)
print(f"session {int(os.getsid(0) == os.getpid())}", flush=True)
print("to stderr", file=sys.stderr, flush=True)
for line in sys.stdin:
    if line.strip() == "quit":
        break
    sys.stdout.write("echo " + line)
    sys.stdout.flush()
