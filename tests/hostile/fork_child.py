"""Starts a child that sleeps for minutes (same process group), then plays correctly."""

import subprocess

from _base import note, serve, sleeper

child = subprocess.Popen(sleeper())
note(f"child {child.pid}")
serve()
