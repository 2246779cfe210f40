"""What a contained bot sees of the file system: which folders are bound for it, which private
folders above them are covered, and which paths are hidden.

Both containments that give a bot an unprivileged uid build their whole file system from this
(:mod:`referee.process.rootfs`): bubblewrap, and without it the ``uid`` containment
(:mod:`referee.process.jail`). What the view holds is the bot's folder and its runtime, and
nothing a bot's author can add to it: a command that names a path outside the folder, or a
program whose symlinks lead out of it, is refused before the bot starts, naming the path.

Why covers: a bot runs as an unprivileged uid that owns nothing, so it can only reach a folder
whose every ancestor others may search. An interpreter under a 0700 home (pyenv in /root, nvm,
conda, a virtualenv in a private checkout) would be out of reach. A tmpfs over the highest
private ancestor, with the needed folders bound inside it (the folders in between made anew,
0755), makes those folders reachable and nothing else of the private folder.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Final

import msgspec

from referee.botspec import BotSpec
from referee.process.boterrors import BotStartError

SYSTEM_DIRS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                      "/opt")
"""Bound read-only into every sandbox (those that exist; symlinks are recreated as symlinks)."""
ARENA_SOURCE: Final = str(Path(__file__).resolve().parents[2])
"""The folder holding the arena's packages (the project folder in an editable install)."""
BOT_HELPER_PACKAGES: Final = ("protocol", "referee")
"""What a bot run by the arena's own Python (``{python}``) sees of the arena: the bot helper
(``protocol.bot``) and the rules it imports (``referee.games``). Not the project's other
folders: sample bots, runs, configs."""

_hidden: set[str] = set()


def hide_from_bots(path: str | os.PathLike[str]) -> None:
    """Keep ``path`` (a run directory, a config file, a league) out of every contained bot's
    view: covered by an empty read-only tmpfs (or /dev/null) where it lies inside a folder the
    bot sees, and never bound as a bot's runtime (a bot's own folder may lie inside it: a
    league's stored version)."""
    _hidden.add(os.path.abspath(path))


class BotView(msgspec.Struct):
    """The folders a bot sees besides the system's, and how they are made reachable."""

    folder: str
    """The bot's own folder: its ``cwd``, else its script's folder, else its program's."""
    cwd: str
    """Where it starts (its folder unless ``cwd`` says otherwise)."""
    binds: list[str]
    """Folders bound read-only at their own paths, parents before children: the bot's folder,
    its program's install folder, script folders, the bot helper for ``{python}``."""
    covers: list[str] = msgspec.field(default_factory=list)
    """Private ancestors of ``binds`` (not searchable by others), each covered by a tmpfs."""
    hidden: list[str] = msgspec.field(default_factory=list)
    """Paths of :func:`hide_from_bots` inside a bound or system folder: covered by an empty
    tmpfs (a folder) or /dev/null (a file); a bound folder inside a hidden one (a league's
    stored version, under a hidden league) is bound again on top."""

    def covered(self, path: str) -> bool:
        """Whether ``path`` lies under one of :attr:`covers`."""
        return any(under(path, cover) for cover in self.covers)


def under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def is_system(path: str) -> bool:
    return any(under(path, d) for d in SYSTEM_DIRS)


def absolute_scripts(argv: list[str]) -> list[str]:
    """``argv`` with each argument that names an existing file relative to the current
    folder made absolute. A bot without a ``cwd`` (``check-bot``, ``play``) runs in its
    script's folder inside the sandbox, where ``sample_bots/x.py`` would no longer be found."""
    return [argv[0], *(os.path.abspath(arg) if not arg.startswith("-")
                       and not os.path.isabs(arg) and os.path.isfile(arg) else arg
                       for arg in argv[1:])]


def bot_folder(spec: BotSpec, argv: list[str]) -> str:
    """The one folder a contained bot sees as its own: ``cwd`` when given, else the folder of
    the script it is given (the first existing file after the program), else the program's."""
    if spec.cwd:
        return os.path.abspath(spec.cwd)
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.isfile(arg):
            return os.path.dirname(arg)
    return os.path.dirname(argv[0])


