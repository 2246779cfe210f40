"""Nothing in a run directory is unpickled or executed: a run directory received from someone
else may hold a planted report cache. Through a real ``arena report RUN_DIR`` on the run
directory of a real ``arena run``: a pickle whose ``__reduce__`` creates a marker file, planted
under the cache's old name (``report/journal-summary.pickle``, which ``reports/journal_summary.py``
unpickled) and under its new one, creates nothing; damaged, truncated, other-version, lying and
odd (a FIFO, a link, a giant file) caches are ignored and rebuilt from the journal.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from test_runner import RANDOM_BOT, arena_run, bot, check_complete, write_config

from arena.rundir.layout import REPORT_DIR, RunDir
from reports.journal_summary import summarise_journal

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
REPORT_TIMEOUT = 180
OLD_CACHE = "journal-summary.pickle"
"""The cache's name when it was a pickle: an old arena read it, a planted one is never read."""


class _Plant:
    """Unpickled, creates the file ``marker`` (as a planted cache would run ``id``)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def hostile_pickle(marker: Path) -> bytes:
    """The payload, and proof that it is one: unpickling it here creates ``marker``."""
    payload = pickle.dumps((6, _Plant(marker)))
    _, handle = pickle.loads(payload)
    handle.close()
    assert marker.exists(), "the payload does not do what a planted pickle would"
    marker.unlink()
    return payload


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run directory of a short real ``arena run`` (no report yet)."""
    tmp = tmp_path_factory.mktemp("played")
    head = 'game = "dobutsu"\ntc = "10+0.1"\nseed = 3\ngames_per_pairing = 2\n'
    head += "[adjudication]\nmax_plies = 40\n"
    config = write_config(tmp, head, [bot("rnd0", RANDOM_BOT, "--seed", "0"),
                                      bot("rnd1", RANDOM_BOT, "--seed", "1")])
    out = tmp / "out"
    done = arena_run(config, out, "--plain")
    assert done.returncode == 0, done.stderr
    check_complete(out)
    return out


@pytest.fixture
def run_dir(played: Path, tmp_path: Path) -> Path:
    """A copy of the played run directory, with its (empty) report folder."""
    out = Path(shutil.copytree(played, tmp_path / "run"))
    (out / REPORT_DIR).mkdir(exist_ok=True)
    return out


def arena_report(run_dir: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "arena.cli", "report", str(run_dir)],
                          capture_output=True, text=True, timeout=REPORT_TIMEOUT, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def games_in_report(run_dir: Path) -> int:
    return len((run_dir / "games.csv").read_text().splitlines()) - 1


def check_rebuilt(run_dir: Path) -> None:
    """The report counts every game, and the cache is now a cache of the whole journal: read
    back whole (a cache that is not read is rewritten, with a new modification time)."""
    games = len(check_complete(run_dir))
    assert games_in_report(run_dir) == games > 0
    cache = RunDir(run_dir).summary_cache
    assert cache.is_file() and not cache.is_symlink()
    written = cache.stat().st_mtime_ns
    fresh = summarise_journal(run_dir)
    cached = summarise_journal(run_dir, cache=cache)
    assert cached.games == fresh.games and cached.end == fresh.end > 0
    assert cached.bots == fresh.bots
    for column in ("bot", "elapsed_ms", "depth", "nodes"):  # as bytes: NaN != NaN
        assert getattr(cached.moves, column).tobytes() == getattr(fresh.moves, column).tobytes()
    assert cache.stat().st_mtime_ns == written


def test_a_planted_pickle_runs_nothing(run_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = hostile_pickle(marker)
    files = RunDir(run_dir)
    (files.report_dir / OLD_CACHE).write_bytes(payload)
    files.summary_cache.write_bytes(payload)
    arena_report(run_dir)
    assert not marker.exists(), "a pickle from the run directory was loaded"
    check_rebuilt(run_dir)
    # A refresh reads the rebuilt cache; the old name is still never opened.
    before = files.summary_cache.stat().st_mtime_ns
    arena_report(run_dir)
    assert not marker.exists()
    assert files.summary_cache.stat().st_mtime_ns == before  # nothing new: not rewritten
    assert (files.report_dir / OLD_CACHE).read_bytes() == payload


def _valid_cache(run_dir: Path) -> bytes:
    """The cache of this run directory as the report writes it."""
    cache = RunDir(run_dir).summary_cache
    summarise_journal(run_dir, cache=cache)
    data = cache.read_bytes()
    cache.unlink()
    return data


def _other_version(data: bytes) -> bytes:
    fields = msgspec.msgpack.decode(data)
    fields["version"] -= 1
    return msgspec.msgpack.encode(fields)


def _lying(data: bytes) -> bytes:
    """Well formed, but for a journal it does not match (its checksums are another's)."""
    fields = msgspec.msgpack.decode(data)
    fields["games"] = fields["games"][:1]
    fields["check"] = [1, 2]
    return msgspec.msgpack.encode(fields)


def _ragged(data: bytes) -> bytes:
    """Well formed, but its move columns do not line up (one byte short)."""
    fields = msgspec.msgpack.decode(data)
    fields["move_ms"] = fields["move_ms"][:-1]
    return msgspec.msgpack.encode(fields)


def plant_cache(kind: str, path: Path, data: bytes) -> None:
    """Put a cache that is not ours at ``path`` (``data``: a valid cache of the run)."""
    if kind == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif kind == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "other version":
        path.write_bytes(_other_version(data))
    elif kind == "lying":
        path.write_bytes(_lying(data))
    elif kind == "ragged columns":
        path.write_bytes(_ragged(data))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":  # to a valid cache: still not followed
        path.with_name("elsewhere").write_bytes(data)
        path.symlink_to("elsewhere")
    elif kind == "giant":  # sparse: 1 TiB that costs no disk
        path.write_bytes(data)
        os.truncate(path, 1 << 40)
    else:
        raise AssertionError(kind)


PLANTS = ("truncated", "garbage", "empty", "other version", "lying", "ragged columns", "fifo",
          "link", "giant")


@pytest.mark.parametrize("plant", PLANTS)
def test_a_cache_that_is_not_ours_is_ignored_and_rebuilt(run_dir: Path, plant: str) -> None:
    """Each one is refused by the reader and replaced (a FIFO would block a plain ``open``; a
    link is not followed, whatever it points at; a giant file is not read)."""
    cache = RunDir(run_dir).summary_cache
    data = _valid_cache(run_dir)
    plant_cache(plant, cache, data)
    if plant == "lying":  # what the check protects: this cache alone would count 1 game
        assert len(msgspec.msgpack.decode(cache.read_bytes())["games"]) == 1
    arena_report(run_dir)
    check_rebuilt(run_dir)
    if plant == "link":  # replaced, not written through
        assert cache.with_name("elsewhere").read_bytes() == data
