"""A human in a bot's seat: a connection the match loop drives exactly like a bot's.

:class:`HumanSeat` implements the part of :class:`~referee.connection.BotConnection` the match
loop uses (new game, request a move under the clock, game over, partie), so a person's moves go
through the same referee, rules and clocks as any bot's. The person is reached through a
:class:`Front` (the terminal of ``arena play``, the browser of ``arena serve --play``): the
seat asks it for a move with the time left, checks the answer against the legal moves and asks
again, with the reason, until a legal one comes or the clock runs out (a loss on time, as for
a bot). Besides moves the person has the words of :data:`COMMANDS` (``help``, ``resign``,
``draw``), the same in every front; none of them costs a move, and the clock runs on while
they are answered, as it does over a real board. Nothing here reads a terminal or a socket.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, Protocol

import trio

from protocol.lines import BadLine
from protocol.messages import GameOver, Partie
from referee.botspec import BotSpec
from referee.connection import BotConnection, BotError, BotTimedOut, MoveReply, Turn
from referee.games import GameError
from referee.process.schedstat import WaitMeter
from referee.record import Termination

HUMAN: str = "human"
"""What ``--p1`` / ``--p2`` say for a seat taken by a person."""


def human_spec(name: str = HUMAN) -> BotSpec:
    """A bot spec naming a human seat (its command is never run)."""
    return BotSpec(name=name, cmd=[HUMAN])


def is_human(spec: BotSpec) -> bool:
    return spec.cmd == [HUMAN]


COMMANDS: Final[dict[str, str]] = {
    "help": "the legal moves and these commands (your clock keeps running)",
    "resign": "end the game now: you lose, recorded as a resignation",
    "draw": "offer a draw: the other side declines (a bot cannot accept one), so play goes "
            "on; the game is drawn only by its rules or the referee's adjudication",
}
"""What a person may type instead of a move, and what each does. A legal move spelt like one
of them (no game has one today) is played as the move."""

DRAW_DECLINED: Final = (
    "draw offer declined: the other side cannot agree to a draw, so play goes on; the game is "
    "drawn only by its own rules or the referee's adjudication (the game's draw rules, a move "
    "cap; docs/rules.md). Your clock is running.")


def help_text(turn: Turn) -> str:
    """What ``help`` shows: the legal moves here and the commands."""
    lines = [f"legal moves ({len(turn.legal)}): {' '.join(turn.legal)}", "commands:"]
    lines += [f"  {word:<7} {what}" for word, what in COMMANDS.items()]
    lines.append("Your clock keeps running while you read this, as over a real board.")
    return "\n".join(lines)


class Resigned(BotError):
    """The person resigned: the game ends, lost, with its own termination."""

    termination = Termination.RESIGNATION


class Front(Protocol):
    """Where a person sees the game and answers."""

    async def ask(self, turn: Turn, seconds_left: float | None, problem: str | None) -> str:
        """The person's move text (or command) for ``turn``; ``problem`` says why the last one
        was refused. The same ``turn`` object is asked again after a refusal or a command: a
        front shows its position once."""
        ...

    def tell(self, text: str) -> None:
        """A note that needs no answer (the help, a declined draw offer)."""

    def game_over(self, message: GameOver) -> None: ...

    def partie(self, message: Partie) -> None: ...


class _NoPipe:
    """The seat has no process: a line channel that is always open and never speaks."""

    closed = False
    transcript: Iterable[str] = ()

    async def send(self, text: str) -> None:
        return None

    async def readline(self) -> str | BadLine:  # pragma: no cover - never read
        raise RuntimeError("a human seat has no lines to read")

    def exit_status(self) -> int | None:
        return None

    def describe_exit(self) -> str:
        return "a person"

    def sandbox_failure(self) -> str | None:
        return None

    async def wait_exit(self, timeout: float) -> int | None:
        return None

    async def aclose(self) -> None:
        return None


def check_move(turn: Turn, text: str) -> tuple[str | None, str]:
    """The canonical legal move ``text`` names, or None and why not."""
    text = text.strip()
    if not text:
        return None, "empty move: type one of the legal moves (or help)"
    if text in turn.legal:
        return text, ""
    board = turn.board
    try:
        canonical = board.format_move(board.parse_move(text))
    except GameError as exc:
        return None, f"{text!r} is not a legal move here: {exc}"
    except (ValueError, KeyError, IndexError) as exc:
        return None, f"{text!r} is not a move: {exc}"
    if canonical in turn.legal:
        return canonical, ""
    return None, f"{text!r} is not a legal move here"


class HumanSeat(BotConnection):
    """A person at the board, seen by the match loop as one more connection."""

    dialect = HUMAN
    move_word = "move"

    def __init__(self, spec: BotSpec, front: Front) -> None:
        super().__init__(_NoPipe(), spec)  # type: ignore[arg-type]
        self.front = front
        self.handshaken = True

    async def handshake(self, timeout: float = 0.0) -> None:
        return None

    async def new_game(self, game: str, game_options: Mapping[str, str],
                       timeout: float = 0.0, *, wait: bool = True) -> None:
        return None

    async def settle(self, timeout: float | None = None) -> None:
        return None

    async def request_move(self, turn: Turn, budget_s: float | None,
                           meter: WaitMeter | None = None) -> MoveReply:
        """Ask until a legal move comes; the clock runs from the first question, through
        refusals and commands alike (a person waits for no CPU: ``meter`` is not used).
        ``resign`` raises :class:`Resigned`."""
        sent_at = trio.current_time()
        deadline = sent_at + budget_s if budget_s is not None else float("inf")
        problem: str | None = None
        with trio.move_on_at(deadline):
            while True:
                left = None if budget_s is None else max(0.0, deadline - trio.current_time())
                text = await self.front.ask(turn, left, problem)
                word = text.strip().lower()
                if word in COMMANDS and text.strip() not in turn.legal:
                    problem = None
                    if word == "resign":
                        raise Resigned(self.name, "resigned")
                    self.front.tell(help_text(turn) if word == "help" else DRAW_DECLINED)
                    continue
                move, problem = check_move(turn, text)
                if move is not None:
                    read_at = trio.current_time()
                    return MoveReply(move, (read_at - sent_at) * 1000, None, sent_at, sent_at,
                                     read_at)
        assert budget_s is not None
        raise BotTimedOut(self.name, f"{self.name} lost on time: no move within "
                          f"{budget_s:.1f} s")

    async def game_over(self, message: GameOver) -> None:
        self.front.game_over(message)

    async def partie(self, message: Partie) -> None:
        self.front.partie(message)

    async def aclose(self) -> None:
        return None
