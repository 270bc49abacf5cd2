# Two commands: `make run` plays (a terminal table when no token is set; ARGS="--new" or ARGS="target=5"), `make test` checks everything.
# The venv's Python: the distribution's /usr/bin/python3 when it is 3.11 or newer and can make a venv
# (Debian's is built with profile-guided and link-time optimisation; a plain source build, such as
# pyenv's default, runs the bot and the suite about a tenth slower: docs/testing.md), else python3.
# PY=... chooses another; an existing .venv is kept (`make clean` to remake it).
PY ?= $(shell /usr/bin/python3 -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& echo /usr/bin/python3 || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint typecheck pytest conformance bench messages clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Message catalogs (bot/i18n.py): the .po files are the source, the .mo files are built here, not committed.
LOCALES := bot/locales
PO := $(wildcard $(LOCALES)/*/LC_MESSAGES/tractor.po)
MO := $(PO:.po=.mo)
KEYWORDS := --no-default-keywords -k tr:2 -k N_ -k P_:1,2

$(LOCALES)/%/LC_MESSAGES/tractor.mo: $(LOCALES)/%/LC_MESSAGES/tractor.po | $(STAMP)
	$(BIN)/pybabel compile -D tractor -l $* -i $< -o $@

# After adding or removing keys in the code: re-extract them and update every .po (then fill in the texts).
messages: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg $(KEYWORDS) --no-wrap --no-location --sort-output --project tractor-host \
		-o $(LOCALES)/tractor.pot bot adapters
	$(BIN)/pybabel update -D tractor -d $(LOCALES) -i $(LOCALES)/tractor.pot --no-wrap --no-fuzzy-matching
	$(MAKE) $(MO)

# What a server needs (docs/operating.md): the venv with the package, and the message catalogs.
install: $(STAMP) $(MO)

# Ctrl-C at the table saves and exits with 130: that is a normal way to leave, not a failure of make.
run: $(STAMP) $(MO)
	$(BIN)/tractor-host run $(ARGS) || [ $$? -eq 130 ]

# mypy (half a minute from a cold cache, one core) runs beside pytest, which leaves part of the
# machine idle while it waits on real processes; its report comes after pytest's.
test: $(STAMP) $(MO) lint
	@$(MAKE) -s typecheck > .typecheck.log 2>&1 & typecheck=$$!; \
	$(MAKE) -s pytest; tests=$$?; \
	wait $$typecheck; types=$$?; cat .typecheck.log; rm -f .typecheck.log; \
	[ $$tests -eq 0 ] && [ $$types -eq 0 ]

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy engine persistence bot adapters app

# In TEST_WORKERS processes (default: one a core and two more, to fill the time the tests that wait
# on real processes and real platforms' pace leave idle), taking one test at a time, the long ones
# (marked slow) first, the rest in a new order every run (TEST_SEED=N repeats one),
# naming the 15 slowest tests at the end. docs/testing.md says how the suite is laid out.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 2 )))
# Bytecode is written and compiled once before the workers start, the test modules' as pytest rewrites
# them too (PYTHONDONTWRITEBYTECODE, set on some machines, would make every worker and every process a
# test starts compile it all again).
pytest: $(STAMP) $(MO)
	@seed=$${TEST_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "test order: TEST_SEED=$$seed make pytest runs this order again"; \
	export PYTHONDONTWRITEBYTECODE=; \
	$(BIN)/python -m compileall -q -j 0 engine bot adapters persistence app fakes benchmarks tests > /dev/null; \
	$(BIN)/python tests/rewrite_ahead.py; \
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist load --maxschedchunk 1 \
		-p randomly --randomly-seed=$$seed --durations=15

conformance: $(STAMP)
	$(BIN)/python tests/conformance/check.py tests/conformance/cases

bench: $(STAMP)
	$(BIN)/python -m engine.bench
	$(BIN)/python -m benchmarks.store_bench

clean:
	rm -rf $(VENV) data $(MO) $(LOCALES)/tractor.pot
