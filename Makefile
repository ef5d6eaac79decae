# Two commands for a newcomer: `make run` and `make test`. Both create .venv when it is missing
# and reinstall only when pyproject.toml or constraints.txt changed (the stamp files track it).
# `make run` installs what the bot needs (with the PostgreSQL driver); `make test` adds the test
# tools. Both install the versions pinned in constraints.txt; `make constraints` updates them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
CONSTRAINTS := constraints.txt

.PHONY: run doctor test unit lint typecheck check console bench constraints clean

$(RUN_STAMP): pyproject.toml $(CONSTRAINTS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[postgres]'
	@touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[test,postgres]'
	@touch $(STAMP)

# Deliberately move the pins: upgrade every package within pyproject.toml's ranges, then write
# what is installed to constraints.txt. Run `make test` and commit the file afterwards.
constraints:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --upgrade -e '.[test,postgres]'
	@{ sed -n '/^#/p' $(CONSTRAINTS); $(BIN)/python -m pip freeze --exclude-editable; } > $(CONSTRAINTS).new
	@mv $(CONSTRAINTS).new $(CONSTRAINTS)
	@touch $(RUN_STAMP) $(STAMP)
	@echo "constraints.txt updated: run make test, then commit it"

run: $(RUN_STAMP)
	$(BIN)/python -m bot run

doctor: $(RUN_STAMP)
	$(BIN)/python -m bot doctor

console: $(RUN_STAMP)
	$(BIN)/python -m bot console

# The suite runs on two workers per core (pytest-xdist): its end-to-end tests mostly wait on
# processes, sockets and timers, so one worker per core leaves the cores half idle.
# TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(2 * (os.cpu_count() or 1))')
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

test: $(STAMP)
	$(BIN)/ruff check bot tests bench migrations examples
	$(BIN)/ruff format --check bot tests bench migrations examples
	$(BIN)/mypy
	$(PYTEST) $(PYTEST_ARGS)

# The fast half: everything but the end-to-end tests (which start the bot against the fakes).
unit: $(STAMP)
	$(PYTEST) -m "not e2e" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check bot tests bench migrations examples
	$(BIN)/ruff format --check bot tests bench migrations examples

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
