"""``arena serve --play GAME --bot CMD``: a person plays a bot in the browser.

The person sits in a :class:`~referee.human.HumanSeat`, so the game is refereed and clocked
by the same match loop as any bot game (:func:`referee.match.play_on`); :class:`BrowserFront`
is that seat's front: it publishes each position (a viewer document, the legal moves as
clicks, both clocks) to the page over server-sent events and takes the person's move from a
``POST /move`` (from its own page only: :mod:`arena.web.guard`). Clicks are worked out here
from the rules: for every legal move, the cell its piece leaves (or the hand piece it drops),
the cell it lands on, so the page needs no rules of its own. A move no click can express (a
pass) is a button, and so are the seat's commands (help, resign, offer a draw).

The first game starts when a page first connects, so the clocks start at the first move
request with the person there, as in a bot game; each snapshot says whose clock runs and from
when, so the page runs it. Closing the page stops nothing (reload it: the clock has run on);
stopping the server writes the game in progress to ``--out`` as unfinished (``*``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from arena.errors import UserError
from arena.rundir.journal import append_record
from arena.rundir.layout import RunDir
from arena.web.app import asset, event_stream, guarded, page
from arena.web.guard import new_token
from arena.web.snapshots import Snapshots
from protocol.messages import GameOver, Partie
from referee.botspec import BotSpec
from referee.connection import BotConnection, BotError, Turn
from referee.games import Game, GameError, get_game
from referee.human import HumanSeat, human_spec
from referee.match import open_bot, play_on, prepare_start, unfinished_record
from referee.order import GameOrder
from referee.process.boterrors import BotStartError
from referee.record import GameRecord, MoveRecord, Termination
from referee.timecontrol import TimeControl, TimeControlError
from reports.replay import replay

_SQUARE = re.compile(r"([A-Za-z])(\d+)")


def _state(cell: Any) -> tuple[str, int | None]:
    return (cell.piece, cell.side)


def click_map(board: Game[Any], legal: list[str]) -> list[dict[str, Any]]:
    """For each legal move: the cell it leaves (``from``), the cell it lands on (``to``) and
    the hand piece it drops (``hand``: [side, index]), by playing it on a copy and comparing
    the pictures; None where a move has no such cell (a placement has no ``from``, a pass
    neither)."""
    before = board.board_view()
    side = board.side_to_move
    cell_at = {(c.x, c.y): i for i, c in enumerate(before.cells)}
    out = []
    for text in legal:
        after_board = board.copy()
        after_board.play(text)
        after = after_board.board_view()
        changed = [i for i, (a, b) in enumerate(zip(before.cells, after.cells, strict=False))
                   if _state(a) != _state(b)]
        leaves = [i for i in changed if before.cells[i].side == side and not after.cells[i].piece]
        lands = [i for i in changed if after.cells[i].side == side] or [
            i for i in changed if after.cells[i].piece and not before.cells[i].piece]  # neutral
        # Pieces cut off and removed by the move (Dvonn) blur the picture: the squares the
        # move's text names (``B1C1``) decide, where the notation has them.
        squares = [cell_at.get((ord(c.lower()) - ord("a"), int(n) - 1))
                   for c, n in _SQUARE.findall(text)]
        if len(squares) >= 2 and squares[0] is not None and squares[-1] is not None:
            if len(leaves) != 1 and squares[0] in leaves:
                leaves = [squares[0]]
            if not lands:
                lands = [squares[-1]]
        hand = None
        if before.hands and after.hands and len(before.hands[side]) > len(after.hands[side]):
            rest = list(after.hands[side])
            for k, piece in enumerate(before.hands[side]):
                if piece in rest:
                    rest.remove(piece)
                else:
                    hand = [side, k]
                    break
        out.append({
            "move": text,
            "from": None if hand is not None or not leaves else leaves[0],
            "to": lands[0] if lands else None,
            "hand": hand,
        })
    return out


class BrowserFront:
    """The page's side of a human seat: state for the page, and an inbox for its moves."""

    def __init__(self, publish: Callable[[], None]) -> None:
        self.publish = publish
        self.turn: Turn | None = None
        self.clicks: list[dict[str, Any]] = []
        self.problem: str | None = None
        self.deadline: float | None = None
        """``time.time()`` at which the person's clock runs out (None: no clock)."""
        self.messages: list[str] = []
        self._asked: Turn | None = None
        self.note = ""
        """The answer to the person's last command (help, draw), until the turn changes."""
        self._send, self._inbox = trio.open_memory_channel[str](16)

    async def ask(self, turn: Turn, seconds_left: float | None, problem: str | None) -> str:
        if self._asked is not turn:  # a new turn (asked again after a refusal or a command)
            self._asked = turn
            self.clicks = click_map(turn.board, list(turn.legal))
            self.note = ""
        self.turn = turn
        self.problem = problem
        self.deadline = None if seconds_left is None else time.time() + seconds_left
        self.publish()
        try:
            return await self._inbox.receive()
        finally:
            self.turn = None
            self.deadline = None

    def submit(self, text: str) -> bool:
        """A move from the page; False when it is not the person's turn."""
        if self.turn is None:
            return False
        try:
            self._send.send_nowait(text)
        except trio.WouldBlock:
            return False
        return True

    def tell(self, text: str) -> None:
        self.note = text
        self.publish()

    def game_over(self, message: GameOver) -> None:
        self.note = ""
        self.messages.append(f"game over: {message.result} ({message.termination}) "
                             f"{message.text}".rstrip())
        self.publish()

    def partie(self, message: Partie) -> None:
        self.messages.append(f"partie won by {message.winner} for {message.points}: score "
                             f"{message.score1}-{message.score2}")
        self.publish()


