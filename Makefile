# PDFTrapper. `make demo` and `make test` work from a clean clone on Debian 12 with the Swift toolchain.
SWIFT ?= swift
BIN := .build/release/pdftrapper

.PHONY: all deps build test demo clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release

# Every test, with the real libraries, tools and files.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: build
	@scripts/demo.sh $(BIN)

clean:
	rm -rf .build demo
