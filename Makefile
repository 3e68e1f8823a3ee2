# PDFTrapper. `make demo` and `make test` work from a clean clone on Debian 12 with the Swift toolchain.
SWIFT ?= swift
# The Swift runtime linked statically: a third of the start-up time of every command goes otherwise
# to resolving its symbols, and the CLI is often run once per file.
RELEASE_FLAGS := -c release --static-swift-stdlib
BIN := .build/release/pdftrapper

.PHONY: all deps build test demo bench fuzz soak second-writer-soak multihost powerloss man install uninstall deb clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# Every test, with the real libraries, tools and files.
test: deps
	@scripts/elapsed.sh start
	$(SWIFT) build --build-tests
	@scripts/elapsed.sh "swift build --build-tests"
	# A hung test (a SANE backend's own deadlock, say) fails the run after 25 minutes instead of
	# stalling it, and every thread's stack is printed first, to say where it hung. The output is
	# kept, to count at the end the tests a clone without ../shared skipped.
	bash -o pipefail -c 'scripts/with-stacks.sh 1500 $(SWIFT) test --skip-build 2>&1 | tee .build/swift-test.log'
	@scripts/elapsed.sh "swift test"
	# Power loss (Tests/PowerLoss/README.md): the explorer's own cases, then a reduced set of the
	# recorded paths against the debug binary (`make powerloss` explores all of them).
	cd Tests/PowerLoss && python3 -m unittest -v test_explorer
	timeout 900 python3 Tests/PowerLoss/powerloss.py --reduced --max-states 120 --bin $(CURDIR)/.build/debug/pdftrapper
	@scripts/elapsed.sh "power loss"
	# Damaged targets (a page tree pointing nowhere, no /Root, every xref entry wrong, a FIFO, ...)
	# through ingest, the daemon and edit scripts: the old bytes, or a readable result with them kept
	# for undo; and another program's save, which recovery never cuts.
	cd Tests/Damaged && PDFTRAPPER_BIN=$(CURDIR)/.build/debug/pdftrapper timeout 600 python3 -m unittest -v test_damaged test_other_programs
	@scripts/elapsed.sh "damaged targets"
	# Another program saving the targets (rewrites, appends, copies renamed over them, with and without
	# flock) while the daemon ingests, edits and is killed: 75 s on a fixed seed (Tests/Soak/README.md).
	cd Tests/Soak && PDFTRAPPER_BIN=$(CURDIR)/.build/debug/pdftrapper timeout 900 python3 -m unittest -v test_second_writer
	@scripts/elapsed.sh "second-writer soak"
	# Several hosts, one library, on a real GlusterFS the test makes on 127.0.0.2: two daemons, each in
	# a mount namespace of its own with its own FUSE client; 20 files a host in every layout, and one
	# with kills and an undo from the other host (Tests/MultiHost/README.md). Skipped, with the
	# reason, when not root, without /dev/fuse or when gluster cannot be started.
	cd Tests/MultiHost && PDFTRAPPER_BIN=$(CURDIR)/.build/debug/pdftrapper timeout 600 python3 -m unittest -v test_multihost
	@scripts/elapsed.sh "several hosts"
	# The workspace over plain HTTP (its security) and in Debian's Chromium through WebDriver, against
	# the debug binary: one browser for every scenario (Tests/Workspace/README.md).
	cd Tests/Workspace && PDFTRAPPER_BIN=$(CURDIR)/.build/debug/pdftrapper timeout 900 python3 -m unittest -v test_security test_live test_browser test_phone test_upload test_slow_clients test_library test_unsaved
	@scripts/elapsed.sh "workspace"
	# Every parser under libFuzzer for 30 s (fuzz/README.md).
	nice -n 5 scripts/fuzz.sh 30
	@scripts/elapsed.sh "fuzzing"
	# make install into a scratch DESTDIR; the Debian package built, checked by lintian, installed,
	# checked, removed and purged.
	scripts/test-install.sh
	@scripts/elapsed.sh "make install"
	scripts/build-deb.sh
	scripts/test-deb.sh
	@scripts/elapsed.sh "Debian package"
	# Last, how many tests skipped because ../shared (the shared PDF corpus, toml-test) is missing.
	@scripts/shared-skips.sh .build/swift-test.log

