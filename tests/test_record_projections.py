"""The report's fast decoders are projections of the game record: every field they decode has
the record's name, type (constraints included) and default, so every valid record decodes and
no invalid one does. Changing one side only fails here.

The full types are found by walking ``GameRecord``'s own field types (its moves, a move's
info), never by their class names: they may be renamed."""

from __future__ import annotations

import msgspec
import msgspec.inspect as mi
import pytest

from referee.record import GameRecord
from reports.journal_summary import _Info, _Move, _Record

PROJECTIONS = (_Record, _Move, _Info)
"""Every projection the report decodes a journal with."""


def struct_info(cls: type) -> mi.StructType:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType), info
    return info


def compare(projection: type, full: type) -> tuple[list[str], dict[type, type]]:
    """What differs between ``projection``'s fields and the same fields of ``full``, and which
    full struct each projection struct stood for: nested structs are walked too, each paired
    with the full struct in its place."""
    problems: list[str] = []
    pairs: dict[type, type] = {}
    todo: list[tuple[type, mi.StructType]] = [(projection, struct_info(full))]
    while todo:
        part, whole = todo.pop()
        if part in pairs:
            if pairs[part] is not whole.cls:
                problems.append(f"{part.__name__} stands for both {pairs[part]} and {whole.cls}")
            continue
        pairs[part] = whole.cls
        fields = {f.name: f for f in whole.fields}
        for mine in struct_info(part).fields:
            where = f"{part.__name__}.{mine.name}"
            theirs = fields.get(mine.name)
            if theirs is None:
                problems.append(f"{where}: no such field in {whole.cls.__name__}")
                continue
            for attr in ("encode_name", "required", "default", "default_factory"):
                if getattr(mine, attr) != getattr(theirs, attr):
                    problems.append(f"{where}: {attr} {getattr(mine, attr)!r} != "
                                    f"{getattr(theirs, attr)!r}")
            nested: list[tuple[type, mi.StructType]] = []
            if not same_type(mine.type, theirs.type, nested):
                problems.append(f"{where}: type {mine.type} != {theirs.type}")
            todo.extend(nested)
    return problems, pairs


def same_type(mine: object, theirs: object, nested: list[tuple[type, mi.StructType]]) -> bool:
    """Whether two msgspec type descriptions agree, a struct in ``mine`` standing for the one
    in ``theirs`` at the same place (collected in ``nested`` to be compared field by field)."""
    if isinstance(mine, mi.StructType):
        if not isinstance(theirs, mi.StructType):
            return False
        nested.append((mine.cls, theirs))
        return True
    if isinstance(mine, tuple):
        return (isinstance(theirs, tuple) and len(mine) == len(theirs)
                and all(same_type(a, b, nested) for a, b in zip(mine, theirs, strict=True)))
    if isinstance(mine, mi.Type):
        if type(mine) is not type(theirs):
            return False
        return all(same_type(getattr(mine, name), getattr(theirs, name), nested)
                   for name in mine.__struct_fields__)
    return mine == theirs


def test_every_projection_matches_the_record() -> None:
    problems, pairs = compare(_Record, GameRecord)
    assert problems == []
    # Each decoder is reached (a new one must be too); a record type decoded whole (a Donkan
    # round's parties) stands for itself and is no projection.
    assert {part for part, whole in pairs.items() if part is not whole} == set(PROJECTIONS)


# A projection that drifted from the record in one way each: the check must catch it.
class _WrongType(msgspec.Struct):
    game: str
    p1: str
    p2: str
    result: str
    termination: str
    reason: str
    plies: float = 0.0


class _WrongDefault(msgspec.Struct):
    game: str
    p1: str
    p2: str
    result: str
    termination: str
    reason: str
    round: int = 0


class _LooseMove(msgspec.Struct):
    side: int
    elapsed_ms: float


class _WithLooseMove(msgspec.Struct):
    game: str
    moves: list[_LooseMove] = []


class _Unknown(msgspec.Struct):
    game: str
    nodes: int = 0


@pytest.mark.parametrize(("projection", "complaint"), [
    (_WrongType, "_WrongType.termination: type"),
    (_WrongType, "_WrongType.plies: type"),
    (_WrongDefault, "_WrongDefault.round: default 0 != 1"),
    (_WithLooseMove, "_LooseMove.side: type"),
    (_Unknown, "_Unknown.nodes: no such field in GameRecord"),
])
def test_a_projection_that_drifts_is_caught(projection: type, complaint: str) -> None:
    problems, _ = compare(projection, GameRecord)
    assert any(p.startswith(complaint) for p in problems), problems
