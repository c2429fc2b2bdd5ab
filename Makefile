# The two promises of README.md: `make demo` and `make test`, each from a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 5000
MAIL_PORT ?= 8025

.PHONY: install demo test test-thorough lint typecheck translations messages sysdeps sysdeps-test apt bench docs

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: sysdeps $(STAMP) translations

# WeasyPrint needs pango; the tests need PostgreSQL's server binaries (initdb, pg_ctl).
sysdeps:
	@$(PYTHON) -c "import ctypes.util, sys; sys.exit(0 if ctypes.util.find_library('pango-1.0') else 1)" \
	  || $(MAKE) --no-print-directory apt PKGS="libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core"
	@# The notices embed the form layer's faces (DejaVu) and Droid Sans Fallback (CJK names).
	@test -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf \
	  && test -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf \
	  || $(MAKE) --no-print-directory apt PKGS="fonts-dejavu-core fonts-droid-fallback"
	@# The petitions' files draw a PDF's first page with poppler's pdftoppm (thumbnails).
	@command -v pdftoppm >/dev/null || $(MAKE) --no-print-directory apt PKGS="poppler-utils"
	@# A scan is made searchable by ocrmypdf with tesseract's Spanish and English.
	@command -v ocrmypdf >/dev/null && tesseract --list-langs 2>/dev/null | grep -qx spa \
	  && tesseract --list-langs 2>/dev/null | grep -qx eng \
	  || $(MAKE) --no-print-directory apt PKGS="ocrmypdf tesseract-ocr tesseract-ocr-spa tesseract-ocr-eng"

# Every program the app or the tests run, as program:Debian-package. `make test` installs the
# packages of those missing; tests/test_install_list.py fails when the code or the tests call a
# program that is not named here. (PostgreSQL's server programs live in /usr/lib/postgresql/*/bin.)
TEST_PROGRAMS := initdb:postgresql pg_ctl:postgresql pg_dump:postgresql-client \
  pg_restore:postgresql-client psql:postgresql-client redis-server:redis-server \
  chromium:chromium pdftotext:poppler-utils pdftoppm:poppler-utils pdffonts:poppler-utils \
  pdfinfo:poppler-utils runuser:util-linux ocrmypdf:ocrmypdf tesseract:tesseract-ocr sh:dash \
  wrk:wrk make:make

sysdeps-test: sysdeps
	@missing=""; for pair in $(TEST_PROGRAMS); do prog=$${pair%%:*}; pkg=$${pair#*:}; \
	  command -v $$prog >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/$$prog >/dev/null 2>&1 \
	  || missing="$$missing $$pkg"; done; \
	  if [ -n "$$missing" ]; then $(MAKE) --no-print-directory apt PKGS="$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' ')"; fi

apt:
	@if [ "$$(id -u)" = 0 ]; then apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(PKGS); \
	 else echo "Please install these system packages: $(PKGS)"; exit 1; fi

translations: $(STAMP)
	$(BIN)/pybabel compile -d tid/translations > /dev/null 2>&1

# Refresh the catalogs after adding or changing messages (then translate the new Spanish ones).
# templates/_macros is named on its own: pybabel's walk skips folders whose names start with _.
messages: $(STAMP)
	$(BIN)/pybabel extract --no-wrap --no-location --sort-output -F tid/babel.cfg -k _l -k lazy_gettext -k N_ -k Message -o tid/translations/messages.pot tid templates templates/_macros
	$(BIN)/pybabel update --no-wrap --ignore-obsolete -i tid/translations/messages.pot -d tid/translations --no-fuzzy-matching

# The demo's digest emails go to a local mail sink that keeps them in instance/mail/. The web,
# the worker (background jobs) and the scheduler run side by side; Ctrl-C stops them all.
# The demo's notices print the address the web serves (its portal's link and QR code).
demo: install
	$(BIN)/tid db upgrade
	TID_BASE_URL=http://$(HOST):$(PORT) $(BIN)/tid demo
	@export TID_SMTP_HOST=127.0.0.1 TID_SMTP_PORT=$(MAIL_PORT) TID_BASE_URL=http://$(HOST):$(PORT); \
	  $(BIN)/tid mail-sink --port $(MAIL_PORT) & sink=$$!; \
	  $(BIN)/tid worker & worker=$$!; \
	  $(BIN)/tid scheduler & scheduler=$$!; \
	  trap "kill $$sink $$worker $$scheduler 2>/dev/null; wait" EXIT INT TERM; \
	  $(BIN)/tid run --host $(HOST) --port $(PORT)

# The documentation's site (docs/), built in its strict mode as the tests build it.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

lint: $(STAMP)
	$(BIN)/ruff check tid tests benchmarks migrations
	$(BIN)/ruff format --check tid tests benchmarks migrations

typecheck: $(STAMP)
	$(BIN)/mypy

# Python keeps the modules it compiles (__pycache__/, ignored by git), and pytest its rewritten
# test modules, whatever the environment says (PYTHONDONTWRITEBYTECODE): every test worker and
# every process the tests start (the command line, gunicorn, the workers) would otherwise
# compile the whole app again.
unexport PYTHONDONTWRITEBYTECODE

# One test worker a core: the suite keeps every core busy (Chromium, PostgreSQL and the
# programs the tests start run beside the workers), and a third worker on two cores measured
# more processor time for the same run (docs/testing.md); each worker starts its own throwaway
# PostgreSQL. --dist loadgroup: each browser module (tests/browser/) runs on one worker with
# its own copy of the demo; a worker keeps one Chromium.
# It prints the 15 slowest tests. test-thorough: the same with ten times the property-based
# tests' examples (HYPOTHESIS_PROFILE=thorough, tests/conftest.py).
test: install sysdeps-test lint typecheck
	$(BIN)/pytest -n $$(nproc) --dist loadgroup --durations=15

test-thorough: install sysdeps-test
	HYPOTHESIS_PROFILE=thorough $(BIN)/pytest -n $$(nproc) --dist loadgroup --durations=15

# The benchmarks print their figures and ratios; account.py and web.py start a throwaway
# PostgreSQL, web.py also gunicorn (the bench extra) and wrk (installed here as root).
bench: install sysdeps-test
	@command -v wrk >/dev/null 2>&1 || $(MAKE) --no-print-directory apt PKGS="wrk"
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	$(BIN)/python benchmarks/calc.py
	$(BIN)/python benchmarks/formula.py
	$(BIN)/python benchmarks/cli.py
	$(BIN)/python benchmarks/account.py
	$(BIN)/python benchmarks/web.py