demo: build
	@scripts/demo.sh $(BIN)

# Side by side with the peers, as ratios; see bench/README.md.
bench: build
	@scripts/install-deps.sh --bench
	python3 bench/engine.py $(BIN)
	python3 bench/photo.py $(BIN)
	python3 bench/daemon.py $(BIN)
	python3 bench/scan.py $(BIN)
	python3 bench/edit.py $(BIN)
	python3 bench/ocr.py $(BIN)
	python3 bench/web.py $(BIN)
	python3 bench/upload.py $(BIN)
	python3 bench/events.py $(BIN)
	python3 bench/multihost.py $(BIN)

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

# The second-writer soak (Tests/Soak/README.md): another program saving the targets while the daemon
# ingests, edits and is killed, SOAK_SECONDS long (default 10 minutes), on SEED (default a new one,
# printed). Its last line: "second-writer soak: N pages committed, L lost, ..."; exit 1 on a violation.
SOAK_SECONDS ?= 600
SEED ?=
second-writer-soak: deps
	$(SWIFT) build
	python3 Tests/Soak/second_writer.py --seconds $(SOAK_SECONDS) $(if $(SEED),--seed $(SEED)) --bin $(CURDIR)/.build/debug/pdftrapper

# Several hosts, one library (Tests/MultiHost/README.md): two daemons on one GlusterFS volume, each
# host a mount namespace with its own FUSE client; every layout (own paths or one path, Gluster as
# installed or with its caches off, kills and an undo from the other host), FILES inputs a host
# (default 300), on SEED (default a new one, printed). Needs root. Its last line: "multihost: N pages
# committed, L lost, V violations"; exit 1 on any loss or violation.
FILES ?= 300
multihost: deps
	$(SWIFT) build
	python3 Tests/MultiHost/multihost.py --files $(FILES) $(if $(SEED),--seed $(SEED)) --bin $(CURDIR)/.build/debug/pdftrapper

# Power loss, explored (Tests/PowerLoss/README.md): every path that writes recorded under strace,
# every crash state the model allows rebuilt, recovered, run and checked. Its last line:
# "powerloss: N crash states from M recorded runs, V violations". About 30,000 states, an hour on two cores.
powerloss: build
	python3 Tests/PowerLoss/powerloss.py --bin $(BIN)

