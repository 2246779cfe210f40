# Two commands for a newcomer: `make demo` and `make test`. Both bootstrap .venv.
#
# Installs come from requirements.lock (exact versions of every package, for Python 3.11 on
# Linux), then the project itself with --no-deps: every machine runs the same code.
# pyproject.toml keeps the compatible ranges; `make lock` turns them into a new lock.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock
# The lock tool, pinned like everything else (installed into .venv by `make lock` only).
UV_VERSION := 0.13.9
PYTEST := $(BIN)/python -m pytest -q -p no:cacheprovider
# `make test` runs the tests in pytest-xdist worker processes: more workers than cores, as
# many tests wait on child processes, pipes and clocks. Not many more: the machine's cores are
# busy all through a run (the referee-rule tests are scripted now, the waits are short), and
# each worker pays its own start, collection and imports. On 2 cores, run in turn with the
# suite of 504c056 (6 workers), 3 pairs each: 4 workers 0.91 of its wall time and 0.87 of its
# CPU; 6 workers 0.98-1.05 of both. Tests that share an expensive setup are listed in
# tests/conftest.py (SHARED_SETUP): one worker runs the tests that share it.
TEST_WORKERS ?= 4
XDIST := -n $(TEST_WORKERS) --dist loadgroup

.PHONY: demo demo-league demo-tune test test-fast test-scan bench lint lock bots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

bots:
	@if [ -f sample_bots/Makefile ]; then $(MAKE) -s -C sample_bots; fi

demo: $(STAMP) bots
	$(BIN)/arena run examples/demo.toml --output runs/demo

# A league from the sample bots: two nights, a newcomer built from its folder, a second version.
demo-league: $(STAMP) bots
	examples/league/demo.sh runs/demo-league

# Tune three of greedy's dobutsu piece values by games, then prove the tune (a few minutes).
demo-tune: $(STAMP)
	$(BIN)/arena tune examples/tune-dobutsu.toml --output runs/demo-tune

# Every Python process of a test run (pytest, `arena` commands, bots) caches its bytecode,
# even where the environment says not to: without it each of the hundreds of processes a run
# starts compiles its modules again (and pytest rewrites every test file).
test test-fast: export PYTHONDONTWRITEBYTECODE :=

test: $(STAMP) bots
	$(PYTEST) $(XDIST)

# Everything but the tests marked slow: the quick loop while editing (under a minute). In one
# process: starting workers costs more than they save on these.
test-fast: $(STAMP) bots
	$(PYTEST) -m "not slow"

# The match against Scan 3.1, a real Hub engine. No package registry has Scan, so CI cannot
# install it and `make test` leaves this test out (pyproject's addopts: -m 'not external').
# Build Scan from its public source (github rhalbersma/scan: `make` in src/, plus a zero-filled
# data/eval of 8503280 bytes) and run: make test-scan ARENA_SCAN=/path/to/scan
test-scan: export PYTHONDONTWRITEBYTECODE :=
test-scan: $(STAMP)
	$(PYTEST) -m external

bench: $(STAMP) bots
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check arena protocol ratings referee reports sample_bots tests bench
	$(BIN)/mypy arena protocol ratings referee reports sample_bots bench tests

# Refresh the lock from pyproject.toml's ranges (newest versions that fit), for Python 3.11 on
# Linux whatever machine runs it. Review the diff, run `make test`, commit both files.
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	$(BIN)/uv pip compile pyproject.toml --all-extras --upgrade \
	    --python-version 3.11 --python-platform linux \
	    --custom-compile-command "make lock" --output-file $(LOCK)

clean:
	rm -rf $(VENV) runs build *.egg-info
