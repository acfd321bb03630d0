# The set-up commands (see README.md):
#   make bench   install what is needed, build, run the main benchmark job
#   make test    install what is needed, build, run every test suite
#   make check   the quick tier for the edit-test loop (format, lints, the
#                Rust tests, the house checks); under 10 minutes warm
#
# Both work on a fresh Debian machine; scripts/install-deps.sh installs only
# what is missing.

# A benchmark piped into tee fails the target when it fails (a count that
# differs from its direct count, say), not only when tee does.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

CARGO ?= cargo
RESULTS ?= bench-results
BIN := target/release/atomweave

VENV ?= .venv
PYTHON := $(VENV)/bin/python

.PHONY: all deps check house build build-release build-guile profile test-profile test-report test test-rust test-python test-types wheel test-wheel test-scheme test-ui test-mcp test-fuzz fuzz miri py-build guile-env install-guile bench bench-scale bench-ui clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(CARGO) build --workspace --all-targets

build-release: deps
	$(CARGO) build --release -p atomweave-cli

# The house checks: no file over 1,000 lines or function over 120
# (scripts/size-report.py), dependencies running one way between crates
# and between the core's layers (scripts/layers.py).
house:
	python3 scripts/size-report.py --check
	python3 scripts/layers.py

check: deps house
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) test --workspace

test: deps house test-rust test-python test-types test-wheel test-scheme test-ui test-mcp test-profile test-report test-fuzz

test-rust:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p atomweave-guile --features "$(GUILE_FEATURES)" --all-targets -- -D warnings
	$(CARGO) clippy -p atomweave-server -p atomweave-py --no-default-features --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps
	$(CARGO) test --workspace
	$(CARGO) test -p atomweave-server --no-default-features

# Fuzzing (cargo-fuzz, nightly; scripts/fuzz.sh installs both when
# missing): `make fuzz` runs each target for FUZZ_SECONDS, `make test` a
# short smoke run of each. Figures of long runs: docs/RELIABILITY.md.
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 10

fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

test-fuzz:
	scripts/fuzz.sh $(FUZZ_SMOKE_SECONDS)

# Miri over the lock-free units: the segmented vectors and arenas, the
# dedupe tables, the shard lock and the seqlocked incoming sets.
miri:
	@rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
	@rustup +nightly component list --installed | grep -q '^miri' || rustup +nightly component add miri rust-src
	$(CARGO) +nightly miri test -p atomweave --lib -- segvec:: arena:: lock:: dedupe:: store::tests::

# Where one query's (QUERY=, DATA=) or benchmark method's (METHOD=) time
# goes: perf or callgrind, and the top functions (docs/PROFILING.md).
profile: build-release
	scripts/profile.sh

# atomweave report, rendered by headless Chromium (installed when missing).
test-report: build-release
	scripts/test-report.sh

# make profile's callgrind path, small: it records and names functions.
test-profile: build-release
	@dir=$$(mktemp -d) && PROFILER=callgrind ITERATIONS=2000 PROFILE_OUT=$$dir scripts/profile.sh > $$dir/out.txt && \
	grep -q 'atomweave::query' $$dir/out.txt && echo "make profile (callgrind): ok" && rm -rf $$dir

# The Python package, in a virtualenv of its own (pytest; maturin builds the
# portable wheel). For development the package's module is the Guile
# extension itself (built with Python in it, see build-guile): linked into
# the package's source directory, which a .pth file puts on the venv's path.
$(VENV)/bin/maturin:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q "maturin>=1.7,<2" "pytest>=7"

$(VENV)/bin/mypy: $(VENV)/bin/maturin
	$(VENV)/bin/pip install -q "mypy>=1.10"

