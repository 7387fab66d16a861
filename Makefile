# Attention by Hand. The README gives the two commands for a fresh machine:
#   make serve   set up, build and serve the site with live reload
#   make test    set up and run the whole test suite
# Each one creates .venv and installs the locked toolchain first, if needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The toolchain's lock: every package with its version and the hashes of all
# the files PyPI publishes for it (`make lock` writes it from requirements/test.in).
LOCK   := requirements/test.txt
STAMP  := $(VENV)/.installed-$(shell cat $(LOCK) pyproject.toml | cksum | cut -d' ' -f1)
PIP    := $(BIN)/python -m pip --disable-pip-version-check

export NO_MKDOCS_2_WARNING := 1
# Some machines set PYTHONDONTWRITEBYTECODE: then every test worker and every
# build compiles the package and the tests afresh (and pytest rewrites every
# test module again). The compiled files go to __pycache__/, which git ignores.
unexport PYTHONDONTWRITEBYTECODE
# Reproducible builds: dates in the site (sitemap, gzip header) are the last
# commit's time, so the same commit gives the same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
ifneq ($(SOURCE_DATE_EPOCH),)
export SOURCE_DATE_EPOCH
endif

.PHONY: install lock serve build strict offline test test-fast lint dist clean mutate-numbers

# pip checks every file it downloads against the lock and stops at the first
# mismatch. The project itself cannot be hash-checked (pip refuses editable
# installs under --require-hashes): it has no dependency of its own to fetch
# (--no-deps) and is built by the locked setuptools (--no-build-isolation).
$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; v = sys.version_info; sys.exit(f"Python 3.11 or newer is needed; {sys.executable} is {v.major}.{v.minor}") if v < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --require-hashes -r $(LOCK)
	$(PIP) install --quiet --no-deps --no-build-isolation -e .
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)  ## create .venv and install the locked toolchain (hashes checked)

# pip-tools, itself installed from a hashed lock, resolves requirements/*.in
# into requirements/*.txt with every published file's hash, from PyPI alone
# (PIP_CONFIG_FILE=/dev/null: no machine's own mirror or constraint). It keeps
# the versions already locked; `make lock PIP_COMPILE_ARGS=--upgrade` takes the
# newest, `PIP_COMPILE_ARGS='--upgrade-package NAME'` one package.
LOCK_TOOLS := $(VENV)/pip-tools
PIP_COMPILE_ARGS ?=
lock:  ## regenerate requirements/*.txt (the hashed locks) from requirements/*.in
	$(PYTHON) -m venv $(LOCK_TOOLS)
	$(LOCK_TOOLS)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/pip-tools.txt
	for src in requirements/*.in; do \
	  PIP_CONFIG_FILE=/dev/null $(LOCK_TOOLS)/bin/pip-compile --quiet --generate-hashes --allow-unsafe \
	    --strip-extras --no-emit-index-url --no-emit-find-links $(PIP_COMPILE_ARGS) \
	    --output-file=$${src%.in}.txt $$src || exit 1; \
	done

# A full rebuild on every change, with the figures and the run notebook read
# from the build cache (.cache/attention-by-hand/) unless src/ changed; not
# --dirty, which strict: true refuses and which leaves the nav and search stale
# (live reload is on by default).
serve: $(STAMP)  ## build, serve at http://127.0.0.1:8000 and rebuild on every change
	$(BIN)/mkdocs serve

build: $(STAMP)  ## build the site into site/
	$(BIN)/mkdocs build

strict: $(STAMP)  ## build the site into site/, failing on any warning
	$(BIN)/mkdocs build --strict

offline: $(STAMP)  ## build a site to read from disk into site-offline/ (open site-offline/index.html)
	OFFLINE=true $(BIN)/mkdocs build --strict -d site-offline

# axe-core, which the accessibility tests run in each page, and ESLint, which
# reads the book's JavaScript, from the npm registry: `npm ci` installs
# exactly what tests/package-lock.json locks and checks the sha512 hash
# written there. Without npm those tests are skipped (under CI=true they fail).
NPM_TOOLS := tests/node_modules/axe-core/axe.min.js
$(NPM_TOOLS): tests/package.json tests/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --prefix tests --ignore-scripts --no-audit --no-fund --loglevel=error && touch $@; \
	else \
	  echo "make: npm (Node.js) not found: the accessibility tests (axe-core) and ESLint will be skipped"; \
	fi

# `make test` runs in parallel (pytest-xdist), two workers by default.
# --dist loadfile keeps each file's tests in one worker: a page's Python blocks
# share one namespace (a block run apart from the one that defined its names
# would fail), and a module's fixtures are made once; tests/conftest.py hands
# out the tests that read a page's visit in Chromium by page instead
# (`make test TEST_DIST=loadscope`: without that, to measure what it buys).
TEST_WORKERS ?= 2
TEST_DIST ?= loadfile
test: $(STAMP) $(NPM_TOOLS)  ## run every test: maths, docs examples, build, browser, serve, torch, tools
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist $(TEST_DIST)

# The tiers are markers (pyproject.toml); tests/conftest.py marks each test
# that uses a build or Chromium.
# test-fast also tries 10 examples a property test instead of 100 (Hypothesis
# profile "fast") and does not import torch for the tests it leaves out. It
# runs on the same workers as `make test` (measured on 2 cores: 22 s on one
# process, 16 s on two, the workers' start included).
FAST := not build and not browser and not serve and not torch and not tools and not figures
test-fast: $(STAMP)  ## the inner loop: every page's check, the maths and the libraries' unit tests; no build or browser
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -m "$(FAST)" --hypothesis-profile=fast --ignore=tests/test_torch.py

# ESLint on the book's own JavaScript, with the rules of tests/eslint.config.mjs
# (tests/test_javascript.py runs the same command).
ESLINT := tests/node_modules/.bin/eslint
JAVASCRIPT := docs/javascripts overrides/assets/javascripts/lazy-search.js
lint: $(STAMP) $(NPM_TOOLS)  ## ruff check, ruff format --check, mypy on src/, zizmor on .github (workflows, dependabot.yml), ESLint on the JavaScript
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/zizmor --offline .github/
	@if [ -x $(ESLINT) ] && command -v node >/dev/null 2>&1; then \
	  echo "$(ESLINT) --config tests/eslint.config.mjs --max-warnings=0 $(JAVASCRIPT)"; \
	  $(ESLINT) --config tests/eslint.config.mjs --max-warnings=0 $(JAVASCRIPT); \
	else \
	  echo "make lint: ESLint skipped: it needs Node.js and npm (apt-get install nodejs npm), which install it into tests/node_modules"; \
	fi

# The package readers install with `pip install attention-by-hand`: its sdist,
# and the wheel built from that sdist (so a file missing from the sdist fails
# here), by the locked setuptools (--no-isolation: nothing else is fetched);
# then twine checks both as PyPI would. The release workflow
# (.github/workflows/release.yml) runs this target and uploads dist/.
DIST := dist
dist: $(STAMP)  ## build the sdist and the wheel into dist/ and check them with twine
	rm -rf $(DIST)
	$(BIN)/python -m build --no-isolation --outdir $(DIST) .
	$(BIN)/twine check --strict $(DIST)/*

mutate-numbers: $(STAMP)  ## change each number a reader sees, one at a time; count what the checks catch (minutes)
	$(BIN)/python benchmarks/mutate_numbers.py

clean:  ## remove the virtual environment, axe-core, built sites and packages
	rm -rf $(VENV) tests/node_modules site site-offline $(DIST)
