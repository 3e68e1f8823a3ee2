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

# Every test, with the real libraries, tools and files: the Swift tests, power loss, damaged targets,
# the second-writer soak, several hosts on GlusterFS, the workspace in Chromium, make install, the
# Debian package and libFuzzer, in lanes side by side (scripts/make-test.sh says which and why).
test: deps
	@scripts/make-test.sh

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
	python3 bench/search.py $(BIN)
	$(MAKE) --no-print-directory .build/vision/libPDFTrapperVision.so
	python3 bench/scenes.py

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
