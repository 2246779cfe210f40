"""Iterative-deepening alpha-beta (negamax with PVS) over any game of the arena.

Why it is generic: it only uses the Game interface (``moves``/``push``/``pop``/``outcome``)
plus an :class:`~sample_bots.evaluation.Evaluator` for the score, the forcing moves and the
position key, so one search serves all five games. What it has: a transposition table, move
ordering (table move, forcing moves by value, two killers per ply, history), a quiescence
search over forcing moves, repetition = draw for games that have that rule, and limits on time
(a soft budget checked between iterations and a hard deadline checked every few nodes),
depth, nodes and an external stop flag.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from sample_bots.evaluation import WIN, Evaluator

INF = WIN * 2
MAX_DEPTH = 64
QUIESCENCE_PLIES = 8
"""Forcing moves searched beyond the nominal depth, at most."""
CHECK_EVERY = 8
"""Nodes between two looks at the clock and the stop flag (a Dvonn node can cost 0.1 ms)."""
NEXT_ITERATION = 0.5
"""Start another iteration only before this share of the soft budget: each one costs several
times all the previous ones together."""
EXACT, LOWER, UPPER = 0, 1, 2
ENTRY_BYTES = 240
"""Rough memory of one table entry (key, tuple, dict slot), to turn megabytes into entries."""


class SearchAborted(Exception):
    """The hard deadline, the node limit or ``stop`` came in the middle of an iteration."""


@dataclass
class Limits:
    """What bounds one search; None means no bound of that kind."""

    soft_ms: float | None = None
    """The planned time: no new iteration after half of it (``NEXT_ITERATION``)."""
    hard_ms: float | None = None
    """Abort the search at this much time, whatever it is doing."""
    depth: int = MAX_DEPTH
    nodes: int | None = None


@dataclass
class Report:
    """One finished iteration, as the ``info`` line shows it."""

    depth: int
    score: int
    nodes: int
    elapsed_ms: float
    pv: list[Any] = field(default_factory=list)

    @property
    def mate_in(self) -> int | None:
        """Moves to a forced win (negative: to a forced loss), None for an ordinary score."""
        if abs(self.score) < WIN - 1000:
            return None
        plies = WIN - abs(self.score)
        moves = (plies + 1) // 2
        return moves if self.score > 0 else -moves


class TranspositionTable:
    """A bounded dict: key -> (depth, score, flag, move). Cleared when it fills up."""

    def __init__(self, megabytes: int = 16) -> None:
        self.capacity = max(1000, megabytes * 1024 * 1024 // ENTRY_BYTES)
        self.table: dict[Hashable, tuple[int, int, int, Any]] = {}

    def resize(self, megabytes: int) -> None:
        self.capacity = max(1000, megabytes * 1024 * 1024 // ENTRY_BYTES)
        self.table.clear()

    def get(self, key: Hashable) -> tuple[int, int, int, Any] | None:
        return self.table.get(key)

    def put(self, key: Hashable, depth: int, score: int, flag: int, move: Any) -> None:
        table = self.table
        if len(table) >= self.capacity and key not in table:
            table.clear()
        table[key] = (depth, score, flag, move)

    def clear(self) -> None:
        self.table.clear()


class Searcher:
    """One position's search. ``stopped`` is polled (e.g. a threading.Event's ``is_set``)."""

    def __init__(
        self,
        game: Any,
        evaluator: Evaluator,
        table: TranspositionTable,
        *,
        history_keys: list[Hashable] = (),  # type: ignore[assignment]
        rng: random.Random | None = None,
        stopped: Callable[[], bool] = lambda: False,
    ) -> None:
        self.game = game
        self.ev = evaluator
        self.tt = table
        self.rng = rng or random.Random(0)
        self.stopped = stopped
        self.nodes = 0
        self.start = 0.0
        self.hard_deadline = float("inf")
        self.node_limit: int | None = None
        plies = MAX_DEPTH + QUIESCENCE_PLIES + 2
        self.killers: list[list[Any]] = [[None, None] for _ in range(plies)]
        self.history: dict[Hashable, int] = {}
        # Positions already on the board's history (the current one included): reaching one
        # again inside the search is scored as a draw when the game has that rule.
        self.seen: dict[Hashable, int] = {}
        if evaluator.REPETITION:
            for key in history_keys:
                self.seen[key] = self.seen.get(key, 0) + 1
        self.root_best: Any = None
        self.root_score = 0

    # ----- driver -------------------------------------------------------------------------
    def iterate(self, limits: Limits, on_iteration: Callable[[Report], None] | None = None,
                started: float | None = None) -> tuple[Any, Report | None]:
        """Deepen until a limit; return the best move and the last finished iteration.
        ``started`` is when the clock began (``time.perf_counter()``), default now."""
        game = self.game
        self.start = time.perf_counter() if started is None else started
        if limits.hard_ms is not None:
            self.hard_deadline = self.start + limits.hard_ms / 1000
        self.node_limit = limits.nodes
        moves = game.moves()
        if not moves:
            return None, None
        self.rng.shuffle(moves)  # the seed's tie-breaking: equal moves keep this order
        best = moves[0]
        last: Report | None = None
        root_len = len(game.history)
        for depth in range(1, max(1, limits.depth) + 1):
            self.root_best = None
            try:
                score = self.root(moves, depth)
            except SearchAborted:
                while len(game.history) > root_len:
                    game.pop()
                if self.root_best is not None and self.root_best != best:
                    # A move proven better than the last iteration's: play it, and report it
                    # so that the last info line's pv starts with the move played.
                    best = self.root_best
                    last = Report(depth, self.root_score, self.nodes, self.elapsed_ms(),
                                  self.principal_variation(best, depth))
                    if on_iteration is not None:
                        on_iteration(last)
                break
            best = self.root_best if self.root_best is not None else best
            elapsed = (time.perf_counter() - self.start) * 1000
            last = Report(depth, score, self.nodes, elapsed, self.principal_variation(best, depth))
            if on_iteration is not None:
                on_iteration(last)
            if abs(score) >= WIN - 1000 or len(moves) == 1:
                break  # a forced result is known, or there is nothing to choose
            if limits.soft_ms is not None and elapsed >= limits.soft_ms * NEXT_ITERATION:
                break  # the next iteration would most likely run past the budget
            # move the best move first for the next iteration
            moves.remove(best)
            moves.insert(0, best)
        return best, last

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and (
            time.perf_counter() >= self.hard_deadline or self.stopped()
        ):
            raise SearchAborted
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise SearchAborted

    # ----- search -------------------------------------------------------------------------
    def root(self, moves: list[Any], depth: int) -> int:
        alpha, beta = -INF, INF
        game = self.game
        first = True
        for move in moves:
            game.push(move)
            if self.ev.boundary(game):
                score = -self.leaf(1)
            elif first:
                score = -self.negamax(depth - 1, -beta, -alpha, 1)
            else:
                score = -self.negamax(depth - 1, -alpha - 1, -alpha, 1)
                if score > alpha:
                    score = -self.negamax(depth - 1, -beta, -alpha, 1)
            game.pop()
            if first or score > alpha:
                alpha = score
                self.root_best = move
                self.root_score = score
            first = False
        self.tt.put(self.ev.key(game), depth, alpha, EXACT, self.root_best)
        return alpha

    def leaf(self, ply: int) -> int:
        """Score a position where the search stops for a reason other than depth."""
        if not self.game.moves():
            return self.terminal(ply)
        return self.ev.evaluate(self.game)

    def terminal(self, ply: int) -> int:
        outcome = self.game.outcome()
        if outcome is None or outcome.winner is None:
            return 0
        return WIN - ply if outcome.winner == self.game.side_to_move else -(WIN - ply)

    def negamax(self, depth: int, alpha: float, beta: float, ply: int) -> int:
        self._tick()
        game = self.game
        ev = self.ev
        key = ev.key(game)
        seen = self.seen
        if ev.REPETITION and key in seen:
            return 0
        moves = game.moves()
        if not moves:
            return self.terminal(ply)
        if depth <= 0:
            return self.quiesce(alpha, beta, ply, QUIESCENCE_PLIES, moves)
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_score, e_flag, tt_move = entry
            if e_depth >= depth:
                score = _from_tt(e_score, ply)
                if e_flag == EXACT:
                    return score
                if e_flag == LOWER and score >= beta:
                    return score
                if e_flag == UPPER and score <= alpha:
                    return score
        ordered = self.order(moves, tt_move, ply)
        alpha_orig = alpha
        best = -INF
        best_move = ordered[0]
        if ev.REPETITION:
            seen[key] = 1
        try:
            first = True
            for move in ordered:
                game.push(move)
                if ev.boundary(game):
                    score = -self.leaf(ply + 1)
                elif first:
                    score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
                else:
                    score = -self.negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
                game.pop()
                first = False
                if score > best:
                    best = score
                    best_move = move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            self._reward(move, depth, ply)
                            break
        finally:
            if ev.REPETITION:
                del seen[key]
        flag = UPPER if best <= alpha_orig else LOWER if best >= beta else EXACT
        self.tt.put(key, depth, _to_tt(int(best), ply), flag, best_move)
        return int(best)

    def quiesce(self, alpha: float, beta: float, ply: int, left: int, moves: list[Any]) -> int:
        """Forcing moves only, until the position is quiet; stand pat unless captures are
        compulsory (draughts), where the side to move has no choice but to capture."""
        game = self.game
        ev = self.ev
        forced = ev.FORCED_CAPTURES and ev.forcing_value(game, moves[0]) > 0
        if forced and left > 0:
            best = -INF
            candidates = moves
        else:
            stand = ev.evaluate(game)
            if left <= 0 or stand >= beta:
                return stand
            best = stand
            if stand > alpha:
                alpha = stand
            scored = [(ev.forcing_value(game, m), i, m) for i, m in enumerate(moves)]
            scored = [s for s in scored if s[0] > 0]
            if not scored:
                return stand
            scored.sort(key=lambda s: (-s[0], s[1]))
            candidates = [m for _, _, m in scored]
        for move in candidates:
            self._tick()
            game.push(move)
            if ev.boundary(game):
                score = -self.leaf(ply + 1)
            else:
                child = game.moves()
                if not child:
                    score = -self.terminal(ply + 1)
                else:
                    score = -self.quiesce(-beta, -alpha, ply + 1, left - 1, child)
            game.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return int(best)

    # ----- ordering -----------------------------------------------------------------------
    def order(self, moves: list[Any], tt_move: Any, ply: int) -> list[Any]:
        ev = self.ev
        game = self.game
        killers = self.killers[ply] if ply < len(self.killers) else [None, None]
        history = self.history
        mk = ev.move_key

        def rank(move: Any) -> int:
            if move == tt_move:
                return 1 << 40
            forcing = ev.forcing_value(game, move)
            if forcing:
                return (1 << 30) + forcing
            if move == killers[0]:
                return 1 << 29
            if move == killers[1]:
                return (1 << 29) - 1
            return history.get(mk(move), 0)

        return sorted(moves, key=rank, reverse=True)

    def _reward(self, move: Any, depth: int, ply: int) -> None:
        if self.ev.forcing_value(self.game, move):
            return
        if ply < len(self.killers):
            k = self.killers[ply]
            if k[0] != move:
                k[1] = k[0]
                k[0] = move
        key = self.ev.move_key(move)
        self.history[key] = min(self.history.get(key, 0) + depth * depth, 1 << 28)

    # ----- principal variation ------------------------------------------------------------
    def principal_variation(self, first: Any, depth: int) -> list[Any]:
        """The best move then the table's moves, each checked legal, without repeats."""
        game = self.game
        pv = [first]
        game.push(first)
        seen = {self.ev.key(game)}
        try:
            while len(pv) < depth:
                if self.ev.boundary(game):
                    break
                entry = self.tt.get(self.ev.key(game))
                if entry is None or entry[3] is None or entry[3] not in game.moves():
                    break
                game.push(entry[3])
                pv.append(entry[3])
                key = self.ev.key(game)
                if key in seen:
                    break
                seen.add(key)
        finally:
            for _ in pv:
                game.pop()
        return pv


def _to_tt(score: int, ply: int) -> int:
    """Win scores are stored relative to the node, so they stay right at another ply."""
    if score >= WIN - 1000:
        return score + ply
    if score <= -(WIN - 1000):
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= WIN - 1000:
        return score - ply
    if score <= -(WIN - 1000):
        return score + ply
    return score
