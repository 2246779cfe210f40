"""The ``uid`` containment's set-up, run as root inside the bot's new namespaces: it builds the
same file system bubblewrap would build, from the same mount steps, then becomes the bot.

Why a script of our own: without bubblewrap nothing else on every Linux makes a new root out
of chosen folders. util-linux ``unshare`` makes the namespaces (mount, PID, network, IPC, UTS,
cgroup) and runs this script as the new PID namespace's first process; the script then does
what bubblewrap does in C, in the same order:

1. a tmpfs at ``/tmp`` (of this namespace only), with ``newroot`` and ``oldroot`` in it, and
   ``pivot_root`` onto it, so the host's file system is at ``/oldroot``;
2. the mount steps of :func:`referee.process.sandbox.view_mounts`, in bubblewrap's own option
   language (``--ro-bind SRC DEST``, ``--tmpfs DEST``, ``--proc``, ``--dev``...), each source
   read under ``/oldroot`` and each destination made under ``/newroot``;
3. the host's root detached, ``pivot_root`` into ``/newroot``, the loopback interface up;
4. one byte on the referee's pipe (nothing written means the set-up failed: the machine's
   fault, never the bot's), then ``exec`` of the rest of its argv (coreutils ``timeout``
   without a limit, as the namespace's init, then ``setpriv`` to the bot's uid, then the bot).

Standard library only, no import of the arena: it runs as ``python -I -S jail_init.py VARIABLE
-- ARGV...`` and must import all it needs before the host's root goes away. Its input is the
environment variable named first (JSON: the mount steps and the pipe; not the command line,
which every process may read), removed before the bot starts. Any failure prints one line to
stderr and exits with :data:`SETUP_FAILED`.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import platform
import socket
import stat
import struct
import sys

SETUP_FAILED = 126

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_SLAVE = 1 << 19
MNT_DETACH = 2
ST_FLAGS = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC))

PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "ppc64": 203,
              "s390x": 217, "i686": 217, "i386": 217, "armv7l": 218, "armv6l": 218}
"""The ``pivot_root`` system call's number per machine (glibc has no wrapper for it)."""

DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
"""The device nodes of a sandbox's ``/dev``, bound from the host's (as bubblewrap's ``--dev``)."""
DEV_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"))
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1

_libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    """A step that could not be made: the message names the step and the path."""


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(code)} (errno {errno.errorcode.get(code, code)})")


def mount(source: str, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(_libc.mount(source.encode(), target.encode(),
                       fstype.encode() if fstype else None, flags,
                       data.encode() if data else None),
           f"mount {source} on {target}")


def umount(target: str) -> None:
    _check(_libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def pivot_root(new: str, old: str) -> None:
    number = PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise SetupError(f"pivot_root: unknown system call number on {platform.machine()}")
    _check(_libc.syscall(number, new.encode(), old.encode()), f"pivot_root {new}")


def make_dirs(path: str, mode: int = 0o755) -> None:
    """``path`` and the folders above it, made with ``mode`` (not the umask's)."""
    parent = os.path.dirname(path)
    if parent and parent != path and not os.path.isdir(parent):
        make_dirs(parent)
    try:
        os.mkdir(path)
    except FileExistsError:
        return
    os.chmod(path, mode)


def make_file(path: str) -> None:
    make_dirs(os.path.dirname(path))
    if not os.path.lexists(path):
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o444))


def mount_flags(path: str) -> int:
    """The flags a remount of ``path`` must keep (a bind mount's nosuid, nodev, noexec)."""
    have = os.statvfs(path).f_flag
    return sum(flag for st_flag, flag in ST_FLAGS if have & st_flag)


def bind(source: str, dest: str, *, read_only: bool) -> None:
    """``source`` (under the old root) bound at ``dest`` (under the new), read-only unless
    told otherwise; the mount point made to match (a folder or an empty file)."""
    if stat.S_ISDIR(os.stat(source).st_mode):
        make_dirs(dest)
    else:
        make_file(dest)
    mount(source, dest, None, MS_BIND | MS_REC)
    if read_only:
        remount_read_only(dest)


def remount_read_only(dest: str) -> None:
    mount("none", dest, None, MS_REMOUNT | MS_BIND | MS_RDONLY | mount_flags(dest))


