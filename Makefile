# One entry point for people and CI: `make console` (set up + open the demo) and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test-slow setup console demo test lint typecheck linktree bundle translations bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, pinned: the CPU build on this class of machine (an unpinned torch pulls CUDA).
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The console's translations: .ts sources in the repo, compiled to .qm here (console/i18n.py).
TS := $(wildcard console/translations/*.ts)
QM := $(TS:.ts=.qm)

console/translations/%.qm: console/translations/%.ts $(STAMP)
	$(BIN)/pyside6-lrelease -silent $< -qm $@

setup: $(STAMP) $(QM)

## Re-extract the console's strings into the .ts sources (new ones untranslated), then compile them.
translations: $(STAMP)
	$(BIN)/pyside6-lupdate console/*.py console/screens/*.py console/widgets/*.py -no-obsolete -locations none \
		$(foreach t,$(TS),-ts $(t))
	$(MAKE) $(QM)

## Set up, build the demo space from resources/, and open the console on it.
console: setup
	# Qt's xcb plugin libraries and a CJK font: installed when root, else the exact apt-get line (exit 2).
	$(BIN)/python -m biny.console.preflight
	$(BIN)/biny --home "$${BINY_HOME:-data}" demo
	$(BIN)/biny-console --home "$${BINY_HOME:-data}" --space demo

demo: setup
	$(BIN)/biny --home "$${BINY_HOME:-data}" demo

## Set up and run the tests (what CI runs, with test-slow after it). The preflight installs the system packages
## the tests use (Qt's libraries, a CJK font, Xvfb, Tesseract, objdump) when run as root, else prints the apt-get
## line and stops. Type check, lint, import layers, then every test but the slow packaging ones.
test: setup typecheck
	$(BIN)/python -m biny.console.preflight --tests
	$(BIN)/ruff check .
	cd build/typecheck && PYTHONPATH=. ../../$(BIN)/lint-imports --config ../../pyproject.toml --no-cache
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m "not slow" --durations=15

## The slow tests: the desktop bundle built and run, the wheel installed in a fresh venv, the README's walkthrough
## (about 6 minutes more; CI runs them after `make test`).
test-slow: setup linktree
	$(BIN)/python -m biny.console.preflight --tests
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m slow --durations=10

# The package as it is installed (biny/core, biny/console, biny/resources), linked from the source folders:
# what mypy and PyInstaller read.
linktree:
	mkdir -p build/typecheck/biny
	for d in core console resources; do ln -sfn ../../../$$d build/typecheck/biny/$$d; done

typecheck: setup linktree
	$(BIN)/mypy

## A one-folder desktop bundle of the console and the CLI: dist/bundle/biny (packaging/README.md).
bundle: setup linktree
	$(BIN)/pyinstaller packaging/biny.spec --distpath dist/bundle --workpath build/pyinstaller -y --log-level WARN

clean:
	rm -rf build dist .pytest_cache .mypy_cache .ruff_cache
