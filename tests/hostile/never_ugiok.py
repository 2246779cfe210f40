"""Reads every line and never answers ``ugi``: the handshake must stall, not hang forever."""

from _base import serve

serve(on_ugi=lambda: True)
