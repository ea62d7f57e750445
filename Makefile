# calibbook: build the book, run the tests.
#
#   make env        create or refresh .venv with calibbook[book,test,distributed] at the exact
#                   versions of constraints.txt (the ones the notebooks were executed with),
#                   then compile every numba kernel into _build/numba-cache (calibbook.warmup)
#   make book       build the book into _build/html (renders the committed notebook outputs),
#                   then the whole book as one PDF, _build/html/calibbook.pdf: a single-page
#                   build (_build/singlehtml) printed by Chromium with every fold open
#                   (scripts/make_pdf.py; skipped with a message where Chromium is missing)
#   make html       the HTML pages only (about 3 minutes less); make pdf is make book
#   make serve      serve _build/html on http://127.0.0.1:8000/ (SERVE_PORT=...), so that the
#                   search shows excerpts (a file:// page may not fetch the pages it quotes)
#   make unit       the library's unit tests (tests/unit), check_estimator on its representative
#                   subset: the quick loop while you change calibbook/ (under 5 minutes on 2 cores)
#   make lint       ruff check and ruff format --check (what the pre-commit hooks run)
#   make test       everything CI runs: make lint; nbval on book/ (which must compile no kernel:
#                   make env warmed them); all the tests (tests/unit, tests/book, tests/repo,
#                   check_estimator's full sweep) as the machine computes, then the unit tests on
#                   other SIMD and BLAS paths; the docstring examples; nbval on the other path;
#                   the warning-free book build and its PDF; the built pages in headless
#                   Chromium and the PDF's contents; then make lowest when a CPython 3.10 is
#                   installed
#   make lowest     the unit tests against the lowest versions pyproject.toml allows (.venv-lowest)
#   make bench      every benchmark in one table (benchmarks/run_all.py; the cold start in fresh
#                   processes with an empty and a warm numba cache among them), then refresh
#                   data/speed_scaling.csv and re-execute chapter 8 and the decision guide
#   make bench-netcal  calibbook's ENIR and BBQ against netcal's (in .venv-netcal, with torch)
#   make lock       re-resolve constraints.txt for every supported CPython (needs network)
#   make clean      remove _build (the numba cache too);  make distclean  also remove .venv and
#                   .venv-lowest
#
# Choose the interpreter with `make PYTHON=python3.12 env` (CPython 3.11 to 3.13); a .venv
# made with another interpreter, or whose last install failed, is rebuilt from scratch.

PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
JB     := $(VENV)/bin/jupyter-book
# The CPython versions constraints.txt is locked for and the book is tested on.
BOOK_PYTHON_MIN := 3.11
BOOK_PYTHON_MAX := 3.13
# `yes` when the interpreter was named on the command line or in the environment.
PYTHON_CHOSEN := $(if $(filter command environment,$(firstword $(origin PYTHON))),yes,no)

# Headless, deterministic matplotlib for every run started from here.
export MPLBACKEND := Agg
# The nbval kernel uses the backend a notebook gets in Jupyter, so that re-executed
# cells produce the same kinds of outputs as the committed ones (a displayed figure
# is a display_data output under the inline backend and nothing at all under Agg).
NBVAL_MPLBACKEND ?= module://matplotlib_inline.backend_inline