class HumanGames(Snapshots):
    """Games of a person against one bot, one after another, colours alternating."""

    def __init__(self, game: str, bot: BotSpec, tc: TimeControl, human: int,
                 options: dict[str, str], out: Path | None) -> None:
        self.game = game
        self.bot = bot
        self.tc = tc
        self.first_human = human
        self.options = options
        self.out = out
        super().__init__()
        self.front = BrowserFront(self.publish)
        self.seat = HumanSeat(human_spec("you"), self.front)
        self.number = 0
        self.human = human
        self.moves: list[MoveRecord] = []
        self.record: GameRecord | None = None
        self.results: list[str] = []
        self.score = [0.0, 0.0]
        """The person's and the bot's points over the games played."""
        self.error = ""
        self._next = trio.Event()
        self.attended = trio.Event()
        """Set when a page first connects: the first game waits for it."""
        self.board: Game[Any] | None = None
        """The game's position as the moves so far leave it (whose turn it is)."""
        self.running: dict[str, Any] | None = None
        """The clock running now: ``side``, ``since`` (``time.time()``), ``left_ms`` (that
        side's time at the start of its turn, None without a clock)."""
        self.started_at = 0.0

    # ----- state for the page ----------------------------------------------------------
    def names(self) -> tuple[str, str]:
        you, bot = self.seat.name, self.bot.name
        return (you, bot) if self.human == 0 else (bot, you)

    def attend(self) -> dict[str, Any]:
        """A page connected: the first game may start. Returns the current snapshot."""
        self.attended.set()
        return {**self.snapshot, "now": time.time()}  # sent now: the page's clock offset

    def _clock_at_turn(self, side: int) -> float | None:
        """``side``'s time as its turn starts: what its last move left, else the base."""
        if self.tc.movetime_ms is not None:
            return self.tc.movetime_ms
        left = self.tc.base_ms
        for move in self.moves:
            if move.side == side and move.clock_ms is not None:
                left = move.clock_ms
        return left

    def _turn_starts(self) -> None:
        board = self.board
        if board is None or board.outcome() is not None:
            self.running = None
            return
        side = int(board.side_to_move)
        self.running = {"side": side, "since": time.time(),
                        "left_ms": self._clock_at_turn(side)}

    def publish(self) -> None:
        self.version += 1
        names = self.names()
        partial = GameRecord(game=self.game, p1=names[0], p2=names[1], result="*",
                             termination=Termination.INTERRUPT, reason="",
                             moves=list(self.moves), options=dict(self.options))
        if self.record is not None:
            partial = self.record
        try:
            doc: dict[str, Any] = replay(partial).doc
        except (GameError, ValueError) as exc:
            doc = {"error": str(exc)}
        clocks: list[float | None] = [None, None]
        for move in self.moves:
            if move.clock_ms is not None:
                clocks[move.side] = move.clock_ms
        base = self.tc.base_ms
        front = self.front
        turn = front.turn
        self._publish({
            "version": self.version, "game": self.game, "number": self.number,
            "names": list(names), "human": self.human, "doc": doc,
            "tc": str(self.tc), "clocks": clocks, "base_ms": base,
            "turn": None if turn is None else {
                "side": turn.board.side_to_move, "legal": list(turn.legal),
                "clicks": front.clicks, "deadline": front.deadline,
                "go": [turn.go.p1time, turn.go.p2time],
            },
            "running": None if self.record is not None else self.running,
            "problem": front.problem, "note": front.note, "messages": front.messages[-6:],
            "result": None if self.record is None else {
                "result": self.record.result, "termination": str(self.record.termination),
                "reason": self.record.reason, "score": list(self.record.score)},
            "score": self.score, "results": self.results, "error": self.error,
            "now": time.time(),
        })

    def new_game(self) -> bool:
        if self.record is None:
            return False
        self._next.set()
        return True

    # ----- the games ---------------------------------------------------------------------
    def order(self) -> GameOrder:
        """The order of the game being played: colours as they stand, numbered as it is."""
        seats = (self.seat.spec, self.bot) if self.human == 0 else (self.bot, self.seat.spec)
        return GameOrder.checked(self.game, *seats, tc=self.tc, game_options=self.options,
                                 id=f"human-{self.number}", round=self.number)

    def _on_move(self, move: MoveRecord) -> None:
        self.moves.append(move)
        if self.board is not None:
            self.board.play(move.move)
        self._turn_starts()
        self.publish()

    async def run(self) -> None:
        bot: BotConnection | None = None
        try:
            while True:
                self.number += 1
                self.moves = []
                self.record = None
                self.running = None
                self.front.messages.clear()
                order = self.order()
                self.board = prepare_start(order).initial()
                self.publish()
                if bot is None or not bot.alive:
                    try:
                        bot = await open_bot(self.bot)
                    except (BotError, BotStartError) as exc:
                        self.error = f"{self.bot.name} did not start: {exc}"
                        self.publish()
                        return
                seats: tuple[BotConnection, BotConnection] = (
                    (self.seat, bot) if self.human == 0 else (bot, self.seat))
                await self.attended.wait()  # the clocks start with the person there
                self.started_at = time.time()
                self._turn_starts()
                self.publish()
                try:
                    record = await play_on(order, seats, on_move=self._on_move)
                except BaseException:  # the server stopped (or a fault of ours)
                    self._keep_unfinished(order)
                    raise
                self._finish(record)
                await self._next.wait()
                self._next = trio.Event()
                self.human = 1 - self.human
        finally:
            if bot is not None:
                with trio.CancelScope(shield=True):
                    await bot.aclose()

    def _keep_unfinished(self, order: GameOrder) -> None:
        """Write the game in progress as unfinished (``*``), with its moves."""
        if self.out is None:
            return
        record = unfinished_record(order, self.moves, self.started_at, "the server was stopped")
        self.out.mkdir(parents=True, exist_ok=True)
        append_record(RunDir(self.out).journal, record)
        print(f"arena: game {self.number} {record.reason}: written unfinished (*) to "
              f"{RunDir(self.out).journal}", flush=True)

    def _finish(self, record: GameRecord) -> None:
        self.record = record
        self.running = None
        you = self.human
        if record.winner is None:
            self.score[0] += 0.5
            self.score[1] += 0.5
        elif record.winner == you:
            self.score[0] += 1
        else:
            self.score[1] += 1
        self.results.append(f"game {self.number}: {record.p1} vs {record.p2} {record.result} "
                            f"({record.reason})")
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            append_record(RunDir(self.out).journal, record)
        self.publish()


