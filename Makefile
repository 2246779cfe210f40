# Two commands for a newcomer: `make demo` and `make test`. Both bootstrap .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint bots clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

bots:
	@if [ -f sample_bots/Makefile ]; then $(MAKE) -s -C sample_bots; fi

demo: $(STAMP) bots
	$(BIN)/arena run examples/demo.toml --output runs/demo

test: $(STAMP) bots
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: $(STAMP) bots
	$(BIN)/python -m pip install --quiet pydraughts || echo "pydraughts unavailable: bench_draughts skips its comparison"
	$(BIN)/python -m pip install --quiet pyffish || echo "pyffish unavailable: bench_small_games skips its Fairy-Stockfish cross-check"
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check arena protocol referee reports sample_bots tests bench
	$(BIN)/mypy arena protocol referee reports

clean:
	rm -rf $(VENV) runs build *.egg-info
