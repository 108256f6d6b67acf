# make demo: index the bundled fixtures into a temporary home and show echo suppression.
# make test: lint, types, the recall gates (the eval check set, and the slice of real agent sessions in
# fixtures/agent), then the whole test suite (what CI runs).
# make check: the fast inner loop: lint, types and the tests not marked slow.
# make lint / make types: ruff and mypy on the package, the tests, the benchmarks and the scripts.
# All create .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export HF_HUB_OFFLINE := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# Everything ruff and mypy look at (mypy's settings are in pyproject.toml).
CODE := backscroll tests bench scripts
# pytest-xdist: one worker per core (2 on CI runners), an idle one taking tests still queued for the other
# (worksteal: the long tests no longer leave one core idle at the end). PYTEST_WORKERS=0 runs the suite serially.
PYTEST_WORKERS ?= auto
XDIST := -n $(PYTEST_WORKERS) $(if $(filter 0,$(PYTEST_WORKERS)),,--dist worksteal)

.PHONY: demo test check lint types bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing backscroll and its dependencies into $(VENV) ..."
	@$(BIN)/python -m pip install -q -e '.[test]' 2>&1 | grep -v "^WARNING: Location" || true
	@$(BIN)/python -m compileall -q backscroll >/dev/null && $(BIN)/python -c "import backscroll, tantivy, onnxruntime, tokenizers" && touch $(STAMP)

demo: $(STAMP)
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	export BACKSCROLL_HOME="$$tmp/data" HOME="$$tmp/home" NO_COLOR=1; \
	bs() { echo; echo "\$$ backscroll $$*"; $(BIN)/backscroll "$$@"; }; \
	bs index --source claude:fixtures/claude/projects --source codex:fixtures/codex/sessions; \
	echo "# (The skipped lines are broken on purpose in the fixtures, to show that a bad line costs only itself.)"; \
	bs status; \
	echo; echo "# An agent asked backscroll \"job queue decision\" before. Its search and the output it got (query"; \
	echo "# echoes) repeat those words and would come first; by default they are hidden (see the note):"; \
	bs search --no-sync job queue decision --limit 2; \
	echo; echo "# The same search with the echoes let in, marked [echo]: the agent's earlier search comes first,"; \
	echo "# ahead of the person's own question:"; \
	bs search --no-sync job queue decision --limit 2 --include-echoes; \
	echo; echo "# The sessions whose tool calls touched a file, and what they did to it:"; \
	bs files --no-sync payments/capture.py; \
	echo; echo "# Back into a session in its own agent and directory (--print: say the command, run nothing):"; \
	bs resume --no-sync --print 0b1f5850; \
	echo; echo "# For daily use, put backscroll on your PATH: pipx install '.[mcp]' (or uv tool install '.[mcp]')"

# lint and types first (they take seconds), then the recall gate, so that pytest's summary is the
# last line of the output.
test: lint types
	$(BIN)/backscroll eval fixtures/eval/check.toml --min-recall 0.8 --gate
	$(BIN)/backscroll eval fixtures/agent/gate.toml --gate
	$(BIN)/python -m pytest $(XDIST)

# The inner loop: lint, types and everything but the tests marked slow (the SIGKILL loop, the real
# model, the downstream pytest run, the benchmark), spread over the cores.
check: lint types
	$(BIN)/python -m pytest -q -m "not slow" $(XDIST)

lint: $(STAMP)
	$(BIN)/ruff check $(CODE)

types: $(STAMP)
	$(BIN)/mypy $(CODE)

bench: $(STAMP)
	$(BIN)/python bench/run.py --sessions 200

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
