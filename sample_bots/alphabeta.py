"""An alpha-beta bot for all five games: the strongest sample bot, and a template to copy.

Iterative deepening negamax with PVS, a transposition table and quiescence
(``sample_bots/search.py``) over the per-game evaluations of ``sample_bots/evaluation.py``.
It plans its time from the ``go`` clocks (about time/30 + 0.8 x increment, with a hard stop
inside the search), honours ``movetime``/``depth``/``nodes``/``infinite``/``stop``, reports
``info depth .. score .. nodes .. nps .. time .. pv ..`` after every iteration, and declares
three options: ``Depth`` (maximum depth), ``Hash`` (table size in MB) and ``Seed`` (tie-breaks).

Why a reader thread: ``stop`` and ``isready`` must be answered while the search runs; the
thread reads stdin, answers ``isready`` at once during a search and raises the stop flag,
while the main thread searches. Output goes through one lock so lines never interleave.

Run as ``python sample_bots/alphabeta.py``.
"""

from __future__ import annotations

import argparse
import gc
import os
import queue
import random
import sys
import threading
import time
from collections.abc import Hashable
from typing import Any, TextIO

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from protocol.lines import ProtocolError, format_message, parse_command  # noqa: E402
from protocol.messages import (  # noqa: E402
    Command,
    GameAnnounce,
    Go,
    Info,
    IsReady,
    Legal,
    Position,
    Quit,
    SetOption,
    Stop,
    Ugi,
    UgiNewGame,
)
from referee.games import GameError, get_game  # noqa: E402
from sample_bots.evaluation import Evaluator, get_evaluator  # noqa: E402
from sample_bots.search import (  # noqa: E402
    MAX_DEPTH,
    Limits,
    Report,
    Searcher,
    TranspositionTable,
)

DEFAULT_HASH_MB = 16
OVERHEAD_MS = 25.0
"""Kept back from every budget for reading the position, pipes and the process switch."""
MOVES_TO_GO = 30
"""Without ``movestogo``, plan as if this many moves were left."""
LAG_GUESS_MS = 10.0
"""The lag assumed before it could be measured (first move of a game)."""
MIN_SEARCH_MS = 3.0
"""Even with no time to spare, search this long: a depth-1 answer beats a random move."""
PLAIN_GO_MS = 1000.0
"""Thinking time for a ``go`` without clocks or limits."""


def plan_time(go: Go, side: int, lag_ms: float = 0.0) -> tuple[float | None, float | None]:
    """(soft, hard) milliseconds for this move: soft = when to stop deepening, hard = when to
    abort. None for no bound (``infinite``, or only depth/nodes limits).

    ``lag_ms`` is the time the referee's clock charges beyond what the bot itself measures
    (pipes, a busy machine, the referee's own work): it is spent whatever the search does,
    so it comes off the increment and grows the cushion kept on the clock."""
    if go.infinite:
        return None, None
    if go.movetime is not None:
        hard = go.movetime - max(OVERHEAD_MS, go.movetime * 0.1) - lag_ms
        hard = max(MIN_SEARCH_MS, hard)
        return hard, hard
    left = go.p1time if side == 0 else go.p2time
    inc = (go.p1inc if side == 0 else go.p2inc) or 0
    if left is None:
        if go.depth is not None or go.nodes is not None:
            return None, None
        return PLAIN_GO_MS, PLAIN_GO_MS
    moves_to_go = go.movestogo if go.movestogo else MOVES_TO_GO
    # Keep a cushion on the clock: at short time controls one slow move of a loaded machine
    # must not meet an empty clock. Above the cushion, spend a share of the time and the
    # part of the increment the lag leaves.
    reserve = 2 * inc + 4 * lag_ms + 150  # below it, the share goes negative: the clock refills
    soft = (left - reserve) / moves_to_go + max(0.0, inc - lag_ms) * 0.8
    hard = min(3 * soft, left * 0.5 - OVERHEAD_MS - lag_ms)
    hard = max(hard, MIN_SEARCH_MS)
    return max(MIN_SEARCH_MS, min(soft, hard)), hard