# Notebooks that nbval re-executes (checkpoints excluded).
NOTEBOOKS = $(shell find book -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' 2>/dev/null)

# The second pass of the tests and of nbval: NumPy without its optional SIMD targets (the ones
# this CPU has), and OpenBLAS kernels for another core. book/conftest.py applies each checked
# cell's tolerance.
OTHER_CORETYPE ?= Haswell
OTHER_ARITHMETIC = NPY_DISABLE_CPU_FEATURES="$(NPY_OPTIONAL_FEATURES)" OPENBLAS_CORETYPE=$(OTHER_CORETYPE)
NPY_OPTIONAL_FEATURES = $(shell $(VPY) -c "from numpy._core import _multiarray_umath as m; print(' '.join(f for f in m.__cpu_dispatch__ if m.__cpu_features__.get(f)))")
.PHONY: env book html pdf serve unit lint test nbval nbval-other-arithmetic lowest lock bench bench-netcal \
	clean distclean

# One numba cache for every pass, the nbval kernels' included (they import the same kernels).
# It is valid across the two arithmetic paths: numba keys its cache on the LLVM target (CPU
# name and features), which NPY_DISABLE_CPU_FEATURES and OPENBLAS_CORETYPE leave as they are;
# they change which NumPy and OpenBLAS kernels run, not what numba compiles. make lowest's
# CPython 3.10 and older numba write files of their own beside these.
export NUMBA_CACHE_DIR ?= $(CURDIR)/_build/numba-cache

# make env also fills that cache: python -m calibbook.warmup compiles every kernel once, so that
# no test, notebook or benchmark waits for a compile. It runs again when calibbook's sources
# or the installed packages change (numba recompiles a kernel whose source file changed).
WARM_STAMP = $(NUMBA_CACHE_DIR)/calibbook-warmed
CALIBBOOK_SOURCES = $(shell find calibbook -name '*.py' -not -path '*/__pycache__/*' 2>/dev/null)

env:
	@bash scripts/make_venv.sh "$(PYTHON)" "$(VENV)" $(PYTHON_CHOSEN) $(BOOK_PYTHON_MIN) $(BOOK_PYTHON_MAX)
	@$(MAKE) --no-print-directory $(WARM_STAMP)

$(WARM_STAMP): $(CALIBBOOK_SOURCES) $(VENV)/.installed
	$(VPY) -m calibbook.warmup --quiet
	@touch $@

# The book: the HTML pages, then the whole book as one PDF that the landing page links
# (_build/html/calibbook.pdf). The PDF is the same sources built as one page (it reuses the
# HTML build's parsed documents in _build/.doctrees), printed by the browser test's Chromium
# (scripts/make_pdf.py) with every fold open; without Chromium or playwright it says so and
# stops without error, as the browser test skips. On two cores the one page takes about 60 s
# and its printing about 115 s more than the HTML alone: make html builds only the HTML.
PDF_BUILD = $(JB) build . --builder singlehtml -W -n --keep-going --quiet
PDF_PRINT = $(VPY) scripts/make_pdf.py --skip-without-browser
book: html
	$(PDF_BUILD)
	$(PDF_PRINT)

# Sphinx's incremental build can keep the labels of a page that was removed or split (then
# duplicate-label warnings fail -W): a changed table of contents or page list starts afresh.
html: env
	@mkdir -p _build; { cat _toc.yml; ls book/*.md book/*.ipynb book/api/*.md; } | cksum > _build/.pages.new; \
	cmp -s _build/.pages.new _build/.pages || rm -rf _build/.doctrees _build/html _build/jupyter_execute; \
	mv _build/.pages.new _build/.pages
	$(JB) build . -W -n --keep-going

pdf: book

# The built book over http://127.0.0.1 (this machine only): the search fetches the pages it
# quotes, which a file:// page may not. python -m http.server prints the address.
SERVE_PORT ?= 8000
serve:
	@test -f _build/html/index.html || { echo "error: no _build/html: run make book first" >&2; exit 1; }
	$(PYTHON) -m http.server $(SERVE_PORT) --bind 127.0.0.1 --directory _build/html

# Two workers: the machines have two cores. A notebook's cells share one kernel, so nbval
# hands out whole files (--dist loadfile). tests/conftest.py gives each worker one BLAS thread.
PYTEST_WORKERS ?= 2
# --durations: each pass lists its slowest tests, the data for keeping make test short.
PYTEST = $(VPY) -m pytest -n $(PYTEST_WORKERS) --durations=15
# The library's unit tests with check_estimator on its representative subset: make unit, the
# second arithmetic path and make lowest. tests/book and tests/repo read files (notebooks,
# their glue, README, Makefile, the environment files) and compare text, so they run once.
UNIT_TESTS = tests/unit -m "not full_sweep and not cold_compile"

# PYTEST_ARGS: more options for make unit, e.g. PYTEST_ARGS="--lf" or PYTEST_ARGS="-k isotonic".
unit: env
	$(PYTEST) $(UNIT_TESTS) $(PYTEST_ARGS)

RUFF_CHECK = $(VENV)/bin/ruff check .
lint: env
	$(RUFF_CHECK)
	$(VENV)/bin/ruff format --check .

# nbval runs first, right after make env has warmed the numba cache: its check that the
# notebooks compile no kernel would prove nothing after the tests had compiled their own.
test: env
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory nbval
	$(PYTEST) -m "not built_book" tests/unit tests/book tests/repo
	$(OTHER_ARITHMETIC) $(PYTEST) -p no:cacheprovider $(UNIT_TESTS)
	$(VPY) -m pytest --doctest-modules calibbook
	$(MAKE) --no-print-directory nbval-other-arithmetic
	$(MAKE) --no-print-directory book
	$(PYTEST) --dist loadgroup tests/book/test_browser.py tests/book/test_pdf.py tests/book/test_references.py
	@if [ -n "$(LOWEST_PYTHON)" ]; then $(MAKE) --no-print-directory lowest; \
	else echo "== skipped make lowest: no CPython 3.10 here (make LOWEST_PYTHON=... lowest)"; fi

# Each pass starts from an empty experiment cache (chapter 8 caches per split), so that it
# recomputes on its own arithmetic path instead of reading the previous pass's numbers.
NBVAL_CACHE = $(CURDIR)/_build/nbval-cache
NBVAL = CALIBBOOK_CACHE=$(NBVAL_CACHE) MPLBACKEND=$(NBVAL_MPLBACKEND) $(VPY) -m pytest -n $(PYTEST_WORKERS) --durations=15 --dist loadfile --nbval-lax \
	--nbval-current-env --nbval-sanitize-with book/nbval_sanitize.cfg -p no:cacheprovider

# Both passes fail if a notebook compiled a kernel that make env's warm-up did not
# (scripts/numba_cache_watch.py compares the cache folder before and after).
CACHE_WATCH = $(VPY) scripts/numba_cache_watch.py -- env

nbval: env
	@test -n "$(strip $(NOTEBOOKS))" || { echo "error: no notebooks under book/ for nbval to run" >&2; exit 1; }
	rm -rf $(NBVAL_CACHE)
	$(CACHE_WATCH) $(NBVAL) book/

nbval-other-arithmetic: env
	rm -rf $(NBVAL_CACHE)
	$(CACHE_WATCH) $(OTHER_ARITHMETIC) $(NBVAL) book/

# The library's floor: pyproject.toml's lowest direct dependencies (those of the distributed
# and experiments extras too, so that test_distributed and the pandas and matplotlib tests run),
# on the oldest CPython it allows, against the unit tests (uv resolves them; the test tools take
# what fits).
# The first CPython 3.10 that runs: on PATH, or in pyenv's versions (whose shims refuse
# versions that are not active).
LOWEST_PYTHON ?= $(firstword $(foreach p,python3.10 $(wildcard $(HOME)/.pyenv/versions/3.10*/bin/python3.10),\
	$(shell $(p) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 10))' >/dev/null 2>&1 && echo $(p))))