def contained(spec: BotSpec, argv: list[str]) -> tuple[list[str], BotView]:
    """The argv a contained bot starts with (its scripts absolute when it has no ``cwd``: it
    starts in its script's folder) and its view."""
    if not spec.cwd:
        argv = absolute_scripts(argv)
    return argv, bot_view(spec, argv)


def bot_view(spec: BotSpec, argv: list[str]) -> BotView:
    """The view of the bot started as ``argv`` (its program an absolute path, its scripts
    absolute when it has no ``cwd``); raises :class:`BotStartError` when its command names a
    path outside its folder (:func:`_check_arguments`), or when a folder it needs is one its
    uid could not read even with the covers (a 0700 bot folder)."""
    folder = bot_folder(spec, argv)
    cwd = os.path.abspath(spec.cwd) if spec.cwd else folder
    runtime = _program_roots(spec, argv, folder)
    for root in runtime:
        if under(os.path.realpath(root), os.path.realpath(folder)):
            continue  # its script's package, in its own folder
        secret = next((path for path in _hidden
                       if under(os.path.realpath(root), os.path.realpath(path))), None)
        if secret is not None:  # a run directory's, a config's or a league's own files
            raise BotStartError(f"cannot start bot {spec.name!r}: its program needs {root}, "
                                f"inside {secret}, which no bot may see")
    _check_arguments(spec, argv, cwd, [folder, *runtime])
    binds: list[str] = []
    for root in [folder, *runtime]:
        if root == "/" or (is_system(root) and not any(under(root, path) for path in _hidden)):
            continue  # bound anyway (unless a hidden folder of a system one covers it)
        if not any(under(root, other) for other in binds):
            binds = [b for b in binds if not under(b, root)]
            binds.append(root)
    binds.sort(key=lambda p: (p.count("/"), p))
    view = BotView(folder, cwd, binds)
    for path in binds:
        _cover_private_ancestors(view, path)
    for path in binds:
        _check_readable(spec, path)
    view.hidden = [path for path in sorted(_hidden)
                   if (is_system(path) or any(under(path, root) for root in binds))
                   and os.path.lexists(path)]  # a league under /opt, a config in /etc
    return view


SANDBOX_OWN: Final = ("/tmp", "/var/tmp", "/dev/shm")
"""Folders a contained bot has of its own (private tmpfs): a command may name them, as it may
name anything under its own /dev and /proc (``/dev/null``, ``/proc/self/fd/0``)."""


def _inside(path: str, roots: list[str]) -> bool:
    """Whether ``path`` (resolved) lies in one of ``roots`` (resolved too) or a system folder."""
    return is_system(path) or any(under(path, os.path.realpath(root)) for root in roots)


def _check_arguments(spec: BotSpec, argv: list[str], cwd: str, roots: list[str]) -> None:
    """Refuse a command that names, as an argument (or the value of ``--opt=VALUE``), an
    existing path that resolves outside the bot's folder and its runtime: the view binds the
    bot's folder, not what its command points at, and a path chosen by the bot's author must
    not widen it (another author's stored code, a league's settings, a run's journal)."""
    for arg in argv[1:]:
        candidates = [arg] if not arg.startswith("-") else []
        if "=" in arg:
            candidates.append(arg.partition("=")[2])
        for text in candidates:
            if not text or "\0" in text:
                continue
            path = os.path.normpath(os.path.join(cwd, text))
            if path in ("/", *SANDBOX_OWN) or under(path, "/dev") or under(path, "/proc"):
                continue
            if not os.path.lexists(path):
                continue
            resolved = os.path.realpath(path)
            if not _inside(resolved, roots):
                shown = text if resolved == path else f"{text} (-> {resolved})"
                raise BotStartError(
                    f"cannot start bot {spec.name!r}: its command names {shown}, outside its "
                    f"folder {roots[0]}: a bot sees only its own folder and its runtime; "
                    "put the file in its folder")


def _cover_private_ancestors(view: BotView, path: str) -> None:
    parts = Path(path).parts
    for i in range(2, len(parts)):
        ancestor = os.path.join(*parts[:i])
        if view.covered(ancestor) or any(under(ancestor, b) and ancestor != b
                                         for b in view.binds):
            # inside a cover already (its remaining folders are made below), or inside a
            # bound folder, whose own modes apply
            continue
        if not _searchable_by_others(ancestor):
            view.covers.append(ancestor)
            break


