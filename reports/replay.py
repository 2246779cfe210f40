"""Replaying a game record with the rules into compact per-ply board pictures for the viewer.

Each game becomes a small JSON document: the first position in full, every later position as
the cells that changed (a draughts move touches 2-20 cells of 100), hands only when they
change, captions as indices into a table of distinct captions (only when they change), and
one compact row per move (text, side, time, clock, evaluation). The viewer's JavaScript
rebuilds the positions from these deltas.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.games import BoardView, CellView, Game, GameError, get_game
from referee.record import GameRecord, MoveRecord

CellState = tuple[str, int, str, str]
"""(piece, side or -1, terrain, extra) of one cell."""


@dataclass
class Replay:
    """The viewer document of one game, plus what the replay found."""

    doc: dict[str, Any]
    final_position: str
    error: str = ""
    """Why the replay stopped early ("" when every move was legal)."""
    views: list[BoardView] = field(default_factory=list)


def _state(cell: CellView) -> CellState:
    return (cell.piece, -1 if cell.side is None else cell.side, cell.terrain, cell.extra)


def _options(options: dict[str, str]) -> dict[str, Any]:
    """Game options as the journal keeps them (strings) turned into numbers where they are."""
    out: dict[str, Any] = {}
    for name, value in options.items():
        try:
            out[name] = int(value)
        except (TypeError, ValueError):
            out[name] = value
    return out


def start_game(rec: GameRecord) -> Game:  # type: ignore[type-arg]
    """The rules object at the record's start position, with its options."""
    cls = get_game(rec.game)
    start = rec.start_position or None
    try:
        return cls.new(start, **rec.options)
    except (TypeError, GameError):
        if not rec.options:
            raise
        return cls.new(start, **_options(rec.options))


def _eval(move: MoveRecord) -> str:
    info = move.info
    if info is None:
        return ""
    if info.score_mate is not None:
        return f"#{info.score_mate}"
    if info.score_cp is not None:
        return f"{info.score_cp / 100:+.2f}"
    return ""


def move_row(move: MoveRecord) -> list[Any]:
    """[text, side, ms, clock ms, depth, eval, nodes, book] with nulls where unknown."""
    info = move.info
    return [
        move.move,
        move.side,
        round(move.elapsed_ms),
        None if move.clock_ms is None else round(move.clock_ms),
        None if info is None else info.depth,
        _eval(move) or None,
        None if info is None else info.nodes,
        1 if move.book else 0,
    ]


def played_moves(rec: GameRecord) -> list[MoveRecord]:
    """Every move from the start position: the opening first unless the record's move list
    already begins with it (as book moves)."""
    opening = rec.opening
    moves = list(rec.moves)
    if not opening:
        return moves
    head = [m.move for m in moves[: len(opening)]]
    if head == opening and all(m.book for m in moves[: len(opening)]):
        return moves
    book = [
        MoveRecord(move=text, side=-1, elapsed_ms=0.0, book=True) for text in opening
    ]
    return book + moves


def replay(rec: GameRecord, keep_views: bool = False) -> Replay:
    """Play the record's moves with the rules, picturing the position after each one."""
    game = start_game(rec)
    first = game.board_view()
    prev = first.cells
    hands = first.hands
    frames: list[dict[str, Any]] = []
    rows: list[list[Any]] = []
    views = [first] if keep_views else []
    error = ""
    captions = {first.caption: 0}
    last_caption = 0
    for ply, move in enumerate(played_moves(rec)):
        side = game.side_to_move
        try:
            game.play(move.move)
        except GameError as exc:
            error = f"ply {ply + 1}: {exc}"
            break
        row = move_row(move)
        if row[1] == -1:
            row[1] = side
        rows.append(row)
        view = game.board_view()
        if keep_views:
            views.append(view)
        cells = view.cells
        # CellView structs compare field by field in C: only changed cells cost Python time.
        changed = [i for i, (a, b) in enumerate(zip(cells, prev, strict=False)) if a != b]
        frame: dict[str, Any]
        if len(cells) != len(prev) or any(
            (cells[i].x, cells[i].y) != (prev[i].x, prev[i].y) for i in changed
        ):
            frame = {"f": [[c.x, c.y, *_state(c)] for c in cells]}
        else:
            frame = {"d": [[i, *_state(cells[i])] for i in changed]}
        prev = cells
        if view.hands != hands:
            hands = view.hands
            frame["h"] = [list(h) for h in hands]
        caption = captions.setdefault(view.caption, len(captions))
        if caption != last_caption:
            frame["c"] = last_caption = caption
        frames.append(frame)
    doc: dict[str, Any] = {
        "game": rec.game,
        "shape": first.shape,
        "columns": first.columns,
        "rows": first.rows,
        "cells": [[c.x, c.y, *_state(c)] for c in first.cells],
        "hands": [list(h) for h in first.hands],
        "captions": list(captions),
        "sides": list(type(game).SIDE_LABELS),
        "frames": frames,
        "moves": rows,
    }
    if first.names:  # square numbers (draughts): drawn on the board, as the moves use them
        doc["names"] = list(first.names)
    if error:
        doc["error"] = error
    return Replay(doc=doc, final_position=game.position(), error=error, views=views)


def apply_frames(doc: dict[str, Any]) -> list[list[tuple[int, int, str, int, str, str]]]:
    """Rebuild every position's cells from a viewer document, as the viewer's JS does.

    Used by tests to check that the compact encoding round-trips to the rules' pictures.
    """
    cells = [tuple(c) for c in doc["cells"]]
    out = [list(cells)]
    for frame in doc["frames"]:
        if "f" in frame:
            cells = [tuple(c) for c in frame["f"]]
        else:
            cells = list(cells)
            for i, *state in frame["d"]:
                x, y = cells[i][0], cells[i][1]
                cells[i] = (x, y, *state)
        out.append(list(cells))
    return out  # type: ignore[return-value]
