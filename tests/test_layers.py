"""The code's layers, read from every module's imports (README, "Layout").

Each package imports only its own layer and the layers below it, so that a change to the
tournament never reaches the rules, and the report never starts a process:

    rules (referee.games) < protocol < referee < ratings < arena's data floors < reports <
    arena's driving floors < bench

and inside the referee: its data (records, time controls, orders, bot specs) < process
containment (referee.process) < bot dialogue (channel, connection, dialects, human seat) <
the match loop. Inside arena, each floor (a folder of one concept) is a layer of its own, in
the order of :data:`LAYERS`: its base modules (errors, file lock) < the run directory <
openings < settings < formats < the league directory < (reports) < bots < cluster < run <
league < tune < web < commands < the CLI. A floor is named by one prefix, whole: no floor has
modules in two layers.

Every import counts, also one inside a function (a lazy import is a dependency all the same)
and one under ``if TYPE_CHECKING:``. Besides the order: the sample bots use the protocol and
the rules only, never the arena; nothing imports the benchmarks; and trio, imported at module
level, stays in the modules that run processes or a game (``arena run`` starts its first bots
and reads its config, its schedule and its journal before it imports trio).

The checker is tried on planted upward imports too (between packages, and between arena's
floors), so that a checker that sees nothing cannot pass.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("protocol", "referee", "ratings", "arena", "reports", "sample_bots", "bench")

@dataclass(frozen=True)
class Layer:
    name: str
    prefixes: tuple[str, ...]
    """Modules and packages of the layer (a package with everything under it)."""
    trio: bool
    """May its modules import trio at module level? Only those that run processes or a game:
    ``arena run`` reads its config, schedule and journal and starts its first bots before it
    imports trio, and the rules, the records, the ratings and the reports never need it."""


LAYERS: tuple[Layer, ...] = (
    Layer("rules", ("referee.games",), trio=False),
    Layer("protocol", ("protocol",), trio=False),
    Layer("the referee's data", ("referee.adjudication", "referee.botspec", "referee.gameoptions",
                                 "referee.gamefiles", "referee.latency", "referee.order",
                                 "referee.record",
                                 "referee.timecontrol"),
          trio=False),
    Layer("process containment", ("referee.process",), trio=True),
    Layer("bot dialogue", ("referee.channel", "referee.connection", "referee.dialects",
                           "referee.human", "referee.botsource"), trio=True),
    Layer("match loop", ("referee.match", "referee.thinkslots"), trio=True),
    Layer("ratings", ("ratings",), trio=False),
    # arena's data floors: what a run and a league are (reports reads them)
    Layer("arena's base", ("arena.errors", "arena.filelock", "arena.atomicfile", "arena.say",
                           "arena.startup"),
          trio=False),
    Layer("run directory", ("arena.rundir",), trio=False),
    Layer("openings", ("arena.openings",), trio=False),
    Layer("settings", ("arena.settings",), trio=False),
    Layer("formats", ("arena.formats",), trio=False),
    Layer("league directory", ("arena.leaguedir",), trio=False),
    Layer("reports", ("reports",), trio=False),
    # arena's driving floors: they start processes and play games
    Layer("bots", ("arena.bots",), trio=True),
    Layer("cluster", ("arena.cluster",), trio=True),
    Layer("run", ("arena.run",), trio=True),
    Layer("league", ("arena.league",), trio=True),
    Layer("tune", ("arena.tune",), trio=True),
    Layer("web", ("arena.web",), trio=True),
    Layer("commands", ("arena.commands",), trio=True),
    Layer("CLI", ("arena.cli",), trio=False),
    Layer("benchmarks", ("bench",), trio=True),
)
"""Lowest first. A module belongs to the layer of its longest matching prefix; a referee
module must be placed by name, an arena module by its floor (a new floor needs a layer)."""

PACKAGE_LAYERS = {"referee": "the referee's data", "arena": "arena's base"}
"""The packages themselves (their ``__init__``: a docstring, the version): with the data."""

SAMPLE_BOTS_MAY_USE = ("protocol", "referee.games", "sample_bots")


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module (dotted)."""
    target: str
    """The imported module (dotted; ``from a import b`` gives ``a.b`` when that is a module)."""
    line: int
    top_level: bool
    """At module level (not inside a function or class, nor under ``if TYPE_CHECKING:``)."""


