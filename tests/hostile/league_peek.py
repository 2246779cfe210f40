"""A league bot that looks for what is not its own: the paths listed in ``targets.txt`` of its
own folder (written there by the test before submission: the league's ``authors.json`` and
``league.toml``, another version's stored code, another version's ``check.log``, a night's
logs; never arguments, which the league refuses when they lead out of the bot's folder).

At start (``check-bot`` runs it then) and again at its first ``go`` (in a night), it opens
each path (a folder: lists it) and writes one line per path to stderr::

    reach start|go PATH ok|ERRNO

where ERRNO is the error's name (``ENOENT``, ``EACCES``). ``targets.txt`` itself is read
first and reported as ``own``: a control that the bot did run and sees its own folder. Then
it plays correctly. Standard library only."""

import errno
import os

from _base import note, serve

TARGETS = "targets.txt"


def attempt(when: str, path: str) -> None:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as f:
                f.read(1)
        result = "ok"
    except OSError as exc:
        result = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
    note(f"reach {when} {path} {result}")


def look(when: str) -> None:
    with open(TARGETS, encoding="utf-8") as f:
        paths = [line.strip() for line in f if line.strip()]
    note(f"reach {when} own ok")
    for path in paths:
        attempt(when, path)


looked = False


def on_go(legal: list[str], moves: int) -> bool:
    global looked
    if not looked:
        looked = True
        look("go")
    return False  # plays its move as _base does


look("start")
serve(on_go=on_go)