class Engine:
    """What the bot knows between commands: options, the game, the board, the table."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.depth = MAX_DEPTH
        self.hash_mb = DEFAULT_HASH_MB
        self.seed = 0
        self.rng = random.Random(self.seed)
        self.table = TranspositionTable(self.hash_mb)
        self.game_name = ""
        self.game_options: dict[str, str] = {}
        self.evaluator: Evaluator | None = None
        self.board: Any = None
        self.keys: list[Hashable] = []
        self.base: tuple[str | None, list[str]] | None = None
        self.legal: list[str] = []
        self.lag_ms = LAG_GUESS_MS
        self.last_clock: tuple[int, float, float, int] | None = None
        """(side, clock at the last go, own time spent on it, increment) to measure the lag."""

    # ----- options and game ---------------------------------------------------------------
    def set_option(self, name: str, value: str | None) -> None:
        try:
            number = int(value or "")
        except ValueError:
            log(f"option {name}: expected an integer, got {value!r}; ignored")
            return
        match name.lower():
            case "depth":
                self.depth = max(1, min(MAX_DEPTH, number))
            case "hash":
                self.hash_mb = max(1, min(1024, number))
                self.table.resize(self.hash_mb)
            case "seed":
                self.seed = number
                self.rng = random.Random(number)
            case _:
                log(f"unknown option {name!r}; ignored")

    def announce(self, game: str, options: dict[str, str]) -> None:
        self.game_name, self.game_options = game, dict(options)
        try:
            self.evaluator = get_evaluator(game)
        except KeyError as exc:
            log(str(exc) + "; playing random legal moves")
            self.evaluator = None
        else:
            if self.evaluator.NEUTRAL:
                log(f"no evaluation written for game {game!r}: searching for its ends only")
        self.base = None

    def new_game(self) -> None:
        self.last_clock = None
        self.table.clear()
        self.base = None
        self.rng = random.Random(self.seed)

    # ----- position -----------------------------------------------------------------------
    def set_position(self, fen: str | None, moves: list[str]) -> None:
        """Follow the game incrementally when only new moves were added (the usual case), so
        a long game is not replayed from its start before every move."""
        self.legal = []
        if self.evaluator is None:
            return
        if (self.base is not None and self.board is not None and self.base[0] == fen
                and moves[: len(self.base[1])] == self.base[1]):
            new = moves[len(self.base[1]):]
        else:
            try:
                self.board = self._build(fen)
            except (GameError, TypeError, ValueError) as exc:
                log(f"cannot read position {fen!r}: {exc}; playing random legal moves")
                self.board = None
                self.base = None
                return
            self.keys = [self.evaluator.key(self.board)]
            new = moves
        try:
            for move in new:
                self.board.play(move)
                self.keys.append(self.evaluator.key(self.board))
        except GameError as exc:
            log(f"cannot follow the moves: {exc}; playing random legal moves")
            self.board = None
            self.base = None
            return
        self.base = (fen, list(moves))

    def _build(self, fen: str | None) -> Any:
        rules = get_game(self.game_name)
        try:
            return rules.new(fen, **self.game_options)
        except (GameError, TypeError):
            if not self.game_options:
                raise
            return rules.new(fen)  # options this game does not take: play without them

    # ----- thinking -----------------------------------------------------------------------
    def think(self, go: Go, stop: threading.Event, send: Any, started: float) -> str:
        """Search and return the move text; ``send`` writes ``info`` lines. ``started`` is
        when the ``go`` line arrived: the clock runs from then, not from the search's start."""
        board, ev = self.board, self.evaluator
        if board is None or ev is None:
            return self._fallback()
        moves = board.moves()
        if not moves:
            return self._fallback()
        side = board.side_to_move
        left = go.p1time if side == 0 else go.p2time
        inc = (go.p1inc if side == 0 else go.p2inc) or 0
        self._measure_lag(side, left)
        soft, hard = plan_time(go, side, self.lag_ms)
        depth = min(self.depth, go.depth) if go.depth else self.depth
        limits = Limits(soft_ms=soft, hard_ms=hard, depth=depth, nodes=go.nodes)
        searcher = Searcher(board, ev, self.table, history_keys=self.keys, rng=self.rng,
                            stopped=stop.is_set)

        def report(r: Report) -> None:
            send(self._info(r))

        best, last = searcher.iterate(limits, report, started)
        if left is not None:
            spent = (time.perf_counter() - started) * 1000
            self.last_clock = (side, float(left), spent, inc)
        if best is None:
            return self._fallback()
        text: str = board.format_move(best)
        if self.legal and text not in self.legal:
            log(f"own move {text!r} is not in the legal line; playing a legal one")
            return self._fallback()
        if last is None:  # aborted in the first iteration: say what was done
            elapsed = searcher.elapsed_ms()
            send(format_message(Info(depth=0, nodes=searcher.nodes, time_ms=int(elapsed))))
        return text

    def _measure_lag(self, side: int, left: int | None) -> None:
        """Compare the clock the referee reports with the time this bot measured for its last
        move: the difference is charged outside the search. Keep a decaying maximum, so one
        slow move makes the next ones careful for a while."""
        if left is None or self.last_clock is None or self.last_clock[0] != side:
            return
        _, before, spent, inc = self.last_clock
        charged = before + inc - left
        lag = charged - spent
        if -1000 < lag < 5000:  # a 40/60 period refill shows up as a large negative lag
            self.lag_ms = max(lag, self.lag_ms * 0.9, 0.0)

    def _info(self, r: Report) -> str:
        ms = max(1, int(r.elapsed_ms))
        mate = r.mate_in
        return format_message(Info(
            depth=r.depth,
            score_cp=None if mate is not None else r.score,
            score_mate=mate,
            nodes=r.nodes,
            nps=int(r.nodes * 1000 / ms),
            time_ms=int(r.elapsed_ms),
            pv=self._pv_text(r.pv),
        ))

    def _pv_text(self, pv: list[Any]) -> list[str]:
        board = self.board
        out = []
        try:
            for move in pv:
                out.append(board.format_move(move))
                board.push(move)
        finally:
            for _ in out:
                board.pop()
        return out

    def _fallback(self) -> str:
        if self.legal:
            return self.rng.choice(self.legal)
        if self.board is not None:
            moves = self.board.legal_moves()
            if moves:
                return str(self.rng.choice(moves))
        log("no legal move known; answering (none)")
        return "(none)"


