# One command to run Winnow, one to test it. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean browser-deps

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,bench,batch]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/winnow serve

browser-deps:
	scripts/install-browser-deps

test: $(STAMP) browser-deps
	$(VENV)/bin/ruff check server tests bench
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check server tests bench
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(PY) bench/evaluate.py --write bench/RESULTS.md

clean:
	rm -rf $(VENV) build *.egg-info server/*.egg-info
