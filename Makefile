# The two set-up commands of the README:
#   make run    create .venv, install tcplab (release build of the simulator), run the quickstart
#   make test   the same with the test extras (profile $(TEST_PROFILE)), then every Rust and
#               Python test (the Python ones in parallel, pytest-xdist)
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
# The tests' build profile (Cargo.toml): the Rust tests and the Python tests' extension share it.
TEST_PROFILE   ?= test-release
# pytest-xdist's worker processes for py-test: `auto` is one per CPU.
PYTEST_WORKERS ?= auto
export VIRTUAL_ENV := $(abspath $(VENV))

.PHONY: run test lint install install-test rust-test py-test bench clean docs-validation docs-ecn

run: install
	$(BIN)/tcplab run scenarios/quickstart.toml

test: install-test rust-test py-test

$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet 'maturin>=1.7,<2'

install: $(BIN)/maturin
	$(BIN)/maturin develop --release --quiet

install-test: $(BIN)/maturin
	$(BIN)/maturin develop --profile $(TEST_PROFILE) --quiet --extras test

rust-test:
	cargo test --workspace --profile $(TEST_PROFILE)

# Tests that share a session fixture run on one worker (tests/conftest.py's xdist_group).
py-test:
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=20

# The guard rails CI runs after the tests (.ci/run): formatting, clippy with warnings as errors,
# ruff (lint and format) and mypy, configured in rustfmt.toml and pyproject.toml. ruff and mypy
# come with the test extras.
lint: install-test
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --profile $(TEST_PROFILE) -- -D warnings
	$(BIN)/ruff check python tests bench
	$(BIN)/ruff format --check python tests bench
	$(BIN)/mypy

bench: install
	cargo bench -p tcplab-sim --bench dumbbell

clean:
	rm -rf $(VENV) target

# docs/validation/<paper>.md: the quick form of `tcplab reproduce all` (tests/test_reproduce.py
# fails when a committed page differs from a regeneration).
docs-validation: install
	$(BIN)/tcplab reproduce all --quick --out .reproduce-quick --workers 1 --no-progress
	for p in jacobson mathis barakat parvez ns2; do cp .reproduce-quick/$$p.md docs/validation/$$p.md; done

# docs/validation/ecn.md: DCTCP against ns-3's reference runs and the DCTCP analysis (simulated,
# about ten minutes), the kernel's stored runs rendered (`python -m tcplab.validation.ecn
# --kernel` reruns them, as root, in real time). Not in CI; tests/test_validation_ecn.py runs --quick.
docs-ecn: install
	$(BIN)/python -m tcplab.validation.ecn --docs docs/validation
