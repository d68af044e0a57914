# The two set-up commands of the README:
#   make run    create .venv, install tcplab (release build of the simulator), run the quickstart
#   make test   the same with the test extras, then every Rust and Python test
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
export VIRTUAL_ENV := $(abspath $(VENV))

.PHONY: run test install install-test rust-test py-test bench clean docs-validation

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
	$(BIN)/maturin develop --release --quiet --extras test

rust-test:
	cargo test --workspace --release

py-test:
	$(BIN)/python -m pytest

bench: install
	cargo bench -p tcplab-sim --bench dumbbell

clean:
	rm -rf $(VENV) target

# docs/validation/<paper>.md: the quick form of `tcplab reproduce all` (tests/test_reproduce.py
# fails when a committed page differs from a regeneration).
docs-validation: install
	$(BIN)/tcplab reproduce all --quick --out .reproduce-quick --workers 1 --no-progress
	for p in jacobson mathis barakat parvez ns2; do cp .reproduce-quick/$$p.md docs/validation/$$p.md; done
