"""Candidate openings for a new book: varied play from the start, one per distinct position.

``arena openings make`` scores candidates with an engine and keeps the balanced ones
(:mod:`arena.openings.maker`); this module only draws them, with the rules and nothing else.
Candidate ``i`` is ``plies`` random legal moves drawn from its own generator, seeded by the
book's seed and ``i``, so the sequence is the same on every machine and on every resume,
whatever order the engines finish in. A draw is dropped when its position is one an earlier
candidate reached (the rules' repetition key: board, hands, side to move; not the move
counters), so every opening of a book is a different position.

A candidate never passes through a finished position nor, in a game of parties (Donkan),
through the end of a partie: a book opening that scores a point before the bots play is not
an opening. Its last position must also leave the side to move no win at once (a lion or
king hanging): such a candidate is lopsided whatever the engine says, and a UCI engine with
stricter rules than ours (Fairy-Stockfish's dobutsu) would not even read the moves.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator, Mapping
from typing import Any, Final

import msgspec

from referee.games import Game, get_game

DRAW_ATTEMPTS: Final = 20
"""Dead ends (every move ends the game) a draw may meet before that candidate is given up."""


class Candidate(msgspec.Struct, frozen=True):
    """One candidate opening: its number in the book's sequence and its moves from the start."""

    index: int
    """Its place in the seed's sequence (0-based): the same on every run and resume."""
    moves: tuple[str, ...]
    position: str
    """The position text after the moves (what an EPD book writes)."""


def candidates(game: str, options: Mapping[str, str], plies: int, seed: int,
               ) -> Iterator[Candidate]:
    """The candidates of ``game`` (``options``: its game options), ``plies`` moves each, in
    the sequence ``seed`` decides, each a position no earlier candidate reached. The caller
    stops when it has enough; the sequence itself ends only once :data:`STALE` draws in a
    row found no new position (the game has no more that many plies deep)."""
    if plies < 1:
        raise ValueError(f"an opening needs at least one ply, got {plies}")
    rules = get_game(game)
    seen: set[Hashable] = set()
    stale = 0
    index = 0
    while stale < STALE:
        drawn = _draw(rules, options, plies, random.Random(f"{seed}:{index}"))
        if drawn is not None:
            board, moves = drawn
            key = board.repetition_key()
            if key not in seen:
                seen.add(key)
                stale = 0
                yield Candidate(index=index, moves=moves, position=board.position())
            else:
                stale += 1
        else:
            stale += 1
        index += 1


STALE: Final = 20_000
"""Draws in a row that found no new position, after which the game is taken to have no more
at that depth (Dobutsu has 425 positions 4 plies deep): the sequence ends."""


def _draw(rules: type[Game[Any]], options: Mapping[str, str], plies: int,
          rng: random.Random) -> tuple[Game[Any], tuple[str, ...]] | None:
    """``plies`` random moves that keep the game (and its partie) going and leave no win at
    once, or None when ``DRAW_ATTEMPTS`` tries met dead ends or such a last position."""
    for _ in range(DRAW_ATTEMPTS):
        board = rules.start(**options)
        parties = _parties(board)
        played: list[str] = []
        while len(played) < plies:
            choices = board.moves()
            rng.shuffle(choices)
            for move in choices:
                text = board.format_move(move)  # before the move: how it is written here
                board.push(move)
                if not board.is_over() and _parties(board) == parties:
                    played.append(text)
                    break
                board.pop()
            else:
                break  # every move ends the game or the partie: draw again
        if len(played) == plies and not board.wins_at_once():
            return board, tuple(played)
    return None


def _parties(board: Game[Any]) -> int:
    """Parties finished so far (0 for games not played in parties)."""
    state = board.round_state()
    return 0 if state is None else len(state.parties)
