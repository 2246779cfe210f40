"""A bot's protocol conformance: numbered steps, each one request with a clear expectation,
and a typed :class:`CheckResult` (which step failed, why, and every line of the check's log).

Like fastchess's ``--compliance``: on the first failure the bot's recent conversation and the
tail of its stderr go to the log and the remaining steps are skipped; when every step passes,
what the bot wrote to stderr goes to the log too (its first and last lines): an author's own
sanity warnings must not go unseen because the protocol was right. ``arena check-bot``
(:mod:`arena.commands.check_bot`) prints the log; a league submission
(:mod:`arena.league.submit`) keeps it in ``check.log`` and rejects the version with the failed
step as its reason.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import trio

from arena.say import Say
from protocol.bounds import MAX_OPTIONS
from protocol.messages import Go
from referee.botspec import BotSpec
from referee.connection import BotConnection, BotError, BotStalled, BotTimedOut, Turn
from referee.dialects import start_connection
from referee.games import Game, get_game
from referee.process.boterrors import BotStartError
from referee.process.botprocess import QUIT_GRACE_S

STEP_TIMEOUT_S = 10.0
"""Handshake and isready answers must come within this."""
MARGIN_MS = 500
"""Slack over the time a ``go`` allows, for the pipe and the bot's own overhead."""
QUIT_LIMIT_S = QUIT_GRACE_S
"""SPEC: a bot exits within this after ``quit`` (then the referee sends SIGTERM)."""
GAME_PLIES = 12
"""Moves of the game from the start that the bot plays (both sides)."""
RESUMED_PLIES = 4
"""Moves of the resumed game."""


class StepFailed(Exception):
    """A step's expectation was not met; the message says what was expected and what came."""


@dataclass
class Checker:
    """The state shared by the steps: the bot, the game, and the positions to try."""

    spec: BotSpec
    game: str
    stderr_path: Path
    connection: BotConnection | None = None
    positions: list[tuple[str, Game[Any]]] = field(default_factory=list)
    step_timeout: float | None = None
    """Handshake and isready limit; None for :data:`STEP_TIMEOUT_S` as it is when used."""

    @property
    def timeout(self) -> float:
        return STEP_TIMEOUT_S if self.step_timeout is None else self.step_timeout

    @property
    def bot(self) -> BotConnection:
        if self.connection is None:
            raise StepFailed("the bot is not running")
        return self.connection

    async def ask(self, board: Game[Any], go: Go, budget_ms: float) -> str:
        """Send the position and ``go``; check that a legal move comes within the budget."""
        reply = await self.request(turn_at(board, go), budget_ms)
        return self.check_move(board, reply.move, reply.elapsed_ms)

    async def request(self, turn: Turn, budget_ms: float) -> Any:
        """``request_move``, with a bot that said nothing at all told what is likely wrong."""
        heard = self.heard()
        try:
            return await self.bot.request_move(turn, budget_ms / 1000)
        except BotTimedOut as exc:
            if self.heard() == heard:
                raise StepFailed(self.no_reply(budget_ms / 1000)) from None
            raise StepFailed(str(exc)) from None

    def heard(self) -> int:
        """How many lines the bot has sent so far."""
        if self.connection is None:
            return 0
        return sum(1 for line in self.connection.channel.transcript if line.startswith("<"))

    def no_reply(self, seconds: float) -> str:
        return (f"no reply from {self.spec.name!r} within {seconds:g} s: is the bot flushing its "
                "output after each line?")

    async def play_from(self, board: Game[Any], start: str | None, plies: int) -> str:
        """The bot plays both sides for up to ``plies`` moves from ``board``, told every time
        the start and all the moves since, as in a tournament game."""
        played: list[str] = []
        for _ in range(plies):
            if board.is_over():
                break
            legal = board.legal_moves()
            reply = await self.request(
                Turn(board, start, list(played), legal, Go(p1time=5000, p2time=5000,
                                                            p1inc=0, p2inc=0)),
                5000 + MARGIN_MS)
            self.check_move(board, reply.move, reply.elapsed_ms)
            move = board.parse_move(reply.move)
            played.append(board.format_move(move))
            board.push(move)
        return f"{len(played)} moves: {' '.join(played)}"

    def check_move(self, board: Game[Any], move: str, elapsed_ms: float) -> str:
        legal = board.legal_moves()
        if move not in legal and move + "+" not in legal:
            try:
                board.copy().play(move)
            except Exception as exc:  # noqa: BLE001 - any rules error is the finding
                raise StepFailed(f"bestmove {move!r} is not legal here: {exc}") from None
        return f"bestmove {move} after {elapsed_ms:.0f} ms"


