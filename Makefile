# Attention by Hand. The README gives the two commands for a fresh machine:
#   make serve   set up, build and serve the site with live reload
#   make test    set up and run the whole test suite
# Each one creates .venv and installs the pinned toolchain first, if needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat constraints.txt pyproject.toml | cksum | cut -d' ' -f1)

export NO_MKDOCS_2_WARNING := 1
# Reproducible builds: dates in the site (sitemap, gzip header) are the last
# commit's time, so the same commit gives the same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
ifneq ($(SOURCE_DATE_EPOCH),)
export SOURCE_DATE_EPOCH
endif

.PHONY: install serve build strict offline test lint clean

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; v = sys.version_info; sys.exit(f"Python 3.11 or newer is needed; {sys.executable} is {v.major}.{v.minor}") if v < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)  ## create .venv and install the pinned toolchain

serve: $(STAMP)  ## build, serve at http://127.0.0.1:8000 and rebuild on every change
	$(BIN)/mkdocs serve

build: $(STAMP)  ## build the site into site/
	$(BIN)/mkdocs build

strict: $(STAMP)  ## build the site into site/, failing on any warning
	$(BIN)/mkdocs build --strict

offline: $(STAMP)  ## build a site to read from disk into site-offline/ (open site-offline/index.html)
	OFFLINE=true $(BIN)/mkdocs build --strict -d site-offline

test: $(STAMP)  ## run every test: maths, docs examples, build, browser
	$(BIN)/python -m pytest

lint: $(STAMP)  ## ruff check, ruff format --check and the type checker (mypy, on src/)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

clean:  ## remove the virtual environment and built sites
	rm -rf $(VENV) site site-offline