def _prefixed(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def layer_of(module: str) -> int | None:
    """Index of the module's layer in :data:`LAYERS`, None for a module outside them."""
    if module in PACKAGE_LAYERS:
        return next(i for i, layer in enumerate(LAYERS) if layer.name == PACKAGE_LAYERS[module])
    best: tuple[int, int] | None = None
    for index, layer in enumerate(LAYERS):
        for prefix in layer.prefixes:
            if _prefixed(module, prefix) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(root: Path, path: Path) -> Iterator[Import]:
    """Every import of one source file, with whether it runs when the module is imported."""
    module = module_name(root, path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def walk(node: ast.AST, top: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(module, alias.name, child.lineno, top)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in child.names:
                    candidate = f"{base}.{alias.name}"
                    is_module = (root / Path(*candidate.split("."))).with_suffix(".py").is_file() \
                        or (root / Path(*candidate.split(".")) / "__init__.py").is_file()
                    yield Import(module, candidate if is_module else base, child.lineno, top)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                            | ast.Lambda) or (isinstance(child, ast.If)
                                              and _is_type_checking(child)):
                yield from walk(child, False)
            else:
                yield from walk(child, top)

    yield from walk(tree, True)


def sources(root: Path) -> Iterator[Path]:
    for package in PACKAGES:
        folder = root / package
        if folder.is_dir():
            yield from sorted(folder.rglob("*.py"))


def violations(root: Path) -> list[str]:
    """Every import that breaks a rule of this module's docstring, as ``file:line: why``."""
    found: list[str] = []
    for path in sources(root):
        where = path.relative_to(root)
        for imp in dict.fromkeys(imports_of(root, path)):  # `from a import b, c`: one line
            own = layer_of(imp.module)
            if imp.target.split(".")[0] == "trio" and imp.top_level and (
                    own is not None and not LAYERS[own].trio):
                found.append(f"{where}:{imp.line}: {imp.module} ({LAYERS[own].name}) imports "
                             "trio at module level")
            if _prefixed(imp.module, "sample_bots"):
                if imp.target.split(".")[0] in PACKAGES and not any(
                        _prefixed(imp.target, p) for p in SAMPLE_BOTS_MAY_USE):
                    found.append(f"{where}:{imp.line}: sample bot {imp.module} imports "
                                 f"{imp.target} (a sample bot uses protocol and the rules only)")
                continue
            target = layer_of(imp.target)
            if own is None or target is None or target <= own:
                continue
            found.append(f"{where}:{imp.line}: {imp.module} ({LAYERS[own].name}) imports "
                         f"{imp.target} ({LAYERS[target].name}), a layer above it")
    return found


def test_every_module_imports_only_its_layer_and_those_below() -> None:
    assert violations(ROOT) == []


def test_the_layers_cover_every_module() -> None:
    stray = [module_name(ROOT, path) for path in sources(ROOT)
             if path.parts[len(ROOT.parts)] != "sample_bots"
             and layer_of(module_name(ROOT, path)) is None]
    assert stray == []


def test_module_basenames_are_unique() -> None:
    """A module's name says what it is without its folder: ``journal`` is the run directory's
    journal, wherever it is imported from (``__init__`` and ``__main__`` aside)."""
    seen: dict[str, list[str]] = {}
    for path in sources(ROOT):
        if path.stem not in ("__init__", "__main__"):
            seen.setdefault(path.stem, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


MAX_ARENA_TOP_MODULES = 8


def test_arena_keeps_its_code_in_floors() -> None:
    """arena's top level holds its base modules and the CLI; everything else is in a floor
    (a folder of one concept, a layer of its own)."""
    top = sorted(path.name for path in (ROOT / "arena").glob("*.py"))
    assert len(top) <= MAX_ARENA_TOP_MODULES, top


@pytest.mark.parametrize(("module", "planted", "expected"), [
    ("ratings/counts.py", "from arena.run.runner import Tournament\n",
     "ratings.counts (ratings) imports arena.run.runner (run), a layer above it"),
    ("referee/games/jungle.py", "def later() -> None:\n    import protocol.lines\n",
     "referee.games.jungle (rules) imports protocol.lines (protocol), a layer above it"),
    ("reports/tables.py", "import arena.web.app\n",
     "reports.tables (reports) imports arena.web.app (web), a layer above it"),
    ("referee/record.py", "import trio\n",
     "referee.record (the referee's data) imports trio at module level"),
    ("referee/process/spawn.py", "from referee.connection import BotConnection\n",
     "referee.process.spawn (process containment) imports referee.connection (bot dialogue)"),
    ("arena/rundir/journal.py", "from reports.html import build_report\n",
     "arena.rundir.journal (run directory) imports reports.html (reports), a layer"),
    # between arena's floors: a data floor reaching up, and one driving floor another
    ("arena/rundir/journal.py", "from arena.run.runner import Tournament\n",
     "arena.rundir.journal (run directory) imports arena.run.runner (run), a layer above it"),
    ("arena/settings/config.py", "def later() -> None:\n    import arena.formats.swiss\n",
     "arena.settings.config (settings) imports arena.formats.swiss (formats), a layer above"),
    ("arena/bots/pool.py", "from arena.run.progress import Progress\n",
     "arena.bots.pool (bots) imports arena.run.progress (run), a layer above it"),
    ("arena/league/plan.py", "from arena.commands.check_bot import run\n",
     "arena.league.plan (league) imports arena.commands.check_bot (commands), a layer above"),
    # nothing imports the benchmarks
    ("arena/run/runner.py", "import bench.synthetic\n",
     "arena.run.runner (run) imports bench.synthetic (benchmarks), a layer above it"),
    ("sample_bots/greedy.py", "from arena.settings.config import load_config\n",
     "sample bot sample_bots.greedy imports arena.settings.config"),
])
def test_a_planted_upward_import_is_found(tmp_path: Path, module: str, planted: str,
                                          expected: str) -> None:
    # The module alone, copied where it lives in the tree: its own imports pass (the test
    # above checks them in place); the planted one must be the one finding.
    copy = tmp_path / module
    copy.parent.mkdir(parents=True)
    copy.write_text((ROOT / module).read_text(encoding="utf-8"), encoding="utf-8")
    assert violations(tmp_path) == []
    copy.write_text(copy.read_text(encoding="utf-8") + "\n" + planted, encoding="utf-8")
    found = violations(tmp_path)
    assert len(found) == 1, found
    assert expected in found[0], found