def turn_at(board: Game[Any], go: Go) -> Turn:
    """The position as a start position of its own (no history), as a resumed game sends."""
    fresh = type(board).from_position(board.position())
    return Turn(fresh, board.position(), [], fresh.legal_moves(), go)


def sample_positions(game: str, seed: int = 1) -> list[tuple[str, Game[Any]]]:
    """Positions from different phases of seeded random games, with a label each.

    For Dvonn: one in placement, the last placement, and (when a playout finds one) a
    position whose only legal move is ``pass``."""
    rules = get_game(game)
    rng = random.Random(seed)
    boards: list[Game[Any]] = []
    board = rules.start()
    while not board.is_over():
        boards.append(board.copy())
        board.play(rng.choice(board.legal_moves()))
    positions: list[tuple[str, Game[Any]]] = [("start position", rules.start())]
    if len(boards) > 6:
        positions.append(("opening, ply 6", boards[6]))
    if len(boards) > 2:
        middle = len(boards) // 2
        positions.append((f"middle game, ply {middle}", boards[middle]))
        positions.append((f"late game, ply {len(boards) - 2}", boards[-2]))
    if game == "dvonn":
        positions.insert(1, ("placement, 48 pieces placed", boards[48]))
        for pass_seed in range(seed, seed + 50):
            found = _find_pass(rules, random.Random(pass_seed))
            if found is not None:
                positions.append(("forced pass", found))
                break
    return positions


def _find_pass(rules: type[Game[Any]], rng: random.Random) -> Game[Any] | None:
    board = rules.start()
    while not board.is_over():
        moves = board.legal_moves()
        if moves == ["pass"]:
            return board
        board.play(rng.choice(moves))
    return None


# ----- steps ----------------------------------------------------------------------------------


async def step_start(c: Checker) -> str:
    c.connection = await start_connection(c.spec, c.stderr_path)
    return f"pid {c.connection.pid}"


async def step_handshake(c: Checker) -> str:
    try:
        await c.bot.handshake(c.timeout)
    except BotStalled as exc:
        if c.heard() == 0:
            raise StepFailed(c.no_reply(c.timeout) + f" ({exc})") from None
        raise
    dropped = c.bot.options_dropped
    name = repr(c.bot.id_name) if c.bot.id_name else "none (optional)"
    return (f"id name {name}, author {c.bot.id_author!r}, "
            f"{len(c.bot.options)} option(s)"
            + (f" ({dropped} more declarations ignored: the cap is {MAX_OPTIONS})"
               if dropped else ""))


async def step_isready(c: Checker) -> str:
    await c.bot.ready(c.timeout)
    return "answered"


async def step_options(c: Checker) -> str:
    """Every declared option once: to its default, or to the value ``--bot-option`` gave (an
    engine that needs a file path or a smaller search to be checked at all)."""
    undeclared = sorted(set(c.spec.options) - set(c.bot.options))
    if undeclared:
        raise StepFailed(f"--bot-option names option(s) the bot does not declare: "
                         f"{', '.join(undeclared)} (declared: "
                         f"{', '.join(sorted(c.bot.options)) or 'none'})")
    values: dict[str, object] = {decl.name: decl.default or "" for decl in c.bot.options.values()
                                 if decl.type != "button"}
    values.update(c.spec.options)
    await c.bot.set_options(values)
    await c.bot.ready(c.timeout)
    given = len(c.spec.options)
    rest = f" ({given} from --bot-option, the rest to their defaults)" if given else \
        " to their defaults"
    return f"{len(values)} option(s) set{rest}, then answered"


async def step_new_game(c: Checker) -> str:
    await c.bot.new_game(c.game, {}, c.timeout)
    return "answered"


def position_step(label: str, board: Game[Any]) -> Callable[[Checker], Awaitable[str]]:
    async def step(c: Checker) -> str:
        go = Go(p1time=5000, p2time=5000, p1inc=0, p2inc=0)
        return await c.ask(board, go, 5000 + MARGIN_MS)

    step.__doc__ = f"position: {label}"
    return step


async def step_go_clocks(c: Checker) -> str:
    board = c.positions[-1][1] if c.positions else get_game(c.game).start()
    go = Go(p1time=1000, p2time=1000, p1inc=100, p2inc=100)
    return await c.ask(board, go, 1000 + MARGIN_MS)


async def step_go_movetime(c: Checker) -> str:
    board = get_game(c.game).start()
    return await c.ask(board, Go(movetime=300), 300 + MARGIN_MS)