def log(text: str) -> None:
    print(f"alphabeta: {text}", file=sys.stderr, flush=True)


class Bot:
    """The protocol loop: a reader thread feeding a queue, the search in the main thread."""

    def __init__(self, engine: Engine, stdin: Any, stdout: TextIO) -> None:
        self.engine = engine
        self.stdin = stdin
        self.stdout = stdout
        self.lock = threading.Lock()
        self.commands: queue.Queue[tuple[Command | None, float]] = queue.Queue()
        self.searching = threading.Event()
        self.stop = threading.Event()
        self.quitting = threading.Event()

    def send(self, line: str) -> None:
        with self.lock:
            self.stdout.write(line + "\n")
            self.stdout.flush()

    def read(self) -> None:
        """Reader thread: during a search, answer ``isready`` and raise the stop flag here."""
        for raw in self.stdin:
            line = raw.decode("utf-8", "replace").rstrip("\r\n") if isinstance(raw, bytes) else \
                raw.rstrip("\r\n")
            try:
                command = parse_command(line)
            except ProtocolError as exc:
                log(f"ignoring bad command: {exc}")
                continue
            if command is None:
                continue
            if self.searching.is_set():
                if isinstance(command, IsReady):
                    self.send("readyok")
                    continue
                if isinstance(command, Stop):
                    self.stop.set()
                    continue
                if isinstance(command, Quit):
                    self.quitting.set()
                    self.stop.set()
            self.commands.put((command, time.perf_counter()))
        self.quitting.set()
        self.stop.set()
        self.commands.put((None, time.perf_counter()))

    def run(self) -> int:
        threading.Thread(target=self.read, daemon=True).start()
        engine = self.engine
        while True:
            command, arrived = self.commands.get()
            match command:
                case None | Quit():
                    return 0
                case Ugi():
                    self.send(f"id name {engine.name}")
                    self.send("id author arena sample bots")
                    self.send(f"option name Depth type spin default {MAX_DEPTH} min 1 "
                              f"max {MAX_DEPTH}")
                    self.send(f"option name Hash type spin default {DEFAULT_HASH_MB} min 1 "
                              "max 1024")
                    self.send("option name Seed type spin default 0 min 0 max 2147483647")
                    self.send("ugiok")
                case IsReady():
                    self.send("readyok")
                case SetOption(name=name, value=value):
                    engine.set_option(name, value)
                case GameAnnounce(name=game, options=options):
                    engine.announce(game, options)
                case UgiNewGame():
                    engine.new_game()
                    gc.collect()  # between games, off the clock (the collector is off: main)
                case Position(fen=fen, moves=moves):
                    engine.set_position(fen, list(moves))
                case Legal(moves=moves):
                    engine.legal = list(moves)
                case Go() as go:
                    if not self.go(go, arrived):
                        return 0
                case _:
                    pass  # gameover, partie, a stray stop: informative only

    def go(self, go: Go, arrived: float) -> bool:
        """Search, wait for ``stop`` after ``go infinite``, answer; False if quit came."""
        self.stop.clear()
        self.searching.set()
        try:
            move = self.engine.think(go, self.stop, self.send, arrived)
            if go.infinite:
                while not self.stop.wait(0.05):
                    pass
        finally:
            self.searching.clear()
        if self.quitting.is_set():
            return False
        self.send(f"bestmove {move}")
        return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="alphabeta", help="name sent in 'id name'")
    args = parser.parse_args(argv)
    # A collection pass over a full transposition table can take tens of milliseconds: never
    # let one start inside a search or between two moves (the opponent may answer at once and
    # our clock would pay). The search makes no reference cycles worth collecting sooner.
    gc.disable()
    return Bot(Engine(args.name), sys.stdin.buffer, sys.stdout).run()


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # The reader thread may sit in a blocking read of stdin; a normal interpreter shutdown
    # would then abort on the stdin lock. Nothing is left to clean up: leave at once.
    os._exit(code)
