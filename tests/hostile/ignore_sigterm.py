"""Plays correctly but ignores ``quit`` and SIGTERM: only SIGKILL ends it."""

import signal

from _base import serve

signal.signal(signal.SIGTERM, signal.SIG_IGN)
serve(quit_exits=False)
signal.pause()  # stdin closed: keep living until killed
