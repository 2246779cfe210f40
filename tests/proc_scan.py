"""Find live processes by a tag in their command line: how tests prove no bot outlived its game
or its runner (each test gives its bots a unique tag)."""

from __future__ import annotations

from pathlib import Path


def tagged(tag: str) -> list[str]:
    """Command lines of the live (not zombie) processes whose argv contains ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if tag.encode() in cmdline and state not in ("Z", "X"):
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found
