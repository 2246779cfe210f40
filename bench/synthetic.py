"""Random-mover tournaments played in-process with the real rules, as journals for the report.

The report's tests and benchmark need real game records without starting bot processes: every
move here is a legal move chosen by a seeded RNG and played by the rules, the end comes from the
rules' own ``outcome()``/``adjudication()`` or a move cap, and the records are real
:class:`~referee.record.GameRecord` lines. What a process would add is simulated per bot
profile: thinking time and clocks, search info (depth, score, nodes) for bots that "report"
it, and faults (crash, time forfeit, illegal move) at a given rate per move, so that every part
of the report has something to show.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from pathlib import Path

from arena.rundir.journal import write_records
from arena.rundir.layout import RunDir
from protocol.messages import SearchInfo
from referee.games import get_game
from referee.record import (
    GameRecord,
    MoveRecord,
    Termination,
    result_for,
)


@dataclass(frozen=True)
class BotProfile:
    """How a simulated bot behaves (its moves are always uniformly random legal moves)."""

    name: str
    mean_ms: float = 20.0
    """Mean thinking time per move (exponentially distributed)."""
    reports_search: bool = False
    """Whether it sends ``info depth ... score ... nodes``."""
    fault_rate: float = 0.0
    """Chance per move of a fault (crash, time forfeit or illegal move, in turn)."""


DEFAULT_BOTS: tuple[BotProfile, ...] = (
    BotProfile("alpha", mean_ms=35.0, reports_search=True),
    BotProfile("beta", mean_ms=12.0),
    BotProfile("gamma", mean_ms=60.0, reports_search=True, fault_rate=0.004),
    BotProfile("delta", mean_ms=5.0, fault_rate=0.002),
)

_FAULTS = (Termination.CRASH, Termination.TIME_FORFEIT, Termination.ILLEGAL_MOVE)


def play_game(
    game: str,
    p1: BotProfile,
    p2: BotProfile,
    rng: random.Random,
    *,
    game_id: str = "",
    options: dict[str, str] | None = None,
    opening_plies: int = 2,
    max_plies: int = 200,
    base_ms: float = 10_000.0,
    inc_ms: float = 100.0,
    started_at: float = 1_700_000_000.0,
) -> GameRecord:
    """Play one game between two simulated bots with the real rules."""
    options = dict(options or {})
    state = get_game(game).start(**options)
    start_position = state.position()
    bots = (p1, p2)
    clocks = [base_ms, base_ms]
    moves: list[MoveRecord] = []
    opening: list[str] = []
    eval_cp = 0
    termination = Termination.NORMAL
    winner: int | None = None
    reason = ""
    fault_turn = rng.randrange(len(_FAULTS))
    while True:
        outcome = state.outcome()
        if outcome is not None:
            winner, reason = outcome.winner, f"{outcome.reason}: {outcome.detail}"
            break
        adjudged = state.adjudication()
        if adjudged is not None:
            termination = Termination.ADJUDICATION
            winner, reason = adjudged.winner, f"{adjudged.reason}: {adjudged.detail}"
            break
        if len(moves) >= max_plies:
            termination, winner, reason = Termination.ADJUDICATION, None, f"move cap {max_plies}"
            break
        side = state.side_to_move
        legal = state.legal_moves()
        text = rng.choice(legal)
        if len(moves) < opening_plies:
            state.play(text)
            opening.append(text)
            moves.append(MoveRecord(move=text, side=side, elapsed_ms=0.0, book=True))
            continue
        bot = bots[side]
        if bot.fault_rate and rng.random() < bot.fault_rate:
            termination = _FAULTS[fault_turn % len(_FAULTS)]
            winner = 1 - side
            name = f"p{side + 1} ({bot.name})"
            reason = {
                Termination.CRASH: f"{name} exited with status 139 during its move",
                Termination.TIME_FORFEIT: f"{name} lost on time",
                Termination.ILLEGAL_MOVE: f"{name} played illegal move 'zz99'",
            }[termination]
            break
        elapsed = rng.expovariate(1.0 / bot.mean_ms)
        clocks[side] += inc_ms - elapsed
        info = None
        if bot.reports_search:
            eval_cp += rng.randint(-40, 40)
            info = SearchInfo(
                depth=rng.randint(3, 12),
                score_cp=eval_cp if side == 0 else -eval_cp,
                nodes=int(elapsed * rng.randint(800, 1500)),
            )
        state.play(text)
        moves.append(
            MoveRecord(move=text, side=side, elapsed_ms=round(elapsed, 3),
                       clock_ms=round(clocks[side], 3), info=info)
        )
    duration = sum(m.elapsed_ms for m in moves) / 1000.0
    record = GameRecord(
        game=game,
        p1=p1.name,
        p2=p2.name,
        result=result_for(winner),
        termination=termination,
        reason=reason,
        winner=winner,
        id=game_id,
        start_position=start_position,
        opening=opening,
        moves=moves,
        final_position=state.position(),
        time_control=f"{base_ms / 1000:g}+{inc_ms / 1000:g}",
        started_at=started_at,
        ended_at=started_at + duration,
        plies=len(moves),
        options=options,
    )
    if game == "donkan":
        record.score = list(state.score)  # type: ignore[attr-defined]
        record.parties = state.parties  # type: ignore[attr-defined]
    return record


def round_robin(
    game: str,
    bots: tuple[BotProfile, ...] = DEFAULT_BOTS,
    *,
    games_per_pairing: int = 2,
    seed: int = 1,
    options: dict[str, str] | None = None,
    max_plies: int = 200,
) -> list[GameRecord]:
    """Every pair of bots plays ``games_per_pairing`` games, colours alternating."""
    rng = random.Random(seed)
    records = []
    clock = 1_700_000_000.0
    for number, (a, b) in enumerate(itertools.combinations(bots, 2), start=1):
        for g in range(games_per_pairing):
            p1, p2 = (a, b) if g % 2 == 0 else (b, a)
            rec = play_game(game, p1, p2, rng, game_id=f"r1-p{number:02d}-g{g + 1}",
                            options=options, max_plies=max_plies, started_at=clock)
            rec.tags = {"pairing": str(number), "pair": f"{number}-{g // 2}"}
            clock = rec.ended_at + 0.5
            records.append(rec)
    return records


def write_journal(run_dir: Path, records: list[GameRecord]) -> Path:
    """Write the journal of ``run_dir`` (one record per line), as the runner does."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = RunDir(run_dir).journal
    write_records(path, records)
    return path
