"""The test suite's wall time next to an earlier commit's, side by side on this machine.

Issue 12 asks that the whole suite be no slower than it was when the issue was filed. A
figure remembered from another machine (or another day of a shared one) says little, so this
runs both suites here, alternately: the earlier commit checked out into a temporary worktree
with a venv of its own, installed from *this* commit's lock (the earlier commit had no lock,
and its tests should see the same library versions), run the way its Makefile ran them (one
pytest process, the environment as it is); then this checkout's ``make test`` command (xdist
workers, bytecode cached). Printed: pytest's own time of each run, median [min-max], the
ratio, and how many tests each suite has.

Opt-in, as one pair of runs takes ~10 minutes on 2 cores: ``BENCH_SUITE_BASE=<commit>`` (the
suite of issue 12's filing is 4570c6c), ``BENCH_SUITE_REPEATS`` pairs (default 2); pytest
arguments for both sides in ``BENCH_SUITE_ARGS`` (e.g. ``-k protocol`` as a smoke test).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_cutechess import ratio, spread

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
RESULT = re.compile(r"(?:(\d+) failed, )?(\d+) passed.* in ([0-9.]+)s")


def _pytest_time(log: str) -> tuple[float, int, int]:
    """pytest's own seconds, passed and failed counts from the last line of a -q run."""
    found = RESULT.findall(log)
    if not found:
        raise SystemExit(f"no pytest summary in the output:\n{log[-3000:]}")
    failed, passed, seconds = found[-1]
    return float(seconds), int(passed), int(failed or 0)


def _prepare_base(commit: str, work: Path) -> Path:
    tree = work / "base"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(tree),
                    commit], check=True, capture_output=True)
    python = tree / ".venv" / "bin" / "python"
    subprocess.run([sys.executable, "-m", "venv", str(tree / ".venv")], check=True)
    for args in (["install", "-q", "-r", str(LOCK)], ["install", "-q", "--no-deps", "-e", "."]):
        subprocess.run([str(python), "-m", "pip", *args], cwd=tree, check=True,
                       capture_output=True)
    subprocess.run(["make", "-s", "bots"], cwd=tree, check=False, capture_output=True)
    return tree


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, int]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return _pytest_time(done.stdout + done.stderr)


def main() -> None:
    commit = os.environ.get("BENCH_SUITE_BASE")
    if not commit:
        print("   skipped: set BENCH_SUITE_BASE=<commit> to time that commit's suite next to "
              "this one (4570c6c is the suite of issue 12's filing; ~10 min per pair)")
        return
    repeats = int(os.environ.get("BENCH_SUITE_REPEATS", "2"))
    extra = shlex.split(os.environ.get("BENCH_SUITE_ARGS", ""))
    ours_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    ours_argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n",
                 os.environ.get("TEST_WORKERS", "6"), "--dist", "loadgroup", *extra]
    with tempfile.TemporaryDirectory(prefix="arena-bench-suite-") as tmp:
        tree = _prepare_base(commit, Path(tmp))
        base_argv = [str(tree / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-p",
                     "no:cacheprovider", *extra]
        base: list[tuple[float, int, int]] = []
        ours: list[tuple[float, int, int]] = []
        try:
            for _ in range(repeats):
                base.append(_run(base_argv, tree, dict(os.environ)))
                ours.append(_run(ours_argv, ROOT, ours_env))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], check=False, capture_output=True)
            shutil.rmtree(tree, ignore_errors=True)
    times_base = [b[0] for b in base]
    times_ours = [o[0] for o in ours]
    print(f"-- the whole suite, {repeats} interleaved runs each (pytest's time; median [min-max])")
    print(f"   {commit[:10]:10} {spread(times_base, ' s'):22} {base[0][1]} passed, "
          f"{max(b[2] for b in base)} failed")
    print(f"   {'this':10} {spread(times_ours, ' s'):22} {ours[0][1]} passed, "
          f"{max(o[2] for o in ours)} failed")
    print(f"   ratio this/{commit[:10]}: {ratio(times_ours, times_base)} "
          f"(target <= 1.0x); per test {statistics.median(times_ours) / ours[0][1]:.3f} s "
          f"vs {statistics.median(times_base) / base[0][1]:.3f} s")


if __name__ == "__main__":
    main()
