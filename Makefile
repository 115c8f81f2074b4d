# The two commands the README promises; both work on a fresh machine with Python 3.11 and make.
#   make demo   venv + install, build samples/mlp.py, run it on its input, inspect it
#   make test   venv + install, the whole test suite (what .ci/run runs)
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PYIR := $(VENV)/bin/pyir
PIP := $(PY) -m pip --disable-pip-version-check -qq

.PHONY: demo test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(PYIR) build samples/mlp.py -o out/mlp.pb
	$(PYIR) run out/mlp.pb --feed samples/mlp_input.npy -o out/mlp_output.npz
	$(PYIR) inspect out/mlp.pb

test: $(VENV)/.installed
	$(PY) -m pytest

bench: $(VENV)/.installed
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) out .pytest_cache