def tmpfs(dest: str, mode: int, size: int | None) -> None:
    make_dirs(dest)
    options = f"mode={mode:o}" + (f",size={size}" if size is not None else "")
    mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV, options)


def dev(dest: str) -> None:
    """A minimal ``/dev`` as bubblewrap's ``--dev`` makes it: a tmpfs holding the harmless
    device nodes (bound from the host's), the standard links, and a folder for ``shm``."""
    tmpfs(dest, 0o755, None)
    for name in DEV_NODES:
        node = f"/oldroot/dev/{name}"
        if os.path.exists(node):
            make_file(f"{dest}/{name}")
            mount(node, f"{dest}/{name}", None, MS_BIND)
    for name, target in DEV_LINKS:
        os.symlink(target, f"{dest}/{name}")
    make_dirs(f"{dest}/shm")


def run_steps(args: list[str]) -> str:
    """Make the mount steps ``args`` (bubblewrap's options, the subset the sandbox uses) in
    ``/newroot``; returns the ``--chdir`` folder."""
    old, new = "/oldroot", "/newroot"
    perms: int | None = None
    size: int | None = None
    chdir = "/"
    i = 0

    def take(count: int) -> list[str]:
        nonlocal i
        if i + count > len(args):
            raise SetupError(f"{args[i - 1]}: expects {count} arguments")
        values = args[i:i + count]
        i += count
        return values

    while i < len(args):
        option = args[i]
        i += 1
        if option == "--perms":
            perms = int(take(1)[0], 8)
            continue
        if option == "--size":
            size = int(take(1)[0])
            continue
        if option in ("--ro-bind", "--bind"):
            source, dest = take(2)
            bind(old + source, new + dest, read_only=option == "--ro-bind")
        elif option == "--tmpfs":
            tmpfs(new + take(1)[0], perms if perms is not None else 0o755, size)
        elif option == "--dir":
            make_dirs(new + take(1)[0], perms if perms is not None else 0o755)
        elif option == "--symlink":
            target, dest = take(2)
            make_dirs(os.path.dirname(new + dest))
            os.symlink(target, new + dest)
        elif option == "--proc":
            dest = new + take(1)[0]
            make_dirs(dest)
            mount("proc", dest, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif option == "--dev":
            dev(new + take(1)[0])
        elif option == "--remount-ro":
            remount_read_only(new + take(1)[0].rstrip("/"))
        elif option == "--chdir":
            chdir = take(1)[0]
        else:
            raise SetupError(f"unknown mount step {option!r}")
        perms = size = None
    return chdir


def loopback_up() -> None:
    """The new network namespace's ``lo`` up: the bot may talk to itself, nothing else."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def build_root(steps: list[str]) -> str:
    """The whole file system of the sandbox, entered; returns the folder to start in."""
    mount("none", "/", None, MS_REC | MS_SLAVE)  # nothing made here reaches the host
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=4m")
    os.chdir("/tmp")
    os.mkdir("newroot", 0o755)
    mount("newroot", "newroot", None, MS_BIND | MS_REC)
    os.mkdir("oldroot", 0o755)
    pivot_root("/tmp", "oldroot")
    os.chdir("/")
    chdir = run_steps(steps)
    mount("oldroot", "oldroot", None, MS_REC | MS_PRIVATE)
    umount("oldroot")
    os.chdir("/newroot")
    pivot_root(".", ".")
    umount(".")
    os.chdir("/")
    os.chdir(chdir)
    return chdir


def main() -> int:
    plan = json.loads(os.environ.pop(sys.argv[1]))
    info_fd: int | None = plan.get("info_fd")
    argv = sys.argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    try:
        chdir = build_root(plan["mounts"])
        loopback_up()
    except (SetupError, OSError) as exc:
        print(f"arena: cannot set up the bot's namespaces: {exc}", file=sys.stderr, flush=True)
        return SETUP_FAILED
    os.environ["PWD"] = chdir
    if info_fd is not None:
        os.write(info_fd, b".")
        os.close(info_fd)
    os.execv(argv[0], argv)
    return SETUP_FAILED  # not reached


if __name__ == "__main__":
    sys.exit(main())
