"""``arena serve``'s ``/run/...``: each file sent whole, as it was when the request came, while
the runner replaces or appends to it; nothing outside the run directory.

The requests go through the real Starlette app of ``arena serve`` (:func:`live_app`) as ASGI
calls, with the real files; the file is replaced the way the report replaces it (written
beside, then renamed) between the request and the sending of the body, where a server that
opens the file by name after reading its size would mix two versions.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from arena.web.app import live_app
from arena.web.runfiles import CHUNK, file_response, resolve
from arena.web.watch import RunWatcher

Message = MutableMapping[str, Any]
Reply = tuple[int, dict[str, str], bytes]


def scope(path: str) -> dict[str, Any]:
    return {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
            "query_string": b"", "headers": [], "root_path": "", "scheme": "http",
            "server": ("test", 80), "client": ("test", 1),
            "asgi": {"version": "3.0", "spec_version": "2.4"}}


async def call(app: Callable[..., Awaitable[None]], path: str) -> Reply:
    """Status, headers and body of one GET of ``path`` through ``app`` (an ASGI app or a
    response)."""
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope(path), receive, send)
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], headers, body


def replace(path: Path, data: bytes) -> None:
    """As :func:`arena.atomicfile.write_with` does: a new file beside, renamed over the old."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


async def test_a_file_replaced_while_it_is_sent_arrives_whole_in_its_first_version(
        tmp_path: Path) -> None:
    chart = tmp_path / "report" / "crosstable.png"
    chart.parent.mkdir()
    old, new = b"\x89PNG old " * (3 * CHUNK // 9), b"\x89PNG new, longer " * (5 * CHUNK // 17)
    chart.write_bytes(old)
    response = file_response(chart)  # the request came: the file is taken as it is now
    replace(chart, new)  # the periodic report writes the chart again before the body goes
    _, headers, body = await call(response, "/run/report/crosstable.png")
    assert len(old) > CHUNK  # streamed in pieces, not read at once
    assert body == old and headers["content-length"] == str(len(old))
    assert headers["content-type"] == "image/png"
    # The next request gets the new version, whole.
    status, headers, body = await call(live_app(tmp_path, RunWatcher(tmp_path)),
                                       "/run/report/crosstable.png")
    assert status == 200 and body == new and headers["content-length"] == str(len(new))


async def test_a_growing_file_is_sent_up_to_the_length_announced(tmp_path: Path) -> None:
    journal = tmp_path / "games.jsonl"
    journal.write_bytes(b'{"id": "g1"}\n' * (2 * CHUNK // 13))
    before = journal.read_bytes()
    response = file_response(journal)
    with journal.open("ab") as fh:  # the runner journals another game meanwhile
        fh.write(b'{"id": "g2"}\n')
    _, headers, body = await call(response, "/run/games.jsonl")
    assert body == before and headers["content-length"] == str(len(before))


async def test_only_the_run_directorys_own_files_are_served(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "report").mkdir(parents=True)
    (run_dir / "report.html").write_text("<html>report</html>")
    (tmp_path / "secret.txt").write_text("not for the web")
    (run_dir / "out").symlink_to(tmp_path / "secret.txt")
    app = live_app(run_dir, RunWatcher(run_dir))
    status, headers, body = await call(app, "/run/report.html")
    assert status == 200 and body == b"<html>report</html>"
    assert headers["content-type"].startswith("text/html")
    for path in ("/run/../secret.txt", "/run/out", "/run/report", "/run/missing.png", "/run/"):
        status, _, body = await call(app, path)
        assert status == 404, (path, body)
    assert resolve(run_dir, "report/../report.html") == (run_dir / "report.html").resolve()
    assert resolve(run_dir, "/etc/passwd") is None