LOWEST_VENV   := .venv-lowest
lowest:
	@test -n "$(LOWEST_PYTHON)" || { echo "error: make lowest needs CPython 3.10; name one with make LOWEST_PYTHON=/path/to/python3.10 lowest" >&2; exit 1; }
	rm -rf $(LOWEST_VENV)
	$(LOWEST_PYTHON) -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python -m pip install --quiet uv
	$(LOWEST_VENV)/bin/uv pip compile pyproject.toml --extra distributed --extra experiments --resolution lowest-direct \
		--python $(LOWEST_VENV)/bin/python --quiet -o $(LOWEST_VENV)/lowest.txt
	$(LOWEST_VENV)/bin/uv pip install --python $(LOWEST_VENV)/bin/python -c $(LOWEST_VENV)/lowest.txt \
		-r $(LOWEST_VENV)/lowest.txt -e ".[test,distributed]"
	$(LOWEST_VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) -p no:cacheprovider $(UNIT_TESTS)

# One lock for every supported CPython: markers pick per-version pins where needed
# (soupsieve 4.1.2, for one, needs 3.11.5). Existing pins are kept unless you upgrade one:
#   make lock UV_ARGS="--upgrade-package scikit-learn"   (then re-execute the notebooks)
lock: env
	$(VPY) -m pip install --quiet uv
	$(VENV)/bin/uv pip compile pyproject.toml --all-extras --universal --python-version $(BOOK_PYTHON_MIN) \
		--custom-compile-command "make lock" $(UV_ARGS) -o constraints.txt

# One BLAS thread: a spinning OpenBLAS pool after scikit-learn's calls skews the next timing.
bench: env
	OPENBLAS_NUM_THREADS=1 $(VPY) benchmarks/run_all.py
	OPENBLAS_NUM_THREADS=1 $(VPY) benchmarks/bench_scaling.py --csv data/speed_scaling.csv
	cd book && CALIBBOOK_CACHE=$(CURDIR)/_build/bench-cache MPLBACKEND=$(NBVAL_MPLBACKEND) \
		$(CURDIR)/$(VENV)/bin/jupyter execute --inplace 08_comparison.ipynb which_calibrator.ipynb

# netcal (which needs torch, 3 GB with the CUDA libraries PyPI's wheel pulls) in its own venv,
# timed against calibbook's ENIR and BBQ (data/speed_netcal.csv, which chapter 8 plots beside
# data/speed_scaling.csv); the main environment never imports it.
NETCAL_VENV ?= .venv-netcal
bench-netcal:
	test -x $(NETCAL_VENV)/bin/python || $(PYTHON) -m venv $(NETCAL_VENV)
	$(NETCAL_VENV)/bin/python -m pip install --quiet "netcal==1.4.0" -e .
	OPENBLAS_NUM_THREADS=1 $(NETCAL_VENV)/bin/python benchmarks/run_all.py --only bench_netcal \
		--csv _build/bench-netcal.csv
	OPENBLAS_NUM_THREADS=1 $(NETCAL_VENV)/bin/python benchmarks/bench_scaling.py --sizes 1e3 1e4 1e5 \
		--budget 5 --methods ENIR BBQ "netcal ENIR" "netcal BBQ" --csv data/speed_netcal.csv

clean:
	rm -rf _build book/api/generated

distclean: clean
	rm -rf $(VENV) $(LOWEST_VENV)
