# calibbook: build the book, run the tests.
#
#   make env    create .venv (only if absent) and install calibbook[book,test,distributed] into it,
#               at the exact versions of constraints.txt (the ones the notebooks were executed with)
#   make book   build the HTML book into _build/html (renders the committed notebook outputs)
#   make test   pytest tests/ and the docstring examples, then nbval on book/, then the
#               warning-free book build, then the built pages in headless Chromium
#   make clean  remove _build
#
# Override the interpreter that creates the virtualenv with `make PYTHON=python3.12 env`.

PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JB     := $(VENV)/bin/jupyter-book

# Headless, deterministic matplotlib for every run started from here.
export MPLBACKEND := Agg
# The nbval kernel uses the backend a notebook gets in Jupyter, so that re-executed
# cells produce the same kinds of outputs as the committed ones (a displayed figure
# is a display_data output under the inline backend and nothing at all under Agg).
NBVAL_MPLBACKEND ?= module://matplotlib_inline.backend_inline

# Notebooks that nbval re-executes (checkpoints excluded).
NOTEBOOKS = $(shell find book -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' 2>/dev/null)

.PHONY: env book test clean

env: $(STAMP)

# Create the virtualenv only when it is absent (order-only prerequisite: its age is ignored).
$(VPY):
	$(PYTHON) -m venv $(VENV)

# (Re)install whenever pyproject.toml changes; the stamp records the last install.
$(STAMP): pyproject.toml constraints.txt | $(VPY)
	$(VPY) -m pip install --upgrade pip
	$(VPY) -m pip install -c constraints.txt -e ".[book,test,distributed]"
	touch $@

book: env
	$(JB) build . -W -n --keep-going

# Two workers: the machines have two cores. A notebook's cells share one kernel, so nbval
# hands out whole files (--dist loadfile).
PYTEST_WORKERS ?= 2

test: env
	$(VPY) -m pytest -n $(PYTEST_WORKERS) -m "not built_book" tests/
	$(VPY) -m pytest --doctest-modules calibbook
	@test -n "$(strip $(NOTEBOOKS))" || { echo "error: no notebooks under book/ for nbval to run" >&2; exit 1; }
	MPLBACKEND=$(NBVAL_MPLBACKEND) $(VPY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --nbval-lax --nbval-current-env --nbval-sanitize-with book/nbval_sanitize.cfg book/
	$(JB) build . -W -n --keep-going
	$(VPY) -m pytest -n $(PYTEST_WORKERS) tests/test_browser.py

clean:
	rm -rf _build book/api/generated
