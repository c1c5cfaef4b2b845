# `make plan` and `make test` bootstrap .venv on first use (and again when the
# dependency declarations change), so a fresh clone needs nothing but python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv plan test lint unit bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	touch $(STAMP)

plan: $(STAMP)
	$(BIN)/python -m nodepools plan --stack dev

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

unit: $(STAMP)
	$(BIN)/python -m pytest

test: lint unit

# All five benchmarks, the fresh-clone test suite included; rewrites benchmarks/README.md.
bench: $(STAMP)
	$(BIN)/python -m benchmarks --suite

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
