"""Plain UCI, so that engines such as Fairy-Stockfish play unchanged.

``uci``/``uciok``, ``UCI_Variant`` then ``ucinewgame``/``isready`` for each game, ``go wtime
btime winc binc``; no ``legal`` line, no ``gameover``; unknown lines are noise (engines print
banners and ``info string`` chatter).

The position is sent as cutechess does, the start plus every move (``position startpos moves
...`` or ``position fen <start> moves ...``), so the engine sees repetitions coming, with one
exception. A UCI engine's rules may be stricter than ours: Fairy-Stockfish's dobutsu treats the
lion like a chess king and rejects a move that leaves it attacked, which our rules allow (the
lion is simply captured). An engine that rejects a move in ``position ... moves`` stops reading
the list there and silently plays on in the wrong position. Such a move is always followed by a
position where the side to move can win at once (capture the lion), so wherever that is true
the dialect resynchronises: from then on it sends ``position fen <that position> moves <the
moves since>``. Game-neutral and cheap (it looks only at positions it has not looked at), and
what it loses is history from before a decisive blunder, which a repetition can no longer need.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from protocol.lines import format_message, parse_reply
from protocol.messages import Go, Reply, SetOption
from referee.connection import BotConnection, Turn, option_text


def format_go(go: Go) -> str:
    """``go`` in UCI words: p1/p2 are white/black. Written out field by field (a table of
    names read with ``getattr`` cost as much again): it is built for every move."""
    parts = ["go"]
    if go.p1time is not None:
        parts.append(f"wtime {go.p1time}")
    if go.p2time is not None:
        parts.append(f"btime {go.p2time}")
    if go.p1inc is not None:
        parts.append(f"winc {go.p1inc}")
    if go.p2inc is not None:
        parts.append(f"binc {go.p2inc}")
    if go.movestogo is not None:
        parts.append(f"movestogo {go.movestogo}")
    if go.movetime is not None:
        parts.append(f"movetime {go.movetime}")
    if go.depth is not None:
        parts.append(f"depth {go.depth}")
    if go.nodes is not None:
        parts.append(f"nodes {go.nodes}")
    if go.infinite:
        parts.append("infinite")
    return " ".join(parts)


def can_win_at_once(board: Any) -> bool:
    """Does the side to move have a move that ends the game in its favour right away? (The
    game answers: :meth:`referee.games.base.Game.wins_at_once`, fast where it matters.)"""
    return bool(board.wins_at_once())


class UciConnection(BotConnection):
    dialect = "uci"
    strict = False
    deferred_info: ClassVar[str | None] = "info"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reset_sync()
        self._variant: str | None = None
        """The ``UCI_Variant`` this process was last given: options stay set across
        ``ucinewgame``, so it is sent again only when it changes."""

    def _reset_sync(self) -> None:
        self._sync_ply = 0
        """Moves before the position sent as the base of ``position`` (0: the start)."""
        self._sync_fen: str | None = None
        self._checked_ply = 0
        """The last ply whose position has been looked at for :func:`can_win_at_once`."""

    def hello_lines(self) -> list[str]:
        return ["uci"]

    def option_lines(self, options: Mapping[str, object]) -> list[str]:
        return [format_message(SetOption(name=k, value=option_text(v)))
                for k, v in options.items()]

    def sync_lines(self) -> list[str]:
        return ["isready"]

    def new_game_lines(self, game: str, game_options: Mapping[str, str]) -> list[str]:
        self._reset_sync()
        variant = self.spec.variant or game
        if variant == self._variant:  # Fairy-Stockfish reloads the variant and answers with
            return ["ucinewgame", "isready"]  # an `info string` line: a wake a game for naught
        self._variant = variant
        return [format_message(SetOption(name="UCI_Variant", value=variant)), "ucinewgame",
                "isready"]

    def position_line(self, turn: Turn) -> str:
        """``position`` with the moves since the start, or since the last resynchronisation."""
        self._look_for_sync(turn)
        if self._sync_fen is None:
            head = "position startpos" if turn.start is None else f"position fen {turn.start}"
        else:
            head = f"position fen {self._sync_fen}"
        moves = turn.played[self._sync_ply:]
        return head + " moves " + " ".join(moves) if moves else head

    def _look_for_sync(self, turn: Turn) -> None:
        """Move the sync point to the newest position not looked at before where the side to
        move can win at once (the position after ply 0 is the start itself: never a sync)."""
        ply = len(turn.played)
        if ply < self._checked_ply:  # a rewound game: look again from its start
            self._reset_sync()
        lowest = max(self._checked_ply + 1, self._sync_ply + 1, 1)
        known = turn.wins_at_once  # shared by both bots' turns: each position looked at once
        probe, probe_ply = turn.board, ply  # copied before the first pop: the turn's is read only

        def board_at(at: int) -> Any:
            nonlocal probe, probe_ply
            if at == ply:
                return turn.board
            if probe is turn.board:
                probe = probe.copy()
            while probe_ply > at:
                probe.pop()
                probe_ply -= 1
            return probe

        for at in range(ply, lowest - 1, -1):
            wins = known.get(at)
            if wins is None:
                wins = known[at] = can_win_at_once(board_at(at))
            if wins:
                self._sync_ply, self._sync_fen = at, board_at(at).position()
                break
        self._checked_ply = ply

    def search_lines(self, turn: Turn) -> list[str]:
        return [self.position_line(turn), format_go(turn.go)]

    def parse(self, line: str) -> Reply | None:
        return parse_reply(line)

    def move_text(self, text: str, turn: Turn | None) -> str:
        """Fairy-Stockfish sometimes leaves out the ``+`` of a mandatory promotion (dobutsu
        chick captures on the far rank); the move itself is unambiguous."""
        if turn is not None and text not in turn.legal and text + "+" in turn.legal:
            return text + "+"
        return text
