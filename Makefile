# Developer commands (the README quotes them). `make test` is what CI runs
# after `pip install '.[test]'`.
PY ?= python3
CARGO ?= cargo

.PHONY: dev lint test test-rust test-python bench fmt

## dev: build the Rust extension and install the package in editable mode (+ test tools)
dev:
	$(PY) -m pip install -e '.[test]' ruff

## lint: clippy with warnings as errors, ruff (lint and format check)
lint:
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p skyhop --features event-cycles,op-counts --all-targets -- -D warnings
	$(PY) -m ruff check python tests
	$(PY) -m ruff format --check python tests

## test: the Rust engine's tests, then the Python/CLI tests against the installed package
test: test-rust test-python

# The library and integration tests; the examples (each a whole-program,
# fat-LTO link of the engine: minutes of a two-core machine for the
# three) are compiled by `make lint` (clippy --all-targets), not here.
# With op-counts, the range sets count the treap nodes they visit (the
# holes benchmark's test measures its cost by them); a normal build has
# no counters.
test-rust:
	$(CARGO) test --release --workspace --lib --tests --features skyhop/op-counts
	$(CARGO) test --release -p skyhop --features event-cycles --lib sim::cycles

test-python:
	$(PY) -m pytest -q

## bench: simulator speed (events/s, packet-hops/s, simulated s per wall s)
bench:
	$(PY) -m skyhop bench

## fmt: format the Python code (Rust: rustfmt your own files)
fmt:
	$(PY) -m ruff format python tests
