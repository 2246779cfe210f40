"""Crashes before the handshake: exit status 3 without a word on stdout."""

import os
import sys

print(f"pid {os.getpid()} pgid {os.getpgid(0)}", file=sys.stderr, flush=True)
sys.exit(3)
