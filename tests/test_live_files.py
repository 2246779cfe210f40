"""The runner's live files: what a watcher reads, and that they can never stop a game."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.rundir.live_files import LiveFiles, header_for, live_name
from arena.web.watch import RunWatcher, read_live
from referee.botspec import BotSpec
from referee.order import GameOrder
from referee.record import MoveRecord


def order(game_id: str, opening: Sequence[str] = ()) -> GameOrder:
    """A dobutsu game between bots ``a`` and ``b`` (never started here)."""
    return GameOrder.checked("dobutsu", BotSpec(name="a", cmd=["a"]),
                             BotSpec(name="b", cmd=["b"]), opening=opening, id=game_id)


def test_a_live_file_holds_the_header_and_each_move_and_goes_when_the_game_ends(
        tmp_path: Path) -> None:
    (tmp_path / "live").mkdir()
    (tmp_path / "live" / "stale.jsonl").write_text("left by a killed run\n")
    live = LiveFiles(tmp_path)
    assert not (tmp_path / "live" / "stale.jsonl").exists()
    on_move = live.start(header_for(order("r1-p1-g1", ["b2b3"])))
    path = tmp_path / "live" / live_name("r1-p1-g1")
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=0.0, book=True))
    on_move(MoveRecord(move="b3b2", side=1, elapsed_ms=12.5, clock_ms=9987.5))
    game = read_live(path, None)
    assert game is not None and game.header.p1 == "a" and game.header.opening == ["b2b3"]
    assert [m.move for m in game.moves] == ["b2b3", "b3b2"]
    # A half-written line is left for the next read, which continues from the offset.
    with path.open("ab") as fh:
        fh.write(b'{"move":"c1c2","side":0,"elap')
    assert len(read_live(path, game).moves) == 2  # type: ignore[union-attr]
    with path.open("ab") as fh:
        fh.write(b'sed_ms":3.0}\n')
    assert [m.move for m in read_live(path, game).moves][-1] == "c1c2"  # type: ignore[union-attr]
    live.finish("r1-p1-g1")
    assert not path.exists()


def test_live_files_that_cannot_be_written_never_raise(tmp_path: Path) -> None:
    blocker = tmp_path / "run"
    blocker.write_text("a file where the run directory's live folder would go")
    live = LiveFiles(blocker)
    on_move = live.start(header_for(order("g")))
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=1.0))
    live.finish("g")
    ok = LiveFiles(tmp_path / "ok")
    on_move = ok.start(header_for(order("g")))
    for path in (tmp_path / "ok" / "live").iterdir():
        path.unlink()
    (tmp_path / "ok" / "live").rmdir()
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=1.0))  # the file is gone: no error
    ok.finish("g")


def test_watcher_replays_running_games_into_boards(tmp_path: Path) -> None:
    live = LiveFiles(tmp_path)
    on_move = live.start(header_for(order("g1")))
    watcher = RunWatcher(tmp_path, rebuild_report=False)
    watcher.refresh()
    first = watcher.snapshot
    assert [g["id"] for g in first["running"]] == ["g1"] and first["running"][0]["plies"] == 0
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=5.0, clock_ms=995.0))
    assert watcher.refresh()
    game = watcher.snapshot["running"][0]
    assert game["plies"] == 1 and game["last"] == "b2b3" and game["clocks"][0] == 995.0
    assert game["doc"]["moves"][0][0] == "b2b3" and "error" not in game["doc"]
    assert watcher.snapshot["version"] > first["version"]
    live.finish("g1")
    watcher.refresh()
    assert watcher.snapshot["running"] == []


def test_watcher_offers_a_game_to_view_only_once_the_report_page_exists(tmp_path: Path) -> None:
    """A report build writes its game list before its page: the first build of a run has, for
    a moment, ``report/index.js`` and no ``report.html``. A "view" link then would be a 404."""
    from bench.synthetic import round_robin, write_journal
    from reports.html import build_report

    write_journal(tmp_path, round_robin("dobutsu", games_per_pairing=1, seed=3, max_plies=30))
    page = build_report(tmp_path)
    html = page.read_bytes()
    page.unlink()  # as between the two writes of the first build
    watcher = RunWatcher(tmp_path, rebuild_report=False)
    watcher.refresh()
    finished = watcher.snapshot["finished"]
    assert finished and not any(g["viewer"] for g in finished)
    page.write_bytes(html)
    assert watcher.refresh()
    assert all(g["viewer"] for g in watcher.snapshot["finished"])