def _searchable_by_others(folder: str) -> bool:
    try:
        return bool(os.stat(folder).st_mode & stat.S_IXOTH)
    except OSError:
        return False


def _check_readable(spec: BotSpec, path: str) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise BotStartError(f"cannot start bot {spec.name!r}: {path}: {exc.strerror}") from None
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    if mode & need != need:
        raise BotStartError(
            f"cannot start bot {spec.name!r}: {path} is not readable by other users (mode "
            f"{stat.S_IMODE(mode):04o}), and the bot runs as an unprivileged uid of its own "
            f"that owns nothing; make it readable: chmod -R o+rX {path}")


def _program_roots(spec: BotSpec, argv: list[str], folder: str) -> list[str]:
    """Folders a bot's program needs besides its own folder: its runtime.

    A program outside the bot's folder (an interpreter, an installed engine: the config's or
    the league's choice) brings its install prefix (the folder above ``bin/``: an
    interpreter's lib/, a virtualenv's pyvenv.cfg), for itself and each step of its symlinks.
    A program inside the folder is the author's: each step of its symlinks must stay in the
    folder, a system folder or the arena's own Python (a virtualenv the build made), else it
    is refused. For the arena's own Python (``{python}``), the bot helper's packages. For its
    script (the first argument naming a file in the folder), its top Python package (the
    folder above which no ``__init__.py`` is). System folders are bound anyway and left out."""
    roots: list[str] = []

    def add(path: str) -> None:
        if path and path != "/" and not is_system(path) and path not in roots:
            roots.append(path)

    def prefix(program: str) -> str:
        parent = os.path.dirname(program)
        return os.path.dirname(parent) if os.path.basename(parent) == "bin" else parent

    arena_python = prefix(os.path.realpath(sys.executable))
    real = os.path.realpath(argv[0])
    from_program = not spec.cwd and not any(os.path.isabs(arg) and os.path.isfile(arg)
                                            for arg in argv[1:])
    authors = not from_program and under(os.path.abspath(argv[0]), folder)
    # (a bot folder that is only its program's folder is an installed engine's: its runtime)
    program = argv[0]
    for _ in range(16):  # symlink chain, bounded
        if not authors:
            add(prefix(program))
        else:  # where this step lies, its folder's own links followed
            step = os.path.join(os.path.realpath(os.path.dirname(program)),
                                os.path.basename(program))
            if not _inside(step, [folder, arena_python]):
                raise BotStartError(
                    f"cannot start bot {spec.name!r}: its program {argv[0]} leads to {step}, "
                    f"outside its folder {folder}: a bot sees only its own folder and its "
                    "runtime")
        if not os.path.islink(program):
            break
        program = os.path.join(os.path.dirname(program), os.readlink(program))
    if not authors:
        add(prefix(real))
    elif under(real, arena_python):
        add(arena_python)  # a virtualenv of the arena's Python, made by the bot's build
    elif not _inside(real, [folder]):
        raise BotStartError(
            f"cannot start bot {spec.name!r}: its program {argv[0]} leads to {real}, outside "
            f"its folder {folder}: a bot sees only its own folder and its runtime")
    if real == os.path.realpath(sys.executable):
        for package in BOT_HELPER_PACKAGES:
            add(os.path.join(ARENA_SOURCE, package))
    cwd = os.path.abspath(spec.cwd) if spec.cwd else folder
    for arg in argv[1:]:
        path = arg if os.path.isabs(arg) else os.path.join(cwd, arg)
        if os.path.isfile(path) and under(os.path.realpath(path), os.path.realpath(folder)):
            # the script; other files it needs are in its folder
            script_folder = os.path.dirname(os.path.realpath(path))
            while (os.path.isfile(os.path.join(script_folder, "__init__.py"))
                   and os.path.isfile(os.path.join(os.path.dirname(script_folder),
                                                   "__init__.py"))):
                script_folder = os.path.dirname(script_folder)
            add(script_folder)
            break
    return roots
