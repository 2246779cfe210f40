"""A command's process at its start and its end (:mod:`arena.startup`): msgspec without
``typing_extensions``, and an exit without the interpreter's teardown only when nothing is
left that the teardown would have done something visible with. Real child interpreters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROLOGUE = """
import atexit, os, subprocess, sys, threading, time
from arena import startup
startup.pause()

class Witness:
    def __del__(self):  # runs in the interpreter's teardown, not after os._exit
        sys.stdout.write("TEARDOWN\\n")
        sys.stdout.flush()

witness = Witness()
atexit.register(lambda: print("ATEXIT", flush=True))
"""


def leave_after(body: str, *args: str) -> subprocess.CompletedProcess[str]:
    code = PROLOGUE + body + "\nstartup.leave(3)\n"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_nothing_left_exits_without_the_teardown_but_with_atexit() -> None:
    done = leave_after("print('last line')")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "last line\nATEXIT\n", done.stdout  # flushed; no teardown


@pytest.mark.parametrize("what", ["file", "thread", "child"])
def test_anything_left_gets_the_normal_exit(tmp_path: Path, what: str) -> None:
    """A file of its own still open, a thread the exit must wait for, a child process: the
    usual exit, which does what it always did (its teardown runs: the witness says so)."""
    target = tmp_path / "out.txt"
    body = {
        "file": "kept = open(sys.argv[1], 'w')\nkept.write('written')\nkept.flush()",
        # The normal exit waits for a thread that is not a daemon.
        "thread": ("threading.Thread(target=lambda: (time.sleep(0.2), "
                   "open(sys.argv[1], 'w').write('written'))).start()"),
        # Not reaped (nor perhaps ended): not this exit's business to skip anything then.
        "child": ("child = subprocess.Popen([sys.executable, '-c', 'pass'])\n"
                  "open(sys.argv[1], 'w').write('written')"),
    }[what]
    done = leave_after(body, str(target))
    assert done.returncode == 3, done.stderr
    assert "ATEXIT" in done.stdout and "TEARDOWN" in done.stdout, done.stdout
    assert target.read_text() == "written"


def test_without_pause_the_exit_is_the_normal_one() -> None:
    """A process that did not start as the ``arena`` program (a test's) is never cut short."""
    code = PROLOGUE.replace("startup.pause()", "") + "\nstartup.leave(0)\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "TEARDOWN" in done.stdout, done.stdout


def test_msgspec_is_loaded_without_typing_extensions_which_stays_importable() -> None:
    code = """
import sys
from arena import startup
startup.load_msgspec()
assert "msgspec" in sys.modules and "typing_extensions" not in sys.modules
from typing import Annotated
import msgspec

class Shape(msgspec.Struct, forbid_unknown_fields=True):
    size: Annotated[int, msgspec.Meta(gt=0)]
    name: str | None = None

assert msgspec.json.decode(b'{"size": 2}', type=Shape) == Shape(2)
try:
    msgspec.json.decode(b'{"size": 0}', type=Shape)
except msgspec.ValidationError as exc:
    print("REFUSED", exc)
import typing_extensions  # a later library's import works as usual
print("LATER", typing_extensions.__name__)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "REFUSED Expected `int` >= 1 - at `$.size`" in done.stdout, done.stdout
    assert "LATER typing_extensions" in done.stdout, done.stdout