py-build: build-guile $(VENV)/bin/maturin
	ln -sf $(abspath target/release/libatomweave_guile.so) \
	  crates/atomweave-py/python/atomweave/_atomweave$$($(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
	echo $(abspath crates/atomweave-py/python) > $$($(PYTHON) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/atomweave.pth

# The portable wheel (abi3, no Guile) into dist/, and its test: installed
# with pip into a throwaway virtualenv with no build tools on its PATH.
wheel: $(VENV)/bin/maturin
	$(VENV)/bin/maturin build --release -q --out dist

test-wheel: wheel
	$(CARGO) build -q -p atomweave-cli
	ATOMWEAVE_BIN=$(abspath target/debug/atomweave) scripts/test-wheel.sh

# MCP at /mcp, with the protocol's own Python SDK (PyPI's mcp) as the
# client, in each of its modes, against a real `atomweave serve`.
$(VENV)/.mcp-sdk: $(VENV)/bin/maturin
	$(VENV)/bin/pip install -q "mcp>=2.3,<3"
	touch $@

test-mcp: deps $(VENV)/.mcp-sdk
	$(CARGO) build -q -p atomweave-cli
	ATOMWEAVE_BIN=$(abspath target/debug/atomweave) $(PYTHON) -m pytest -q crates/atomweave-server/tests/mcp_sdk

# The server's browser UI in headless Chromium, driven by Selenium
# through chromedriver (Debian's, from install-deps), against a real
# `atomweave serve` the test starts and stops.
$(VENV)/.selenium: $(VENV)/bin/maturin
	$(VENV)/bin/pip install -q "selenium>=4.20"
	touch $@

# How fast the UI renders over a 1 M-atom space (scripts/ui-bench.py).
bench-ui: build-release $(VENV)/.selenium
	$(PYTHON) scripts/ui-bench.py $(abspath $(BIN))

test-ui: deps $(VENV)/.selenium
	$(CARGO) build -q -p atomweave-cli
	ATOMWEAVE_BIN=$(abspath target/debug/atomweave) $(PYTHON) -m pytest -q crates/atomweave-server/tests/browser

# The CogStorageNode tests start `atomweave serve`: build it first.
test-python: py-build
	$(CARGO) build -q -p atomweave-cli
	ATOMWEAVE_BIN=$(abspath target/debug/atomweave) $(PYTHON) -m pytest -q crates/atomweave-py/tests

# The stubs against the module (stubtest) and the classic example under
# mypy --strict with nothing but the shipped stubs.
test-types: py-build $(VENV)/bin/mypy
	cd $$(mktemp -d) && $(abspath $(PYTHON)) -m mypy.stubtest atomweave && \
	$(abspath $(VENV))/bin/mypy --strict --no-incremental $(abspath examples/python/classic.py)

# Guile finds (opencog) and the extension through these two variables;
# `make guile-env` prints them for a shell (eval "$$(make -s guile-env)").
GUILE_ENV = GUILE_LOAD_PATH=$(abspath crates/atomweave-guile/scheme) GUILE_EXTENSIONS_PATH=$(abspath target/release)

guile-env: build-guile
	@echo export $(GUILE_ENV)

# The Guile extension, with Python in it (`(opencog python)`, and the
# module Python imports with scheme_eval); GUILE_FEATURES= builds it without.
GUILE_FEATURES ?= python atomweave-py/bench

build-guile: deps
	$(CARGO) build -q --release -p atomweave-guile --features "$(GUILE_FEATURES)"

# The Scheme suite (srfi-64) and the example script, in a scratch directory
# (srfi-64 writes its log to the working directory). The suite starts an
# `atomweave serve` of its own for the network-store calls.
test-scheme: build-guile
	$(CARGO) build -q -p atomweave-cli
	@dir=$$(mktemp -d) && cd $$dir && \
	ATOMWEAVE_BIN=$(abspath target/debug/atomweave) $(GUILE_ENV) guile --no-auto-compile $(abspath crates/atomweave-guile/tests/opencog.scm) && \
	$(GUILE_ENV) guile --no-auto-compile $(abspath crates/atomweave-guile/tests/python.scm) && \
	$(GUILE_ENV) guile --no-auto-compile $(abspath examples/scheme/classic.scm) $$dir/store > example.out && \
	grep -q 'with truth value (stv 0.9 0.8) and weight (4.2 4.4)' example.out && \
	echo "examples/scheme/classic.scm: ok" && rm -rf $$dir

# Installs (opencog) into Guile's own directories, so that plain `guile`
# finds it (needs write access there: run as root).
install-guile: build-guile
	install -d $(DESTDIR)$$(guile -c '(display (%site-dir))')/opencog $(DESTDIR)$$(guile -c '(display (%site-dir))')/atomweave
	install -m 644 crates/atomweave-guile/scheme/opencog.scm $(DESTDIR)$$(guile -c '(display (%site-dir))')/
	install -m 644 crates/atomweave-guile/scheme/opencog/*.scm $(DESTDIR)$$(guile -c '(display (%site-dir))')/opencog/
	install -m 644 crates/atomweave-guile/scheme/atomweave/*.scm $(DESTDIR)$$(guile -c '(display (%site-dir))')/atomweave/
	install -D -m 755 target/release/libatomweave_guile.so $(DESTDIR)$$(guile -c "(display (assq-ref %guile-build-info 'extensiondir))")/libatomweave_guile.so

# The main job: atomspace_bm on both layers, on two threads, as the space
# grows (CSVs and PNGs), the seeds' atom_bench at 1M, the pattern matcher's
# benchmarks, the Scheme and Python layers, Atomese loading, and the
# server's shell table.
bench: build-release py-build
	@mkdir -p $(RESULTS)
	$(BIN) bench -X -A -q | tee $(RESULTS)/bench.txt
	$(BIN) bench -A -T 2 -n 5000000 -q | tee $(RESULTS)/bench-threads-2.txt
	$(BIN) bench -X -A -q -S 100 -n 100000 --repeat 1 -f --out $(RESULTS) > $(RESULTS)/bench-scaling.txt
	$(BIN) bench-plot $(RESULTS) > /dev/null
	$(BIN) atom-bench -n 1000000 | tee $(RESULTS)/atom-bench.txt
	$(BIN) atom-bench -n 1000000 --batch 1 | tee $(RESULTS)/atom-bench-single.txt
	$(BIN) query-bench | tee $(RESULTS)/query-bench.txt
	$(BIN) query-bench --suite genomics --scale 10 | tee $(RESULTS)/genomics.txt
	$(BIN) bench -A -g -C -r 100 -q -n 1000000 | tee $(RESULTS)/bench-scheme.txt
	$(BIN) bench -A -g -r 1 -q -n 100000 --repeat 1 | tee $(RESULTS)/bench-scheme-r1.txt
	ATOMWEAVE_PYTHON=$(PYTHON) $(BIN) bench -A -c -q -n 200000 | tee $(RESULTS)/bench-python.txt
	$(PYTHON) -m atomweave.benchmark -a -i 3 | tee $(RESULTS)/python-benchmark.txt
	$(BIN) generate -n 1000000 -R 1 -o $(RESULTS)/random-1m.scm
	$(BIN) load -q $(RESULTS)/random-1m.scm | tee $(RESULTS)/load-1m.txt
	$(BIN) dump --stats $(RESULTS)/random-1m.scm 2>&1 > /dev/null | tee $(RESULTS)/dump-1m.txt
	$(BIN) shell-bench | tee $(RESULTS)/shell-bench.txt
	$(BIN) persist-bench -n 1000000 --backend redis-cluster -q | tee $(RESULTS)/persist-redis-cluster.txt
	scripts/bench-scale.sh $(BIN) $(RESULTS) 1000000
	@scripts/bench-summary.sh $(RESULTS)
	@echo "-- the report (tables, upstream's figures, charts): $$($(BIN) report $(RESULTS))"

# Word pairs at 1 M, 10 M and 100 M atoms (issue 53's figures): minutes,
# about 7 GB of memory and 25 GB of disk at the last size; then the
# genomics loop at its full size (about 8 minutes, most of it the
# pathways of the listed genes). Not in `test`.
SCALE_SIZES ?= 1000000 10000000 100000000
bench-scale: build-release
	@mkdir -p $(RESULTS)
	scripts/bench-scale.sh $(BIN) $(RESULTS) $(SCALE_SIZES)
	$(BIN) query-bench --suite genomics | tee $(RESULTS)/genomics-full.txt

clean:
	$(CARGO) clean
	rm -rf $(RESULTS) $(VENV)
