"""Bitboard move generation and perft for international draughts: the fast core of draughts.py.

Why a separate module: the rules class (``draughts.py``) speaks squares 1-50 and notation; this
module speaks Python-int bitboards only, so its hot loops stay free of objects and conversions.

Layout: square ``s`` (1-50, PDN numbering, square 1 top-left from white's view) lives at bit
``s - 1 + (s - 1) // 10``. One ghost bit after every two rows (bits 10, 21, 32, 43) makes the four
diagonal steps constant shifts: -6 and -5 go up the board (towards square 1, white's forward),
+5 and +6 go down. A step that leaves the board lands on a ghost bit or outside bits 0-53, and
every target is masked with ``BOARD`` (through the empty-squares mask), so no wrap-around check
is needed anywhere.

A position here is ``(own, opp, kings)``: the pieces of the side to move, the other side's, and
the kings of both; plus ``white`` (True when white is to move). Moves are tuples
``(from_mask, to_mask, captured_mask, path)`` where ``path`` is the tuple of masks of the start
square and every landing square (one representative path per distinct move).
"""

from __future__ import annotations

from typing import Final

SQUARES: Final = range(1, 51)

SQ_TO_BIT: Final[dict[int, int]] = {s: s - 1 + (s - 1) // 10 for s in SQUARES}
MASK_TO_SQ: Final[dict[int, int]] = {1 << b: s for s, b in SQ_TO_BIT.items()}
SQ_TO_MASK: Final[dict[int, int]] = {s: 1 << b for s, b in SQ_TO_BIT.items()}

BOARD: Final[int] = sum(SQ_TO_MASK.values())
WHITE_PROMO: Final[int] = sum(SQ_TO_MASK[s] for s in range(1, 6))
"""White men promote on squares 1-5 (black's back row)."""
BLACK_PROMO: Final[int] = sum(SQ_TO_MASK[s] for s in range(46, 51))

# Directions as bit steps: up-left, up-right, down-left, down-right. Opposite of i is 3 - i.
STEPS: Final = (-6, -5, 5, 6)


def _row_col(square: int) -> tuple[int, int]:
    """Row 0 (black's back row) to 9 and column 0-9 of a square, as on a diagram from white."""
    row = (square - 1) // 5
    col = 2 * ((square - 1) % 5) + (1 if row % 2 == 0 else 0)
    return row, col


def _square_at(row: int, col: int) -> int | None:
    if not (0 <= row < 10 and 0 <= col < 10) or (row + col) % 2 == 0:
        return None
    return row * 5 + col // 2 + 1


ROW_COL: Final[dict[int, tuple[int, int]]] = {s: _row_col(s) for s in SQUARES}
_DELTAS: Final = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # matches STEPS order


def _build_rays() -> dict[int, tuple[tuple[int, ...], ...]]:
    rays: dict[int, tuple[tuple[int, ...], ...]] = {}
    for s in SQUARES:
        row, col = ROW_COL[s]
        per_dir = []
        for dr, dc in _DELTAS:
            ray = []
            r, c = row + dr, col + dc
            while (t := _square_at(r, c)) is not None:
                ray.append(SQ_TO_MASK[t])
                r, c = r + dr, c + dc
            per_dir.append(tuple(ray))
        rays[SQ_TO_MASK[s]] = tuple(per_dir)
    return rays


RAYS: Final = _build_rays()
"""mask -> four rays (one per direction in ``STEPS`` order), each the masks outward in order."""

MAN_JUMPS: Final[dict[int, tuple[tuple[int, int], ...]]] = {
    m: tuple((ray[0], ray[1]) for ray in rays if len(ray) >= 2) for m, rays in RAYS.items()
}
"""mask -> (jumped-square mask, landing mask) for each direction a man can capture in."""

# Sanity of the shift layout: the first step of every ray is the constant shift.
for _m, _rays in RAYS.items():
    for _i, _ray in enumerate(_rays):
        if _ray:
            _step = STEPS[_i]
            assert _ray[0] == (_m << _step if _step > 0 else _m >> -_step)

Move = tuple[int, int, int, tuple[int, ...]]


# ----- captures ------------------------------------------------------------------------------


def captures(own: int, opp: int, kings: int) -> list[Move]:
    """Every distinct maximal capture (majority rule), or [] when no capture exists.

    Turkish strike: captured pieces stay on the board (they block, and ``avail`` stops them
    being jumped twice) until the sequence ends. The moving piece's start square counts as
    empty, so a piece may pass it or come back to it.
    """
    occupied = own | opp
    best = 1
    found: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def man(sq: int, start: int, captured: int, avail: int, empty: int, path: tuple[int, ...],
            count: int) -> None:
        nonlocal best
        extended = False
        for mid, land in MAN_JUMPS[sq]:
            if mid & avail and land & empty:
                extended = True
                man(land, start, captured | mid, avail ^ mid, empty, path + (land,), count + 1)
        if not extended and count >= best:
            if count > best:
                best = count
                found.clear()
            key = (start, sq, captured)
            if key not in found:
                found[key] = path

    def king(sq: int, start: int, captured: int, avail: int, empty: int, path: tuple[int, ...],
             count: int, came: int, last: bool) -> None:
        # came: direction index of the capture that brought us here (-1 at the start). From a
        # landing square that is not the last empty one on that line, going on along the same
        # line gives the same moves as from the last one, so only the last one does it.
        nonlocal best
        extended = False
        rays = RAYS[sq]
        for d in range(4):
            if d == 3 - came or (d == came and not last):
                continue
            ray = rays[d]
            n = len(ray)
            i = 0
            while i < n and ray[i] & empty:
                i += 1
            if i + 1 >= n:
                continue
            victim = ray[i]
            if not victim & avail or not ray[i + 1] & empty:
                continue
            extended = True
            cap = captured | victim
            av = avail ^ victim
            j = i + 1
            while j < n and ray[j] & empty:
                j += 1
            for k in range(i + 1, j):
                land = ray[k]
                king(land, start, cap, av, empty, path + (land,), count + 1, d, k == j - 1)
        if not extended and count >= best:
            if count > best:
                best = count
                found.clear()
            key = (start, sq, captured)
            if key not in found:
                found[key] = path

    empty0 = BOARD & ~occupied
    # Men: only those with an adjacent enemy and an empty square behind it can start.
    men = own & ~kings
    for step in (5, 6):
        starts = ((((men << step) & opp) << step) & empty0) >> (2 * step)
        starts |= ((((men >> step) & opp) >> step) & empty0) << (2 * step)
        while starts:
            low = starts & -starts
            starts ^= low
            if low & men:
                men ^= low  # each man searched once
                man(low, low, 0, opp, empty0 | low, (low,), 0)
    for_kings = own & kings
    while for_kings:
        low = for_kings & -for_kings
        for_kings ^= low
        king(low, low, 0, opp, empty0 | low, (low,), 0, -1, True)
    if not found or best == 0:
        return []
    return [(k[0], k[1], k[2], p) for k, p in found.items()]


# ----- quiet moves ---------------------------------------------------------------------------


def quiet_moves(own: int, opp: int, kings: int, white: bool) -> list[Move]:
    """Every non-capturing move (call only when ``captures`` found none)."""
    empty = BOARD & ~(own | opp)
    men = own & ~kings
    out: list[Move] = []
    if white:
        for step in (6, 5):
            targets = (men >> step) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                src = low << step
                out.append((src, low, 0, (src, low)))
    else:
        for step in (5, 6):
            targets = (men << step) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                src = low >> step
                out.append((src, low, 0, (src, low)))
    ks = own & kings
    while ks:
        low = ks & -ks
        ks ^= low
        for ray in RAYS[low]:
            for to in ray:
                if not to & empty:
                    break
                out.append((low, to, 0, (low, to)))
    return out


def legal_moves(own: int, opp: int, kings: int, white: bool) -> list[Move]:
    """All legal moves: the maximal captures if any capture exists, else the quiet moves."""
    return captures(own, opp, kings) or quiet_moves(own, opp, kings, white)


def apply(own: int, opp: int, kings: int, white: bool, move: Move) -> tuple[int, int, int]:
    """The position after ``move``, still from the mover's view: ``(own, opp, kings)``."""
    src, dst, cap = move[0], move[1], move[2]
    if src & kings:
        kings ^= src ^ dst  # src == dst (a round trip) leaves kings unchanged, as it should
    elif dst & (WHITE_PROMO if white else BLACK_PROMO):
        kings |= dst
    return own ^ src ^ dst, opp & ~cap, kings & ~cap


# ----- perft ---------------------------------------------------------------------------------


def _count(own: int, opp: int, kings: int, white: bool) -> int:
    """Number of legal moves, without building quiet moves (perft's bulk count at depth 1)."""
    empty = BOARD & ~(own | opp)
    # Any capture at all? Adjacent jumps (men and kings alike), then kings at distance.
    for step in (5, 6):
        if (((own << step) & opp) << step) & empty or (((own >> step) & opp) >> step) & empty:
            return len(captures(own, opp, kings))
    ks = own & kings
    total = 0
    if ks:
        for step in (5, 6):
            for up in (True, False):
                reach = ks
                x = ks
                while x:
                    x = (x >> step if up else x << step) & empty
                    total += x.bit_count()
                    reach |= x
                if (((reach >> step) & opp) >> step if up else ((reach << step) & opp) << step) \
                        & empty:
                    return len(captures(own, opp, kings))
    men = own & ~kings
    if white:
        total += ((men >> 5) & empty).bit_count() + ((men >> 6) & empty).bit_count()
    else:
        total += ((men << 5) & empty).bit_count() + ((men << 6) & empty).bit_count()
    return total


def _children(own: int, opp: int, kings: int, white: bool) -> list[tuple[int, int, int]]:
    """Positions after each legal move, as ``(own, opp, kings)`` from the mover's view."""
    caps = captures(own, opp, kings)
    if caps:
        out = []
        promo = WHITE_PROMO if white else BLACK_PROMO
        for src, dst, cap, _ in caps:
            k = kings & ~cap
            if src & kings:
                k ^= src ^ dst
            elif dst & promo:
                k |= dst
            out.append((own ^ src ^ dst, opp & ~cap, k))
        return out
    empty = BOARD & ~(own | opp)
    men = own & ~kings
    out = []
    if white:
        for step in (6, 5):
            targets = (men >> step) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                k = kings | low if low & WHITE_PROMO else kings
                out.append((own ^ low ^ (low << step), opp, k))
    else:
        for step in (5, 6):
            targets = (men << step) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                k = kings | low if low & BLACK_PROMO else kings
                out.append((own ^ low ^ (low >> step), opp, k))
    ks = own & kings
    while ks:
        low = ks & -ks
        ks ^= low
        rest = own ^ low
        kl = kings ^ low
        for ray in RAYS[low]:
            for to in ray:
                if not to & empty:
                    break
                out.append((rest | to, opp, kl | to))
    return out


def perft(own: int, opp: int, kings: int, white: bool, depth: int) -> int:
    """Leaves ``depth`` moves deep (a position without moves has no children)."""
    if depth <= 0:
        return 1
    if depth == 1:
        return _count(own, opp, kings, white)
    total = 0
    d = depth - 1
    if d == 1:
        for o, p, k in _children(own, opp, kings, white):
            total += _count(p, o, k, not white)
    else:
        for o, p, k in _children(own, opp, kings, white):
            total += perft(p, o, k, not white, d)
    return total
