"""Find live processes by a tag in their command line: how tests prove no bot outlived its game
or its runner (each test gives its bots a unique tag). The scan itself is the referee's own
(:func:`referee.process.proctree.tagged`)."""

from __future__ import annotations

from referee.process import proctree


def tagged(tag: str) -> list[str]:
    """Command lines of the live (not zombie) processes whose argv contains ``tag``."""
    return list(proctree.tagged(tag).values())