# Where `make install` puts things: PREFIX and DESTDIR as usual (a package build sets both).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
MANDIR ?= $(PREFIX)/share/man
# find_page's OpenCV half, opened on first use (the binary looks beside itself: ../lib/pdftrapper).
VISIONDIR ?= $(PREFIX)/lib/pdftrapper
# SwiftPM builds it too (for the tests, beside the test bundle), but links every product it makes
# with the Swift runtime, which a machine it is installed on does not have: the installed one is
# built here from the same source, with C++'s runtime alone.
VISION := .build/vision/libPDFTrapperVision.so
$(VISION): $(wildcard Sources/SheetVision/*.cpp) Sources/SheetVision/include/sheet_vision.h
	mkdir -p $(dir $@)
	c++ -O2 -std=c++17 -shared -fPIC -Wl,--as-needed -ISources/SheetVision/include $$(pkg-config --cflags opencv4) \
		$(filter %.cpp,$^) -o $@ -lopencv_imgproc -lopencv_core
# The workspace's own HTML, CSS and JavaScript (the server looks beside the binary: ../share/pdftrapper/web).
WEBDIR ?= $(PREFIX)/share/pdftrapper/web
BASHCOMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPLETIONDIR ?= $(PREFIX)/share/zsh/vendor-completions
MANPAGES := man/pdftrapper.1 man/pdftrapper.toml.5 man/pdftrapper-edit.5

# The man pages, from their scdoc sources.
man: $(MANPAGES)
man/%: man/%.scd
	scdoc < $< > $@

# The binary, the units (their ExecStart pointed at BINDIR), sysusers.d and tmpfiles.d, the man
# pages, completion for bash and zsh, and the example config as SYSCONFDIR/pdftrapper/config.toml
# unless one is there already (it is never overwritten).
install: man $(VISION)
	$(SWIFT) build $(RELEASE_FLAGS)
	install -Dm755 $(BIN) $(DESTDIR)$(BINDIR)/pdftrapper
	install -Dm644 $(VISION) $(DESTDIR)$(VISIONDIR)/libPDFTrapperVision.so
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR)
	sed 's|/usr/bin/pdftrapper|$(BINDIR)/pdftrapper|' systemd/pdftrapper.service > $(DESTDIR)$(UNITDIR)/pdftrapper.service
	sed 's|/usr/bin/pdftrapper|$(BINDIR)/pdftrapper|' systemd/user/pdftrapper.service > $(DESTDIR)$(USERUNITDIR)/pdftrapper.service
	chmod 644 $(DESTDIR)$(UNITDIR)/pdftrapper.service $(DESTDIR)$(USERUNITDIR)/pdftrapper.service
	install -Dm644 systemd/pdftrapper.sysusers $(DESTDIR)$(SYSUSERSDIR)/pdftrapper.conf
	install -Dm644 systemd/pdftrapper.tmpfiles $(DESTDIR)$(TMPFILESDIR)/pdftrapper.conf
	install -Dm644 man/pdftrapper.1 $(DESTDIR)$(MANDIR)/man1/pdftrapper.1
	install -Dm644 man/pdftrapper.toml.5 $(DESTDIR)$(MANDIR)/man5/pdftrapper.toml.5
	install -Dm644 man/pdftrapper-edit.5 $(DESTDIR)$(MANDIR)/man5/pdftrapper-edit.5
	install -d $(DESTDIR)$(WEBDIR)
	install -m644 web/*.html web/*.css web/*.js web/*.webmanifest web/*.svg web/*.png $(DESTDIR)$(WEBDIR)/
	install -Dm644 completion/pdftrapper.bash $(DESTDIR)$(BASHCOMPLETIONDIR)/pdftrapper
	install -Dm644 completion/_pdftrapper $(DESTDIR)$(ZSHCOMPLETIONDIR)/_pdftrapper
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/pdftrapper/config.toml ]; then \
		echo "install: $(DESTDIR)$(SYSCONFDIR)/pdftrapper/config.toml exists; left as it is"; \
	else \
		install -Dm644 config.example.toml $(DESTDIR)$(SYSCONFDIR)/pdftrapper/config.toml; \
	fi

# Everything install put there, except the config (which may hold a site's changes).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pdftrapper $(DESTDIR)$(UNITDIR)/pdftrapper.service $(DESTDIR)$(USERUNITDIR)/pdftrapper.service \
		$(DESTDIR)$(SYSUSERSDIR)/pdftrapper.conf $(DESTDIR)$(TMPFILESDIR)/pdftrapper.conf \
		$(DESTDIR)$(MANDIR)/man1/pdftrapper.1 $(DESTDIR)$(MANDIR)/man5/pdftrapper.toml.5 $(DESTDIR)$(MANDIR)/man5/pdftrapper-edit.5 \
		$(DESTDIR)$(BASHCOMPLETIONDIR)/pdftrapper $(DESTDIR)$(ZSHCOMPLETIONDIR)/_pdftrapper
	rm -rf $(DESTDIR)$(WEBDIR) $(DESTDIR)$(VISIONDIR)
	rmdir $(DESTDIR)$(PREFIX)/share/pdftrapper 2>/dev/null || true

# The Debian package (debian/), built from the tree into .build/deb/, then checked with lintian.
deb:
	scripts/build-deb.sh

clean:
	rm -rf .build demo $(MANPAGES)
