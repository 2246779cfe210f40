"""A scripted fake bot behind the :class:`referee.channel.LineChannel` interface.

Each line the connection sends is handed to a script, which answers with the lines the bot
would print, each after an optional delay (on trio's clock, so a test under
``autojump_clock`` runs in no real time). Nothing is spawned: the dialects are tested
in-process, the whole conversation visible in ``sent`` and ``transcript``.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import trio

from protocol.lines import BadLine
from referee.channel import BotExited


@dataclass(frozen=True)
class Later:
    """A line printed ``delay`` seconds after the line that prompted it."""

    delay: float
    line: str | BadLine


@dataclass(frozen=True)
class Exit:
    """The bot exits (its output ends) ``delay`` seconds later with ``code``."""

    code: int = 0
    delay: float = 0.0


Answer = str | BadLine | Later | Exit
Script = Callable[[str], Iterable[Answer]]


def table(answers: dict[str, list[Answer]]) -> Script:
    """A script from ``first word of a line -> answers`` (other lines get no answer)."""

    def script(line: str) -> Iterable[Answer]:
        word = line.split(" ", 1)[0]
        return answers.get(word, [])

    return script


class ScriptedChannel:
    def __init__(self, script: Script, *, greeting: Iterable[Answer] = ()) -> None:
        self.script = script
        self.sent: list[str] = []
        self.transcript: deque[str] = deque(maxlen=64)
        self.log: list[tuple[float, str]] = []
        """Every line both ways with its time on trio's clock: ``> line`` when it was sent to
        the bot, ``< line`` when the bot printed it (entered once the line is read)."""
        self.closed = False
        self.exit_code: int | None = None
        self._queue: list[tuple[float, int, str | BadLine | Exit]] = []
        self._seq = itertools.count()
        self._changed = trio.Event()
        self._ended = False
        self._schedule(greeting)

    def _schedule(self, answers: Iterable[Answer]) -> None:
        now = trio.current_time()
        for answer in answers:
            if isinstance(answer, Later):
                item: tuple[float, str | BadLine | Exit] = (now + answer.delay, answer.line)
            elif isinstance(answer, Exit):
                item = (now + answer.delay, answer)
            else:
                item = (now, answer)
            heapq.heappush(self._queue, (item[0], next(self._seq), item[1]))
        self._changed.set()
        self._changed = trio.Event()

    def push(self, *answers: Answer) -> None:
        """Make the bot print something unprompted (a test's own timing)."""
        self._schedule(answers)

    async def send(self, text: str) -> None:
        if self._ended or self.closed:
            raise BotExited("the scripted bot has exited")
        for line in text.split("\n"):
            self.sent.append(line)
            self.transcript.append("> " + line)
            self.log.append((trio.current_time(), "> " + line))
            self._schedule(self.script(line))

    async def readline(self) -> str | BadLine:
        while True:
            if self._ended:
                raise BotExited("the scripted bot closed its output")
            if self._queue and self._queue[0][0] <= trio.current_time():
                at, _seq, item = heapq.heappop(self._queue)
                if isinstance(item, Exit):
                    self._ended = True
                    self.exit_code = item.code
                    continue
                shown = "< " + (item if isinstance(item, str) else repr(item))
                self.transcript.append(shown)
                self.log.append((at, shown))
                return item
            changed = self._changed
            with trio.move_on_at(self._queue[0][0] if self._queue else float("inf")):
                await changed.wait()

    def exit_status(self) -> int | None:
        return self.exit_code

    def describe_exit(self) -> str:
        return "still running" if self.exit_code is None else f"exit status {self.exit_code}"

    def sandbox_failure(self) -> str | None:
        return None

    async def wait_exit(self, timeout: float) -> int | None:
        with trio.move_on_after(timeout):
            while self.exit_code is None:
                if self._queue and isinstance(self._queue[0][2], Exit):
                    await trio.sleep_until(self._queue[0][0])
                    self.exit_code = self._queue[0][2].code  # type: ignore[union-attr]
                    self._ended = True
                    break
                await trio.sleep(0.01)
        return self.exit_code

    async def aclose(self) -> None:
        if not self.closed and not self._ended:
            self.sent.append("quit")
            self.transcript.append("> quit")
        self.closed = True
