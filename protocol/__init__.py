"""The wire protocol between the arena and bots: typed messages and their line format."""