async def step_infinite_stop(c: Checker) -> str:
    board = get_game(c.game).start()
    turn = turn_at(board, Go(infinite=True))
    sent_at, _ = await c.bot.start_search(turn)
    early = await c.bot.read_move(turn, sent_at, sent_at + 0.3)
    if early is not None:
        return "answered before stop (accepted): " + c.check_move(board, early.move,
                                                                 early.elapsed_ms)
    try:
        reply_move = await c.bot.stop_and_read(1.0 + MARGIN_MS / 1000, turn)
    except BotTimedOut:
        raise StepFailed("no bestmove within 1.5 s of 'stop'") from None
    return "after stop: " + c.check_move(board, reply_move.move, reply_move.elapsed_ms)


async def step_game_from_start(c: Checker) -> str:
    """What a tournament sends: ``position startpos moves ...`` with every move so far."""
    return await c.play_from(get_game(c.game).start(), None, GAME_PLIES)


async def step_resumed_game(c: Checker) -> str:
    """A game that starts from a position text (an opening book, a resumed game): ``position
    fen <start> moves ...``."""
    label, board = c.positions[len(c.positions) // 2] if c.positions else ("", None)
    if board is None or board.is_over():
        board = get_game(c.game).start()
    start = board.position()
    return await c.play_from(type(board).from_position(start), start, RESUMED_PLIES)


async def step_quit(c: Checker) -> str:
    """The bot exits by itself after ``quit``. Within the SPEC's :data:`QUIT_LIMIT_S` it
    passes; later, but within the step's limit, it passes with a note: how long an exit takes
    is mostly the machine's (an interpreter's teardown on a loaded machine takes longer than
    half a second), and in a game the referee ends a slow one with SIGTERM anyway. A bot that
    does not exit by itself at all fails."""
    await c.bot.send_lines(c.bot.quit_lines())
    started = trio.current_time()
    status = await c.bot.channel.wait_exit(QUIT_LIMIT_S)
    if status is None:
        status = await c.bot.channel.wait_exit(max(0.0, c.timeout - QUIT_LIMIT_S))
    took = trio.current_time() - started
    if status is None:
        raise StepFailed(f"still running {took:.1f} s after 'quit' (SPEC: exit within "
                         f"{QUIT_LIMIT_S:g} s; the referee then kills it)")
    late = (f"; later than the SPEC's {QUIT_LIMIT_S:g} s, where a game's referee would have "
            "sent SIGTERM (a busy machine, or a slow exit?)" if took > QUIT_LIMIT_S else "")
    return f"exited after {took * 1000:.0f} ms ({c.bot.channel.describe_exit()}){late}"


WORDS = {
    "native": ("ugi -> id, option, ugiok", "isready -> readyok", "setoption", "isready",
               "game, uginewgame, isready"),
    "uci": ("uci -> id, option, uciok", "isready -> readyok", "setoption", "isready",
            "UCI_Variant, ucinewgame, isready"),
    "hub": ("hub -> id, param, wait; init -> ready", "ping -> pong", "set-param", "ping",
            "new-game, ping"),
}
"""Each dialect's words for the step titles."""


def build_steps(positions: list[tuple[str, Game[Any]]], protocol: str = "native"
                ) -> list[tuple[str, Callable[[Checker], Awaitable[str]]]]:
    hello, sync, setoption, check, new_game = WORDS[protocol]
    steps: list[tuple[str, Callable[[Checker], Awaitable[str]]]] = [
        ("start the process", step_start),
        (f"handshake: {hello}", step_handshake),
        (sync, step_isready),
        (f"{setoption} for every declared option, {check}", step_options),
        (f"new game: {new_game}", step_new_game),
    ]
    for label, board in positions:
        steps.append((f"position ({label}), go with 5 s clocks", position_step(label, board)))
    steps += [
        (f"a game from the start: position startpos moves ... ({GAME_PLIES} moves)",
         step_game_from_start),
        (f"a resumed game: position fen <start> moves ... ({RESUMED_PLIES} moves)",
         step_resumed_game),
    ]
    steps += [
        ("go p1time 1000 p2time 1000 p1inc 100 p2inc 100", step_go_clocks),
        ("go movetime 300", step_go_movetime),
        ("go infinite, then stop (a move before stop is accepted)", step_infinite_stop),
        (f"quit -> the process exits within {QUIT_LIMIT_S:g} s", step_quit),
    ]
    return steps


Status = Literal["PASS", "FAIL", "SKIP"]


@dataclass(frozen=True)
class StepOutcome:
    """One numbered step: its title, how it went and what it saw (for a failure, why)."""

    number: int
    title: str
    status: Status
    detail: str = ""

    def line(self) -> str:
        """The step as ``arena check-bot`` prints it: ``PASS   3. isready: answered``."""
        text = f"{self.status}  {self.number:2}. {self.title}"
        return f"{text}: {self.detail}" if self.status != "SKIP" else text


@dataclass(frozen=True)
class CheckResult:
    """How a bot's check went: every step, and every line of the check's log (the steps, then
    the conversation and the stderr after a failure, or the stderr after a pass)."""

    steps: tuple[StepOutcome, ...]
    log: tuple[str, ...]

    @property
    def failed(self) -> StepOutcome | None:
        """The step that failed (the later ones are skipped); None when every step passed."""
        return next((step for step in self.steps if step.status == "FAIL"), None)

    @property
    def passed(self) -> bool:
        return self.failed is None

    @property
    def reason(self) -> str:
        """Why the check failed, on one line (``step 7. title: detail``); "" when it passed."""
        failed = self.failed
        return "" if failed is None else f"step {failed.number}. {failed.title}: {failed.detail}"


async def check(spec: BotSpec, game: str, stderr_path: Path,
                out: Say = print,
                step_timeout: float | None = None) -> CheckResult:
    """Run every step, each line of the log told to ``out`` as it comes; always ends the bot.
    ``step_timeout`` bounds the handshake and each ``isready`` (default
    :data:`STEP_TIMEOUT_S`)."""
    checker = Checker(spec, game, stderr_path, positions=sample_positions(game),
                      step_timeout=step_timeout)
    steps = build_steps(checker.positions, spec.protocol)
    outcomes: list[StepOutcome] = []
    log: list[str] = []

    def tell(line: str) -> None:
        log.append(line)
        out(line)

    def record(outcome: StepOutcome) -> None:
        outcomes.append(outcome)
        tell(outcome.line())

    try:
        for number, (title, step) in enumerate(steps, 1):
            if outcomes and outcomes[-1].status != "PASS":
                record(StepOutcome(number, title, "SKIP"))
                continue
            try:
                with trio.fail_after(30):
                    detail = await step(checker)
            except (StepFailed, BotError, BotStartError, trio.TooSlowError) as exc:
                record(StepOutcome(number, title, "FAIL", str(exc) or "took longer than 30 s"))
                _show_conversation(checker, tell)
            else:
                record(StepOutcome(number, title, "PASS", detail))
    finally:
        if checker.connection is not None:
            await checker.connection.aclose()
    result = CheckResult(tuple(outcomes), tuple(log))
    if result.passed:
        _show_stderr(checker, tell)  # after aclose: the log holds the bot's last lines
    return CheckResult(result.steps, tuple(log))


SHOWN_LINE_CHARS: Final = 300
"""A longer line of the bot's is cut here (with `` ...``) when shown."""
STDERR_HEAD: Final = 20
STDERR_TAIL: Final = 20
"""Lines of the bot's stderr shown after a PASS (its first and last) and after a FAIL (its
last, nearest the failure)."""
STDERR_READ_BYTES: Final = 1 << 20
"""At most this much of the stderr log is read (the arena keeps about as much per process)."""


def _clip(line: str) -> str:
    return line if len(line) <= SHOWN_LINE_CHARS else line[:SHOWN_LINE_CHARS] + " ..."


def stderr_excerpt(path: Path, head: int, tail: int) -> list[str]:
    """The first ``head`` and last ``tail`` lines of the bot's stderr log, each cut to
    :data:`SHOWN_LINE_CHARS`, with a line saying how many were left out between; [] when it
    wrote nothing."""
    try:
        with path.open("rb") as handle:
            lines = handle.read(STDERR_READ_BYTES).decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    if len(lines) <= head + tail:
        return [_clip(line) for line in lines]
    left_out = len(lines) - head - tail
    return ([_clip(line) for line in lines[:head]]
            + [f"[... {left_out} line{'s' if left_out > 1 else ''} left out ...]"]
            + [_clip(line) for line in lines[len(lines) - tail:]])


def _show_conversation(checker: Checker, out: Say) -> None:
    if checker.connection is not None:
        out("      last lines exchanged ('>' sent to the bot, '<' from the bot):")
        for line in checker.connection.channel.transcript:
            out("        " + _clip(line))
    tail = stderr_excerpt(checker.stderr_path, 0, STDERR_TAIL)
    if tail:
        out("      the bot's stderr (last lines):")
        for line in tail:
            out("        " + line)


def _show_stderr(checker: Checker, out: Say) -> None:
    """After a PASS: what the bot wrote to stderr (the arena ignores it; its author may not)."""
    lines = stderr_excerpt(checker.stderr_path, STDERR_HEAD, STDERR_TAIL)
    if lines:
        out("the bot's stderr (not part of the protocol; shown for its author):")
        for line in lines:
            out("  " + line)
