"""The runner's live files: what a watcher reads, and that they can never stop a game."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.rundir.live_files import LiveFiles, header_for, live_name
from arena.web.livepage import final_caption, running_hint
from arena.web.watch import RunWatcher, read_live
from referee.botspec import BotSpec
from referee.order import GameOrder
from referee.record import MoveRecord


def shown(live: LiveFiles) -> None:
    """Two flushes, as the runner makes them 0.2 s apart: a game's file is made by the second
    flush that finds it running."""
    live.flush()
    live.flush()


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
    assert not path.exists()  # nothing is written before a flush
    shown(live)
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


def test_a_flush_writes_only_what_is_new_and_a_game_over_before_one_leaves_no_file(
        tmp_path: Path) -> None:
    """A game gets its file from the second flush that finds it running (a game over sooner
    never gets one, and its end removes nothing of another game's); each later flush
    appends the moves since the one before, and a game that did not move writes nothing."""
    live = LiveFiles(tmp_path)
    on_move = live.start(header_for(order("slow")))
    path = tmp_path / "live" / live_name("slow")
    live.flush()
    assert not path.exists()
    live.flush()
    assert path.read_bytes().count(b"\n") == 1  # the header
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=1.0))
    on_move(MoveRecord(move="b3b2", side=1, elapsed_ms=1.0))
    live.flush()
    size = path.stat().st_size
    live.flush()
    assert path.stat().st_size == size
    quick = live.start(header_for(order("quick")))
    quick(MoveRecord(move="c1c2", side=0, elapsed_ms=1.0))
    live.flush()
    live.finish("quick")
    live.flush()
    assert sorted(p.name for p in (tmp_path / "live").iterdir()) == [live_name("slow")]
    game = read_live(path, None)
    assert game is not None and [m.move for m in game.moves] == ["b2b3", "b3b2"]


def test_live_files_that_cannot_be_written_never_raise(tmp_path: Path) -> None:
    blocker = tmp_path / "run"
    blocker.write_text("a file where the run directory's live folder would go")
    live = LiveFiles(blocker)
    on_move = live.start(header_for(order("g")))
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=1.0))
    shown(live)
    live.finish("g")
    ok = LiveFiles(tmp_path / "ok")
    on_move = ok.start(header_for(order("g")))
    shown(ok)
    for path in (tmp_path / "ok" / "live").iterdir():
        path.unlink()
    (tmp_path / "ok" / "live").rmdir()
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=1.0))  # the file is gone: no error
    shown(ok)
    late = ok.start(header_for(order("h")))  # nor for a game whose file cannot be made
    late(MoveRecord(move="b2b3", side=0, elapsed_ms=1.0))
    shown(ok)
    ok.finish("g")
    ok.finish("h")


def test_watcher_replays_running_games_into_boards(tmp_path: Path) -> None:
    live = LiveFiles(tmp_path)
    on_move = live.start(header_for(order("g1")))
    shown(live)
    watcher = RunWatcher(tmp_path, rebuild_report=False)
    watcher.refresh()
    first = watcher.snapshot
    assert [g["id"] for g in first["running"]] == ["g1"] and first["running"][0]["plies"] == 0
    on_move(MoveRecord(move="b2b3", side=0, elapsed_ms=5.0, clock_ms=995.0))
    shown(live)
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


def test_a_journaled_game_leaves_the_games_in_progress_at_once(tmp_path: Path) -> None:
    """The runner journals a game, then removes its live file: a watcher that reads between
    the two showed the game twice (3 "in progress" at concurrency 2). A game in the journal
    is finished, whatever the live folder still holds."""
    from bench.synthetic import round_robin, write_journal

    records = round_robin("dobutsu", games_per_pairing=1, seed=3, max_plies=30)
    done, running = records[0], records[1]
    live = LiveFiles(tmp_path)
    for record in (done, running):
        on_move = live.start(header_for(order(record.id)))
        for move in record.moves[:3]:
            on_move(move)
    shown(live)
    watcher = RunWatcher(tmp_path, rebuild_report=False)
    watcher.refresh()
    assert [g["id"] for g in watcher.snapshot["running"]] == sorted([done.id, running.id])
    write_journal(tmp_path, [done])  # journaled; its live file not removed yet
    assert watcher.refresh()
    snap = watcher.snapshot
    assert [g["id"] for g in snap["running"]] == [running.id]
    assert [g["id"] for g in snap["finished"]] == [done.id] and snap["done"] == 1


def test_the_ply_count_and_the_board_agree_while_the_opening_is_written(
        tmp_path: Path) -> None:
    """A game's live header names its opening before the referee writes the opening's moves
    (as book moves, once the bots are ready): the board showed the opening played ("partie 1
    ply 2") under "ply 0". The board shows exactly the plies the file holds."""
    live = LiveFiles(tmp_path)
    on_move = live.start(header_for(
        GameOrder.checked("donkan", BotSpec(name="a", cmd=["a"]), BotSpec(name="b", cmd=["b"]),
                          opening=["d1d2", "d7d6"], id="g1")))
    watcher = RunWatcher(tmp_path, rebuild_report=False)
    plies_seen = []
    for played in (None, ("d1d2", 0, True), ("d7d6", 1, True), ("d2d3", 0, False)):
        if played is not None:
            move, side, book = played
            on_move(MoveRecord(move=move, side=side, elapsed_ms=0.0, book=book))
        shown(live)
        watcher.refresh()
        game = watcher.snapshot["running"][0]
        assert "error" not in game["doc"], game["doc"]
        assert game["plies"] == len(game["doc"]["moves"])
        assert f"partie 1 ply {game['plies']}," in final_caption(game["doc"])
        assert f", ply {game['plies']}" in running_hint(game)
        plies_seen.append(game["plies"])
    assert plies_seen == [0, 1, 2, 3]


def test_a_finished_games_pgn_is_there_before_the_report(tmp_path: Path) -> None:
    from bench.synthetic import round_robin, write_journal

    records = round_robin("dobutsu", games_per_pairing=1, seed=3, max_plies=30)
    write_journal(tmp_path, records)
    watcher = RunWatcher(tmp_path, rebuild_report=False)
    watcher.refresh()
    key = watcher.snapshot["finished"][0]["key"]
    pgn = watcher.pgn(key)
    last = records[-1]
    assert pgn is not None and f'[GameId "{last.id}"]' in pgn and last.result in pgn
    assert last.moves[0].move in pgn
    assert watcher.pgn("no-such-game") is None
