# The two commands the README promises; both work on a fresh machine with Python 3.11 and make.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PYIR := $(VENV)/bin/pyir

.PHONY: demo test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(PYIR) build samples/mlp.py -o out/mlp.pb
	$(PYIR) run out/mlp.pb --feed samples/mlp_input.npy
	$(PYIR) inspect out/mlp.pb

test: $(VENV)/.installed
	$(PY) -m pytest

bench: $(VENV)/.installed
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) out .pytest_cache
