# iopress — every target sets up what it needs on a fresh clone.
# The virtual environment is built from requirements.lock (exact pins) and
# rebuilt whenever the lock file or pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.iopress-installed
# Everything a target makes stays in the clone, the cache included (charts and documents of
# `make demo` and the tests); `make setup` puts the vega-embed bundle into .venv/share.
export IOPRESS_CACHE ?= $(CURDIR)/.cache/iopress
export IOPRESS_CACHE_KEY ?= $(CURDIR)/.cache/iopress.key
# Python keeps compiled modules (__pycache__ in .venv and the clone) even where the
# environment says not to: without them every test worker, build and Vega process compiles
# everything it imports again (≈ 1.8 CPU-s each for the libraries, 1.2 s to collect tests).
unexport PYTHONDONTWRITEBYTECODE
# uv installs the lock file: ≈ 3 s from an empty cache, 1 s from a full one, where pip
# took ≈ 30 s. uv is pinned here and put into .cache/uv-<version> by python3's pip, or by
# the venv's own where python3 has none or refuses (PEP 668); otherwise the venv gets no
# pip (ensurepip took ≈ 3.5 s). uv and its download cache stay in the clone, where
# `make clean` keeps them: a venv made again needs no network. pip keeps no cache.
UV_VERSION := 0.13.9
export UV_CACHE_DIR ?= $(CURDIR)/.cache/uv
UV_HOME := .cache/uv-$(UV_VERSION)
UV_INTO := install --quiet --disable-pip-version-check --no-cache-dir --progress-bar off \
	--no-compile --no-deps --only-binary=:all: --upgrade --target $(UV_HOME) uv==$(UV_VERSION)
UV := $(UV_HOME)/bin/uv pip install --quiet --python $(BIN)/python

.PHONY: demo test lint golden setup clean fio-fixtures debs bench

setup: $(STAMP)

# Compiled once at setup, beside the vega-embed bundle (one process each, one core each):
# what every test worker and build imports, the modules a build imports only when it writes
# its outputs included (xlsxwriter alone took ≈ 0.15 s per build to compile where
# PYTHONDONTWRITEBYTECODE is set), and narwhals' polars backend, which altair imports with
# a chart's data; rich's emoji table (≈ 140 KB, imported by the first message printed with
# markup) and the few modules typer and polars import only while a build runs. The bundle's process then builds a one-page site: mkdocs, its plugins and
# Markdown extensions are compiled, and Material's templates into .venv/share/iopress/jinja
# (pipeline/render/theme_cache.py). Compiling the whole venv (uv --compile-bytecode) took
# twice as long for ≈ 2,900 files, 1,800 never imported; anything not named here is
# compiled by the first process that imports it.
WARM := pipeline.build, pipeline.cli, pipeline.commands, pipeline.publish, pipeline.manifest, \
	pipeline.charts.export, pipeline.charts.steady, pipeline.render.workbook, \
	pipeline.render.datasheet, pipeline.campaign.plan, pipeline.verify, xlsxwriter, \
	narwhals.stable.v1 as nw, polars as pl, pytest, xdist, hypothesis, pypdf, pyarrow.dataset, \
	rich._emoji_codes, typer._adapters, typer._click.decorators, \
	polars.io.spreadsheet._write_utils, polars._utils.parquet
WARMED := nw.from_native(pl.DataFrame({"x": [1]}))
SITE_SETUP := from pipeline.render.site import install_vega_embed_bundle as i; i(); \
	from pipeline.render.theme_cache import install; install()

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv --without-pip $(VENV)
	[ -x $(UV_HOME)/bin/uv ] || $(PYTHON) -m pip $(UV_INTO) || { \
	  echo "(python3 has no usable pip: the venv's own)"; \
	  $(BIN)/python -m ensurepip --default-pip && $(BIN)/python -m pip $(UV_INTO); }
	$(UV) -r requirements.lock
	$(UV) --no-deps --no-build-isolation -e .
	$(BIN)/python -c '$(SITE_SETUP)' & \
	bundle=$$!; $(BIN)/python -c 'import $(WARM); $(WARMED)'; warmed=$$?; \
	wait $$bundle && [ $$warmed -eq 0 ]
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/iopress build data/examples/fs840 -o build/fs840
	$(BIN)/iopress build data/examples/a800 -o build/a800
	$(BIN)/iopress build data/examples/fs820 -o build/fs820
	@echo "Built: build/fs840/fs840.{de,en}.pdf, build/fs840/site/index.html"
	@echo "       build/a800/a800.{de,en}.pdf, build/a800/site/index.html"
	@echo "       build/fs820/fs820.{de,en}.pdf, build/fs820/site/index.html"

# mypy (one core, ≈ 8 s from a cold cache) runs beside the tests: it takes the core that
# the campaign and browser tests leave idle while fio and chromium run. Either failing
# fails the target; mypy's report follows the tests'.
test: $(STAMP) debs
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	@log=$$(mktemp); $(BIN)/mypy >$$log 2>&1 & typing=$$!; \
	$(BIN)/python -m pytest -q -n auto --dist loadgroup; tests=$$?; \
	wait $$typing; typed=$$?; cat $$log; rm -f $$log; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# Debian packages some tests drive: chromium (the site in a browser), poppler-utils
# (pdftotext, the layout check of every PDF), fio (campaigns run end to end), util-linux
# (wipefs: libblkid's probe, which `iopress run` asks before writing a target) and mount
# (losetup: the guard tried on a loop device). Installed when missing (needs root);
# wipefs and losetup live in /usr/sbin, off a user's PATH on Debian.
DEBS := chromium:chromium pdftotext:poppler-utils fio:fio wipefs:util-linux losetup:mount
debs:
	@missing="$$(for d in $(DEBS); do p=$${d%%:*}; command -v $$p >/dev/null 2>&1 || \
	  [ -x /usr/sbin/$$p ] || [ -x /sbin/$$p ] || echo $${d#*:}; done)"; \
	[ -z "$$missing" ] || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; } \
	  || echo "warning: could not install $$missing; their tests are skipped outside CI"

LINTED := pipeline tests data/examples benchmarks

lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy

# Regenerate the golden typst/Markdown files after an intended change of the output.
golden: $(STAMP)
	$(BIN)/python -m tests.regenerate_golden

clean:
	rm -rf $(VENV) build

# Regenerate the fio samples with Debian's fio (installed here if missing; needs root or sudo).
fio-fixtures: $(STAMP)
	command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio; }
	tests/data/fio/generate.sh
	tests/data/fio-log/generate.sh
	tests/data/pts/generate.sh
	tests/data/fio-truth/ingest_truth.sh
	tests/data/fio-sweep/generate.sh
	tests/data/fio-repeats/generate.sh
	tests/data/fio-data/generate.sh
	tests/data/fio-levels/generate.sh
	$(BIN)/python -m tests.regenerate_expected

# Performance figures (docs/performance.md), each alternated with its peer or floor;
# installs fio-plot in its own venv for the side-by-side. BENCH_ARGS=--quick for a smaller
# run, --rounds N for more rounds, --scale for the builds of 75, 750 and 7,500 files.
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)
