"""What a submitted version's command may name: its own stored folder, and an interpreter on
PATH; checked at submission, so that such a version is rejected with the path named.

A contained bot sees its own folder and what its command needs besides
(:mod:`referee.process.botview`): the install folder of its program and of each link the
program is reached through, the folder of its script. A command could thus name a league
file (``"/LEAGUE/bots/bob/1/check.log"`` as an argument), or a link its build made (``leak ->
/LEAGUE/league.toml``), and have that file's folder bound for it, with private folders above
made passable. The referee refuses such a bot whenever it starts one; the league refuses the
version sooner, in one line, before ``check-bot`` starts it:

* an argument that names a file or a link (relative to the folder, or absolute), and one that
  names a path inside the league's folder even if it is not there yet (a later version's
  log), must lead inside the version's folder, links followed and ``..`` collapsed;
  arguments that name no file (``--depth``, ``6``, ``/tmp/scratch``) are not paths to it;
* the program is the arena's own Python (``{python}``), or a program of the version's folder
  reached through no link that leaves it, or a program in a folder on PATH (``python3``,
  ``/usr/bin/python3``: the organizer's interpreters) that no link leads into the league's
  folder.

An installed engine, submitted by command with no folder, is the organizer's: its program and
arguments are not held to this.
"""

from __future__ import annotations

import os
from typing import Final

from arena.settings.botcommand import PYTHON_PLACEHOLDER

MAX_HOPS: Final = 40
"""Links followed from the program before giving up (the kernel's own limit)."""


def outside_reach(given: list[str], argv: list[str], folder: str, league_root: str
                  ) -> str | None:
    """Why the command ``given`` (as the version holds it), started as ``argv`` (its program
    found, ``{python}`` replaced: as a night starts it) in ``folder``, reaches outside the
    folder (one line naming the path), or None when it stays inside."""
    home = os.path.realpath(folder)
    league = (os.path.abspath(league_root), os.path.realpath(league_root))
    reason = _program(given[0], argv[0], home, league)
    if reason is not None:
        return reason
    for arg in argv[1:]:
        path = arg if os.path.isabs(arg) else os.path.join(home, arg)
        target = os.path.realpath(path)
        names_file = os.path.isfile(path) or os.path.islink(path)
        in_league = any(_under(p, root) for p in (os.path.normpath(path), target)
                        for root in league)
        if (names_file or in_league) and not _under(target, home):
            return (f"cmd argument {arg!r} leads outside the bot's folder (to {target}): a bot "
                    "may name files of its own folder only")
    return None


def _program(given: str, program: str, home: str, league: tuple[str, str]) -> str | None:
    if PYTHON_PLACEHOLDER in given:
        return None  # the arena's own interpreter
    hops = _hops(program)
    outside = next((hop for hop in hops if not _under(hop, home)), None)
    if outside is None:
        return None
    if _on_path(program) and not any(_under(hop, root) for hop in hops for root in league):
        return None
    if outside == hops[0]:
        return (f"cmd's program {given!r} is {outside}, outside the bot's folder: start a "
                "program of the folder, or an interpreter on PATH")
    return (f"cmd's program {given!r} is a link that leads outside the bot's folder (to "
            f"{outside}): links must stay inside the folder")


def _hops(program: str) -> list[str]:
    """Where ``program`` is, then where each link of its chain leads: each place with the
    folders above it resolved (a link's own location counts, as its folder is bound too),
    the last one the program's real path."""
    hops: list[str] = []
    current = os.path.abspath(program)
    for _ in range(MAX_HOPS):
        hops.append(os.path.join(os.path.realpath(os.path.dirname(current)),
                                 os.path.basename(current)))
        if not os.path.islink(current):
            break
        current = os.path.join(os.path.dirname(current), os.readlink(current))
    hops.append(os.path.realpath(program))
    return hops


def _on_path(program: str) -> bool:
    """Whether ``program`` lies in one of the absolute folders of PATH (as it names them, or
    resolved)."""
    folder = os.path.dirname(os.path.abspath(program))
    entries = [e for e in os.environ.get("PATH", os.defpath).split(os.pathsep)
               if os.path.isabs(e)]
    known = {os.path.abspath(e) for e in entries} | {os.path.realpath(e) for e in entries}
    return folder in known


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
