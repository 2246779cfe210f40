"""Tuning a bot's options by games (SPSA), then proving the tune (an SPRT against the start)."""
