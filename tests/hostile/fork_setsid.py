"""Starts a child that calls setsid() to leave the bot's process group and session, then
sleeps for minutes; the bot itself plays correctly."""

import subprocess

from _base import note, serve, sleeper

child = subprocess.Popen(sleeper(), start_new_session=True)
note(f"child {child.pid}")
serve()
