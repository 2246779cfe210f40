"""The human seat's commands (``help``, ``draw``, ``resign``) through the real referee and
clocks: the seat's logic with a scripted bot and trio's autojump clock (timing matters, the
clock runs through commands), then ``arena play`` as a real child process fed on its stdin."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from scripted import open_scripted, play_on_scripted, random_bot
from test_live_browser import served_url, started
from trio.testing import MockClock

from protocol.messages import GameOver, Partie
from referee.adjudication import Adjudication
from referee.connection import Turn
from referee.human import DRAW_DECLINED, HumanSeat, human_spec
from referee.record import GameRecord, Termination, decode_record
from reports import tables
from reports.journal_summary import summarise_journal
from reports.pgn import game_to_pgn

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "sample_bots" / "random_bot.py"


class Typist:
    """A person who types ``script`` one line at a time, ``think`` seconds apart, then the
    first legal move of every later turn."""

    def __init__(self, script: list[str], think: float = 1.0) -> None:
        self.script = list(script)
        self.think = think
        self.told: list[str] = []
        self.asked: list[tuple[int, float | None, str | None]] = []
        self.over: list[GameOver] = []
        self._turns: list[Turn] = []

    async def ask(self, turn: Turn, seconds_left: float | None, problem: str | None) -> str:
        if not self._turns or self._turns[-1] is not turn:
            self._turns.append(turn)
        self.asked.append((len(self._turns), seconds_left, problem))
        await trio.sleep(self.think)
        return self.script.pop(0) if self.script else turn.legal[0]

    def tell(self, text: str) -> None:
        self.told.append(text)

    def game_over(self, message: GameOver) -> None:
        self.over.append(message)

    def partie(self, message: Partie) -> None:
        pass


async def _game(front: Typist, tc: str, max_plies: int | None = None) -> GameRecord:
    seat = HumanSeat(human_spec("you"), front)
    bot = await open_scripted(random_bot("rnd", 3))
    try:
        with trio.fail_after(600):
            return await play_on_scripted("dobutsu", (seat, bot), tc=tc,
                                          adjudication=Adjudication(max_plies=max_plies))
    finally:
        await bot.aclose()


async def test_help_lists_moves_and_commands_and_costs_no_move_but_time(
        autojump_clock: MockClock) -> None:
    front = Typist(["help", "draw", "b1c2"], think=2.0)
    record = await _game(front, "60+0", max_plies=4)
    assert record.termination == Termination.ADJUDICATION
    help_text, declined = front.told[:2]
    assert "legal moves (4): b1c2 b1a2 c1c2 b2b3" in help_text
    assert all(word in help_text for word in ("help", "resign", "draw"))
    assert "clock keeps running" in help_text
    assert declined == DRAW_DECLINED
    # Three answers to the first turn (help, draw, the move): the same turn, no refusal; the
    # clock ran 2 s per answer, so the move cost 6 s of the minute.
    first = [a for a in front.asked if a[0] == 1]
    assert [a[2] for a in first] == [None, None, None]
    assert first[0][1] == pytest.approx(60.0, abs=0.01)
    assert first[2][1] == pytest.approx(56.0, abs=0.01)
    moves = record.moves
    assert moves[0].move == "b1c2" and moves[0].elapsed_ms == pytest.approx(6000, abs=10)
    assert moves[0].clock_ms == pytest.approx(54000, abs=10)


async def test_commands_count_against_the_clock(autojump_clock: MockClock) -> None:
    """Asking for help over and over is no way to stop the clock: the seat loses on time."""
    front = Typist(["help"] * 50, think=1.0)
    record = await _game(front, "10+0")
    assert record.termination == Termination.TIME_FORFEIT
    assert record.winner == 1
    assert len(front.told) in (9, 10)


async def test_resign_ends_the_game_lost_as_a_resignation(autojump_clock: MockClock) -> None:
    front = Typist(["b1c2", "Resign"])
    record = await _game(front, "60+0")
    assert record.result == "0-1" and record.winner == 1
    assert record.termination == Termination.RESIGNATION
    assert record.reason == "p1 (you): resigned"
    assert [m.move for m in record.moves][:1] == ["b1c2"]
    assert len(record.moves) == 2
    assert front.over[0].termination == "resignation"
    pgn = game_to_pgn(record)
    assert '[Result "0-1"]' in pgn and '[Termination "normal"]' in pgn


def _arena_play(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "play", "dobutsu", "--p1", "human", "--p2",
         f"{sys.executable} {BOT} --seed 4", "--tc", "300+1", "--out", str(tmp_path / "out"),
         *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        bufsize=1)


def _read_until(proc: subprocess.Popen[str], marker: str, seen: list[str],
                timeout: float = 60) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if marker in line:
            return line
    raise AssertionError(f"no {marker!r} in the output:\n{''.join(seen)[-3000:]}")


@pytest.mark.slow
def test_arena_play_help_draw_resign_in_a_real_terminal_session(tmp_path: Path) -> None:
    proc = _arena_play(tmp_path)
    assert proc.stdin is not None
    seen: list[str] = []
    try:
        _read_until(proc, "or: help, resign, draw", seen)
        proc.stdin.write("help\n")
        _read_until(proc, "Your clock keeps running", seen)
        proc.stdin.write("draw\n")
        _read_until(proc, "draw offer declined", seen)
        proc.stdin.write("b1c2\n")
        _read_until(proc, "p1 human", seen)  # the move was played: help and draw cost none
        _read_until(proc, "or: help, resign, draw", seen)  # the bot answered, our turn again
        proc.stdin.write("resign\n")
        _read_until(proc, "Score of", seen)
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = "".join(seen)
    assert "not accepted" not in text
    assert "Result: human vs random_bot: 0-1 {resignation: p1 (human): resigned} after 2 plies" \
        in text
    records = [decode_record(line) for line in
               (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert [(r.result, r.termination, r.plies) for r in records] == [
        ("0-1", Termination.RESIGNATION, 2)]
    games = tables.games_frame(summarise_journal(tmp_path / "out"))
    ended = tables.terminations(games, ["human", "random_bot"])
    assert ended["resignation"].to_dict() == {"human": 1, "random_bot": 1}  # counted, not lost
    assert ended["faults"].sum() == 0


@pytest.mark.slow
def test_arena_play_interrupted_writes_the_unfinished_game(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) in the middle of a game: the game is in ``--out`` as ``*``, moves kept."""
    proc = _arena_play(tmp_path)
    assert proc.stdin is not None
    seen: list[str] = []
    try:
        _read_until(proc, "or: help, resign, draw", seen)
        proc.stdin.write("b1c2\n")
        _read_until(proc, "p1 human", seen)
        bot_move = _read_until(proc, "p2 random_bot", seen).split()[3]
        _read_until(proc, "or: help", seen)  # our turn again: the seat waits on stdin
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=120) == 130
        assert proc.stdout is not None
        seen.append(proc.stdout.read())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = "".join(seen)
    assert ("Result: human vs random_bot: * {interrupt: stopped after 2 plies (arena play "
            "interrupted)}, written to") in text, text[-2000:]
    records = [decode_record(line) for line in
               (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 1
    record = records[0]
    assert record.result == "*" and record.termination == Termination.INTERRUPT
    assert record.winner is None and record.p1 == "human" and record.p2 == "random_bot"
    assert [m.move for m in record.moves] == ["b1c2", bot_move]
    assert record.plies == 2 and record.final_position
    pgn = game_to_pgn(record)
    assert '[Result "*"]' in pgn and '[Termination "unterminated"]' in pgn
    # The folder is a run directory like any other: its report counts the game as interrupted
    # (a folder of one unfinished game made the report divide by zero once).
    from reports.html import build_report

    html = build_report(tmp_path / "out").read_text()
    assert "1 game(s) were interrupted." in html


@pytest.mark.slow
def test_the_play_server_stopped_by_sigterm_writes_the_unfinished_game(tmp_path: Path) -> None:
    """``kill`` (SIGTERM, as a service manager stops a server) mid-game: the server stops as on
    Ctrl-C, exit 0, and the game is in ``--out`` as ``*`` with its move (SIGTERM used to end
    the process on the spot, the game lost)."""
    argv = [sys.executable, "-m", "arena.cli", "serve", "--play", "dobutsu", "--bot",
            f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'} --seed 3", "--tc",
            "300+0", "--human", "p2", "--port", "0", "--out", str(tmp_path / "out")]
    log = tmp_path / "serve.log"
    with started(argv, log) as server:
        url = served_url(log, server)
        host = url.split("//", 1)[1].rstrip("/")
        conn = http.client.HTTPConnection(host, timeout=30)
        try:  # a page connects (the game starts); its events until the bot (p1) has moved
            conn.request("GET", "/events")
            events = conn.getresponse()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = events.readline().decode()
                if line.startswith("data:") and json.loads(line[5:])["doc"]["moves"]:
                    break
            else:
                raise AssertionError("the bot never moved")
        finally:
            conn.close()
        os.killpg(server.pid, signal.SIGTERM)
        assert server.wait(timeout=120) == 0
    text = log.read_text()
    assert "SIGTERM: stopping" in text and "Traceback" not in text, text
    assert "written unfinished (*)" in text, text
    [record] = [decode_record(line) for line in
                (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert record.result == "*" and record.termination == Termination.INTERRUPT
    assert record.p1 == "random_bot" and record.plies == 1


@pytest.mark.slow
def test_a_bot_that_does_not_start_loses_to_the_human_seat(tmp_path: Path) -> None:
    """The human seat is no program: it is never started as one, even when the bot fails."""
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", "dobutsu", "--p1", "human", "--p2",
         str(tmp_path / "no-such-bot"), "--tc", "60+1", "--out", str(tmp_path / "out")],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "program 'human'" not in proc.stdout + proc.stderr
    record = decode_record((tmp_path / "out" / "games.jsonl").read_text().splitlines()[0])
    assert (record.result, record.termination) == ("1-0", Termination.CRASH)
    assert record.reason.startswith("p2 (no-such-bot): cannot start bot")
