# Two commands: `make run` plays (a terminal table when no token is set; ARGS="--new" or ARGS="target=5"), `make test` checks everything.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest conformance bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tractor-host run $(ARGS)

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy engine persistence bot adapters app

pytest: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider

conformance: $(STAMP)
	$(BIN)/python tests/conformance/check.py tests/conformance/cases

bench: $(STAMP)
	$(BIN)/python -m engine.bench
	$(BIN)/python -m benchmarks.store_bench

clean:
	rm -rf $(VENV) data
