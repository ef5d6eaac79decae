# Two commands for a newcomer: `make run` and `make test`. Both create .venv when it is missing
# and reinstall only when pyproject.toml changed (the stamp file tracks it). Tests run on SQLite and
# PostgreSQL, so the PostgreSQL driver is installed with the test tools.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test unit lint typecheck check console bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,postgres]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot run

console: $(STAMP)
	$(BIN)/python -m bot console

test: $(STAMP)
	$(BIN)/ruff check bot tests bench migrations examples
	$(BIN)/ruff format --check bot tests bench migrations examples
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The fast half: everything but the end-to-end tests (which start the bot against the fakes).
unit: $(STAMP)
	$(BIN)/python -m pytest -m "not e2e" $(PYTEST_ARGS)

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
