# PDFTrapper. `make demo` and `make test` work from a clean clone on Debian 12 with the Swift toolchain.
SWIFT ?= swift
# The Swift runtime linked statically: a third of the start-up time of every command goes otherwise
# to resolving its symbols, and the CLI is often run once per file.
RELEASE_FLAGS := -c release --static-swift-stdlib
BIN := .build/release/pdftrapper

.PHONY: all deps build test demo bench fuzz soak clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# Every test, with the real libraries, tools and files.
test: deps
	$(SWIFT) build --build-tests
	# A hung test (a SANE backend's own deadlock, say) fails the run after 25 minutes instead of stalling it.
	timeout 1500 $(SWIFT) test --skip-build

demo: build
	@scripts/demo.sh $(BIN)

# Side by side with the peers, as ratios; see bench/README.md.
bench: build
	@scripts/install-deps.sh --bench
	python3 bench/engine.py $(BIN)
	python3 bench/daemon.py $(BIN)
	python3 bench/scan.py $(BIN)
	python3 bench/edit.py $(BIN)
	python3 bench/ocr.py $(BIN)

# libFuzzer on every parser (fuzz/README.md): SECONDS each, default 30.
SECONDS ?= 30
fuzz:
	@scripts/install-deps.sh
	scripts/fuzz.sh $(SECONDS)

# The kill -9 soak (Tests/EndToEndTests/KillSoakTests.swift) with N kills; it prints the kills
# survived and every violation found.
N ?= 200
soak: deps
	$(SWIFT) build --build-tests
	PDFTRAPPER_KILLS=$(N) $(SWIFT) test --skip-build --filter KillSoakTests

clean:
	rm -rf .build demo