PLAY_BODY = """
<header><h1>Arena: play <span id="game-name"></span></h1>
<div class="meta"><span id="players"></span> · <span id="conn">connecting...</span></div></header>
<main><section><div class="play">
<div><div id="board"></div><div class="hint" id="caption"></div></div>
<div class="side">
<div class="clock" id="clock0"></div><div class="clock" id="clock1"></div>
<div id="status"></div><div class="err" id="problem"></div>
<div class="buttons" id="choices"></div>
<div class="buttons" id="commands"><button type="button" data-command="help">help</button>
<button type="button" data-command="draw">offer a draw</button>
<button type="button" data-command="resign">resign</button></div>
<pre class="hint" id="note"></pre>
<form id="typed"><label>or type a move <input id="move-text" size="10"></label>
<button type="submit">play</button></form>
<div class="buttons"><button type="button" id="flip">flip board</button>
<button type="button" id="new-game" disabled>new game (colours swap)</button></div>
<h3>Moves</h3><div id="moves-list"></div>
<div id="messages" class="hint"></div>
<div id="results" class="hint"></div>
</div></div></section></main>
"""


def play_app(game: str, bot_cmd: list[str], *, tc: str, human: int, options: dict[str, str],
             out: Path | None) -> tuple[Starlette, Callable[[], Awaitable[None]]]:
    """The app and its background task (the games) for ``arena serve --play``."""
    try:
        get_game(game)
    except GameError as exc:
        raise UserError(str(exc)) from None
    try:
        clock = TimeControl.parse(tc)
    except TimeControlError as exc:
        raise UserError(f"--tc: {exc}") from None
    if not bot_cmd:
        raise UserError("--bot: empty command")
    scripts = [w for w in bot_cmd[1:] if Path(w).suffix in (".py", ".js", ".mjs", ".sh")]
    name = Path(scripts[0]).stem if scripts else Path(bot_cmd[0]).name
    games = HumanGames(game, BotSpec(name=name or "bot", cmd=bot_cmd), clock, human, options,
                       out)
    try:
        prepare_start(games.order())  # the options checked before the page is served
    except GameError as exc:
        raise UserError(str(exc)) from None
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"--out {out}: cannot create the folder: "
                            f"{exc.strerror or exc}") from None

    token = new_token()

    async def home(request: Request) -> Response:
        return HTMLResponse(page(f"Arena: play {game}", "play.js", PLAY_BODY, token))

    async def events(request: Request) -> Response:
        return event_stream(games.wait_newer, games.attend)

    async def move(request: Request) -> Response:
        try:
            body = await request.json()
            text = str(body["move"])
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"ok": False, "error": "expected {\"move\": TEXT}"},
                                status_code=400)
        ok = games.front.submit(text)
        return JSONResponse({"ok": ok, "error": "" if ok else "not your turn"},
                            status_code=200 if ok else 409)

    async def new(request: Request) -> Response:
        ok = games.new_game()
        return JSONResponse({"ok": ok}, status_code=200 if ok else 409)

    app = guarded([
        Route("/", home),
        Route("/events", events),
        Route("/move", move, methods=["POST"]),
        Route("/new", new, methods=["POST"]),
        Route("/assets/{name}", asset),
    ], token)
    return app, games.run
