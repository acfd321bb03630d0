# The two set-up commands (see README.md):
#   make bench   install what is needed, build, run the main benchmark job
#   make test    install what is needed, build, run every test suite
#
# Both work on a fresh Debian machine; scripts/install-deps.sh installs only
# what is missing.

CARGO ?= cargo
RESULTS ?= bench-results
BIN := target/release/atomweave

.PHONY: all deps build build-release test test-rust bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(CARGO) build --workspace --all-targets

build-release: deps
	$(CARGO) build --release -p atomweave-cli

test: deps test-rust

test-rust:
	$(CARGO) test --workspace

bench: build-release
	@mkdir -p $(RESULTS)
	$(BIN) generate -n 1000000 -R 1 -o $(RESULTS)/random-1m.scm
	$(BIN) load $(RESULTS)/random-1m.scm | tee $(RESULTS)/load-1m.txt
	@echo "Results in $(RESULTS)/"

clean:
	$(CARGO) clean
	rm -rf $(RESULTS)
