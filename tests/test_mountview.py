"""The ``uid`` containment's mount script (:mod:`referee.process.mountview`), run for real as
root in a mount namespace: the folders it binds under a private folder, and the byte it writes
on the inherited pipe once every mount is made.

A checkout in a private folder (a home that is 0700) puts several of a bot's folders under one
cover: the script then opens one descriptor per folder, and none of them may be the pipe it
reports on (it once was: every game of such a checkout failed as a machine fault).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.process.botview import BotView
from referee.process.errors import BotStartError
from referee.process.mountview import SHELL_FDS, mount_namespace_argv

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounts need root")

AS_FD = ("import os, sys; os.dup2(int(sys.argv[1]), int(sys.argv[2])); "
         "os.execv(sys.argv[3], sys.argv[3:])")
"""Runs the rest of its argv with the pipe given first on the descriptor given second."""


def private_tree(root: Path, count: int) -> BotView:
    """``count`` bot folders inside a 0700 folder, as a private checkout holds them."""
    private = root / "home"
    private.mkdir(mode=0o700)
    binds = []
    for i in range(count):
        folder = private / "project" / f"part{i}"
        folder.mkdir(parents=True)
        (folder / "mark").write_text(f"part {i}\n")
        binds.append(str(folder))
    return BotView(folder=binds[0], cwd=binds[0], binds=binds, covers=[str(private)])


@pytest.mark.parametrize("info_fd", [3, 6, 9])
def test_the_pipe_the_script_reports_on_is_never_one_it_opens_a_folder_on(
        tmp_path: Path, info_fd: int) -> None:
    view = private_tree(tmp_path, count=len(SHELL_FDS) - 1)  # every free descriptor in use
    argv = mount_namespace_argv(view, info_fd)
    assert f"exec {info_fd}<" not in argv[-2]
    read, write = os.pipe()
    try:
        listing = [f"{folder}/mark" for folder in view.binds]
        done = subprocess.run([sys.executable, "-c", AS_FD, str(write), str(info_fd), *argv,
                               "/bin/cat", *listing],
                              pass_fds=(write,), capture_output=True, text=True, timeout=60)
        os.close(write)
        write = -1
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [f"part {i}" for i in range(len(view.binds))]
        assert os.read(read, 16) == b"."  # the mounts are made and said so
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


def test_more_folders_than_free_descriptors_is_a_clear_refusal(tmp_path: Path) -> None:
    view = private_tree(tmp_path, count=len(SHELL_FDS))
    with pytest.raises(BotStartError, match=r"at most 6 folders .* needs 7"):
        mount_namespace_argv(view, 6)
