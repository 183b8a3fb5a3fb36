# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export YOLO_OFFLINE := 1
export YOLO_AUTOINSTALL := false
export YOLO_CONFIG_DIR := $(CURDIR)/.yolo
export STREAMLIT_BROWSER_GATHER_USAGE_STATS := false

.PHONY: run test lint install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m vision.setup_offline
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/cpoker demo

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) .yolo .pytest_cache
