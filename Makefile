# LexSpec: `make run` starts the app on the embedded model server; `make test` runs the checks.
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test install install-dev lint browser test-vllm bench screenshots clean

run: install
	$(BIN)/lexspec run

# Every test, in TEST_WORKERS processes (pytest-xdist; each file stays in one process, so its
# module fixtures and the servers a process starts are shared by its tests). TEST_WORKERS=0: one.
# The 25 slowest tests are listed at the end: where the time goes.
# mypy keeps its cache beside the tests' prompt snapshots, outside the checkout (as pip's cache
# is): a fresh clone re-checks only what changed (mypy compares each file's hash).
# The tests keep Python's bytecode caches even where the environment turns them off
# (PYTHONDONTWRITEBYTECODE; git ignores __pycache__): the 150-odd `lexspec` processes they start
# would each compile the app again, and each test process would rewrite every test module.
TEST_WORKERS ?= 2
TEST_CACHE ?= $(or $(LEXSPEC_TEST_CACHE_DIR),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/lexspec-tests)
test: install-dev browser
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --cache-dir "$(TEST_CACHE)/mypy"
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25

install: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml scripts/install.sh
	scripts/install.sh
	touch $@

install-dev: $(VENV)/.installed-dev
$(VENV)/.installed-dev: pyproject.toml scripts/install.sh
	scripts/install.sh dev
	touch $(VENV)/.installed $@

# Debian's chromium for the real-browser tests (Playwright is pointed at it; no browser download)
# and docker-compose for the compose-file check.
browser:
	@scripts/ensure-test-tools.sh

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --cache-dir "$(TEST_CACHE)/mypy"

# Opt-in: the app's client, monitor and bench against a real vLLM (CPU build) server.
test-vllm: install-dev
	scripts/test-vllm.sh

bench: install-dev
	$(BIN)/python bench/speculative.py
	$(BIN)/python bench/validation.py
	$(BIN)/python bench/parallel.py
	$(BIN)/python bench/prompt_snapshots.py

# Refresh the screenshots in docs/images/ (the browser tests take them).
screenshots: install-dev browser
	LEXSPEC_SCREENSHOT_DIR=docs/images $(BIN)/python -m pytest tests/e2e -q

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
