# The two commands the README promises; both work on a fresh machine with Python 3.11 and make.
#   make demo   venv + install, build samples/mlp.py, run it on its input, inspect it
#   make test   venv + install, the whole test suite (what .ci/run runs)
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PYIR := $(VENV)/bin/pyir
PIP := $(PY) -m pip --disable-pip-version-check -qq

.PHONY: demo test bench clean chromium

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(PYIR) build samples/mlp.py -o out/mlp.pb
	$(PYIR) run out/mlp.pb --feed samples/mlp_input.npy -o out/mlp_output.npz
	$(PYIR) inspect out/mlp.pb

# The Netron test drives Debian's headless Chromium; install it when it is missing (as root).
chromium:
	@command -v chromium >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 \
	  || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
	  || echo "make: could not install Debian's chromium; tests/test_view.py needs it"

test: $(VENV)/.installed chromium
	$(PY) -m pytest

bench: $(VENV)/.installed
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) out .pytest_cache
