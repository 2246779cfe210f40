"""A sixth game is one module plus its tests: tic-tac-toe, registered here, goes through what
the five games go through — the registry, the conformance walk, perft, a real match between
sample bots (child processes that find it as an installed plug-in), the report's replay — and
the layer rule that keeps referee/games importing only the standard library and itself.

This is the walk-through of docs/adding-a-game.md, executed.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import referee.games as games
from arena.settings.config import load_config
from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.games import (
    GAME_NAMES,
    Game,
    GameError,
    UnknownGame,
    check_rules_class,
    game_names,
    get_game,
    register_game,
    unregister_game,
)
from referee.match import FreshBots, play_game
from referee.order import GameOrder
from referee.record import GameRecord, Termination
from referee.timecontrol import TimeControl
from reports.replay import replay
from sample_bots.evaluation import EVALUATORS, get_evaluator

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"
sys.path.insert(0, str(PLUGIN_DIR))

from arena_tictactoe import TicTacToe  # noqa: E402
from test_game_conformance import test_random_games_round_trip as conformance_walk  # noqa: E402

FAST = TimeControl.parse("5+0.1")
ROOMY = TimeControl.parse("60+1")
"""A full-depth tic-tac-toe search is a few thousand nodes; this clock lets it finish even
under load (the alphabeta bot spends a small share of what is left per move)."""
PERFT = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
"""Tic-tac-toe's move tree, finished games having no children (255168 games in all); the test
checks the first six, the rest cost seconds of Python."""


@pytest.fixture
def tictactoe() -> Iterator[type[TicTacToe]]:
    register_game(TicTacToe)
    try:
        yield TicTacToe
    finally:
        unregister_game("tictactoe")


def plugin_env(tmp_path: Path) -> dict[str, str]:
    """What a bot process needs to find the game as an installed plug-in: the module on its
    path and a distribution declaring the ``arena.games`` entry point."""
    dist = tmp_path / "site" / "arena_tictactoe-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-tictactoe\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[arena.games]\ntictactoe = arena_tictactoe:TicTacToe\n")
    return {"PYTHONPATH": f"{tmp_path / 'site'}:{PLUGIN_DIR}"}


def bot(name: str, script: str, env: dict[str, str], *args: str,
        options: dict[str, str | int | float | bool] | None = None) -> BotSpec:
    # No sandbox: a contained bot gets a private /tmp, which hides the temporary site folder
    # that declares the plug-in; finding the plug-in is what these matches check.
    return BotSpec(name=name, cmd=[sys.executable, str(ROOT / "sample_bots" / script), *args],
                   env=env, options=options or {}, sandbox="none")


# ----- the registry -------------------------------------------------------------------------

def test_registering_makes_the_game_known_and_unregistering_forgets_it() -> None:
    with pytest.raises(UnknownGame, match="unknown game 'tictactoe'; known games: draughts"):
        get_game("tictactoe")
    register_game(TicTacToe)
    try:
        assert get_game("tictactoe") is TicTacToe
        assert game_names()[: len(GAME_NAMES)] == GAME_NAMES
        assert "tictactoe" in game_names() and "tictactoe" not in GAME_NAMES
        with pytest.raises(GameError, match="'tictactoe' is already registered"):
            register_game(TicTacToe)
        register_game(TicTacToe, replace=True)
    finally:
        unregister_game("tictactoe")
    assert "tictactoe" not in game_names()
    with pytest.raises(GameError, match="cannot be unregistered"):
        unregister_game("draughts")


def test_an_incomplete_rules_class_is_refused_with_what_it_lacks() -> None:
    class NoHooks(Game[int]):
        NAME = "nohooks"
        DESCRIPTION = "lacks its hooks"
        START_POSITION = ""

    with pytest.raises(GameError, match="does not implement board_view, copy, diagram"):
        check_rules_class(NoHooks)

    class Nameless(TicTacToe):
        NAME = "Bad Name"

    with pytest.raises(GameError, match="NAME 'Bad Name' must be lower case"):
        register_game(Nameless)
    with pytest.raises(GameError, match="is not a subclass"):
        check_rules_class(dict)


def test_an_installed_plugin_reaches_the_command_line(tmp_path: Path) -> None:
    env = {**os.environ, **plugin_env(tmp_path)}
    arena = [sys.executable, "-c", "import sys; from arena.cli import main; sys.exit(main())"]
    listed = subprocess.run([*arena, "games"], env=env, capture_output=True, text=True,
                            timeout=60, check=True).stdout
    assert "tictactoe" in listed and "Tic-tac-toe, 3x3" in listed
    counted = subprocess.run([*arena, "perft", "tictactoe", "5"], env=env, capture_output=True,
                             text=True, timeout=60, check=True).stdout
    assert counted.splitlines()[-1] == "perft 5: 15120"


def test_a_broken_plugin_entry_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(games, "_plugins", {"ghost": "no_such_module:Ghost",
                                            "liar": "arena_tictactoe:TicTacToe"})
    with pytest.raises(GameError, match="game 'ghost': cannot load 'no_such_module:Ghost'"):
        get_game("ghost")
    with pytest.raises(GameError, match="says its NAME is 'tictactoe'"):
        get_game("liar")


# ----- the rules ------------------------------------------------------------------------------

def test_conformance_walk(tictactoe: type[TicTacToe]) -> None:
    # The registry-driven walk every game gets (tests/test_game_conformance.py): move and
    # position texts round-trip along random games, copies are independent, pop walks back.
    conformance_walk("tictactoe")


def test_perft_and_divide(tictactoe: type[TicTacToe]) -> None:
    game = get_game("tictactoe").start()
    assert [game.perft(depth) for depth in range(1, 7)] == PERFT[:6]  # deeper: seconds
    after_three = TicTacToe.new(moves=["b2", "a1", "c3"])  # the tail of the tree, cheaply
    assert sum(n for _, n in after_three.divide(6)) == after_three.perft(6) > 0
    finished = TicTacToe.new(moves=["a1", "a2", "b1", "b2", "c1"])
    assert finished.perft(1) == 0 and finished.perft(0) == 1
    assert dict(game.divide(2))["b2"] == 8
    assert game.position() == TicTacToe.START_POSITION


def test_rules_positions_and_errors(tictactoe: type[TicTacToe]) -> None:
    game = TicTacToe.new(moves=["b2", "a1", "c3", "c1", "b1", "b3", "a3"])
    assert game.position() == "xox/.x./oxo o"
    assert game.outcome() is None and game.legal_moves() == ["a2", "c2"]
    game.play("a2")
    game.play("c2")
    assert game.outcome() is not None and game.outcome().reason == "full"  # type: ignore[union-attr]
    win = TicTacToe.new(moves=["a1", "a2", "b1", "b2", "c1"])
    assert win.outcome() is not None and win.outcome().winner == 0  # type: ignore[union-attr]
    assert win.moves() == [] and win.adjudication() is None
    with pytest.raises(GameError, match="the game is over"):
        win.play("c3")
    with pytest.raises(GameError, match="b2 is taken"):
        TicTacToe.new(moves=["b2"]).play("b2")
    with pytest.raises(GameError, match="so o is to move"):
        TicTacToe.from_position("x../.../... x")
    with pytest.raises(GameError, match="as many marks as o or one more"):
        TicTacToe.from_position("xx./.../... o")
    with pytest.raises(GameError, match="three ranks of three"):
        TicTacToe.from_position("xx/.../... o")


# ----- what drives on the registry: evaluators, a real match, the report's replay ------------

def test_sample_bot_evaluators_follow_the_registry(tictactoe: type[TicTacToe]) -> None:
    for name in GAME_NAMES:
        assert name in EVALUATORS, f"{name} has no evaluation in sample_bots/evaluation.py"
        assert not get_evaluator(name).NEUTRAL
    neutral = get_evaluator("tictactoe")
    assert neutral.NEUTRAL and neutral.evaluate(TicTacToe.start()) == 0
    assert neutral.REPETITION is False
    with pytest.raises(KeyError, match="no evaluation for game 'chess': unknown game"):
        get_evaluator("chess")


@pytest.mark.slow
async def test_a_real_match_of_sample_bots_on_the_plugin_game(
    tictactoe: type[TicTacToe], tmp_path: Path
) -> None:
    env = plugin_env(tmp_path)
    with trio.fail_after(60):
        record = await play_game(GameOrder.checked(
            "tictactoe", bot("random", "random_bot.py", env, "--seed", "3"),
            bot("alphabeta", "alphabeta.py", env, options={"depth": 9}), tc=ROOMY,
            adjudication=Adjudication(),
        ), FreshBots(tmp_path / "logs"))
    assert record.termination == Termination.NORMAL, record.reason
    assert 5 <= record.plies <= 9
    # A search to the end (depth 9, a clock roomy enough for a loaded machine), even with a
    # neutral evaluation, never loses tic-tac-toe.
    assert record.result in ("0-1", "1/2-1/2"), record.reason
    final = TicTacToe.new(moves=[m.move for m in record.moves])
    assert final.position() == record.final_position and final.outcome() is not None
    log = (tmp_path / "logs" / "alphabeta.stderr.log").read_text()
    assert "no evaluation written for game 'tictactoe'" in log
    # The report's viewer replays it from the registry's rules.
    shown = replay(record)
    assert shown.error == "" and shown.final_position == record.final_position
    assert shown.doc["columns"] == 3 and len(shown.doc["moves"]) == record.plies


async def test_a_bot_without_the_plugin_says_which_game_it_lacks(
    tictactoe: type[TicTacToe], tmp_path: Path
) -> None:
    # No entry point in the bot's environment: greedy cannot load the rules, says so, and
    # still answers legal moves from the referee's list.
    with trio.fail_after(60):
        record = await play_game(GameOrder.checked(
            "tictactoe", bot("greedy", "greedy.py", {}), bot("random", "random_bot.py", {}),
            tc=FAST,
        ), FreshBots(tmp_path))
    assert record.termination == Termination.NORMAL, record.reason
    log = (tmp_path / "greedy.stderr.log").read_text()
    assert "unknown game 'tictactoe'" in log and "playing a random legal move" in log


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_ships_a_ready_example_tournament(name: str) -> None:
    path = ROOT / "examples" / f"{name}.toml"
    assert path.is_file(), (f"examples/{name}.toml is missing: every game of the project ships "
                            "a ready tournament config (docs/adding-a-game.md)")
    assert load_config(path).config.game == name
    assert f"`{name}.toml`" in (ROOT / "examples" / "README.md").read_text()


def test_replaying_a_game_nobody_registered_names_it() -> None:
    orphan = GameRecord(game="hexapawn", p1="a", p2="b", result="*",
                        termination=Termination.NORMAL, reason="")
    with pytest.raises(UnknownGame, match="unknown game 'hexapawn'"):
        replay(orphan)


# ----- the layer rule -------------------------------------------------------------------------

def test_rules_modules_import_only_the_standard_library_and_themselves() -> None:
    allowed_third_party = {"msgspec"}  # the rules' records and board pictures are Structs
    for path in sorted((ROOT / "referee" / "games").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                ok = (name == "referee.games" or name.startswith("referee.games.")
                      or top in sys.stdlib_module_names or top in allowed_third_party)
                assert ok, f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
