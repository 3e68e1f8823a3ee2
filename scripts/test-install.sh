#!/usr/bin/env bash
# `make install` into a scratch DESTDIR with another PREFIX: every file lands where PREFIX says, the
# units start the installed binary, and a second install leaves a config someone edited alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
destdir=$(mktemp -d)
trap 'rm -rf "$destdir"' EXIT
fail() { echo "test-install: FAILED: $*" >&2; exit 1; }
make -C "$root" --no-print-directory install DESTDIR="$destdir" PREFIX=/opt/pdftrapper >/dev/null
for file in bin/pdftrapper lib/pdftrapper/libPDFTrapperVision.so lib/systemd/system/pdftrapper.service lib/systemd/user/pdftrapper.service \
            lib/sysusers.d/pdftrapper.conf lib/tmpfiles.d/pdftrapper.conf share/man/man1/pdftrapper.1 \
            share/man/man5/pdftrapper.toml.5 share/man/man5/pdftrapper-edit.5 \
            share/bash-completion/completions/pdftrapper share/zsh/vendor-completions/_pdftrapper \
            share/pdftrapper/web/index.html share/pdftrapper/web/manifest.webmanifest \
            share/pdftrapper/web/icon.svg share/pdftrapper/web/icon-192.png share/pdftrapper/web/icon-512.png; do
    [ -f "$destdir/opt/pdftrapper/$file" ] || fail "no $file below PREFIX"
done
[ -f "$destdir/etc/pdftrapper/config.toml" ] || fail "no example config in /etc/pdftrapper"
"$destdir/opt/pdftrapper/bin/pdftrapper" --version >/dev/null || fail "the installed binary does not run"
# find_page's OpenCV half is found where install put it, beside the binary's folder.
"$destdir/opt/pdftrapper/bin/pdftrapper" --version | grep -q "OpenCV 4" ||
    fail "the installed binary does not find lib/pdftrapper/libPDFTrapperVision.so: $("$destdir/opt/pdftrapper/bin/pdftrapper" --version)"
grep -q "^ExecStart=/opt/pdftrapper/bin/pdftrapper run" "$destdir/opt/pdftrapper/lib/systemd/system/pdftrapper.service" ||
    fail "the system unit does not start the installed binary"
grep -q "^ExecStart=/opt/pdftrapper/bin/pdftrapper run" "$destdir/opt/pdftrapper/lib/systemd/user/pdftrapper.service" ||
    fail "the user unit does not start the installed binary"
echo "# edited by the site" >> "$destdir/etc/pdftrapper/config.toml"
make -C "$root" --no-print-directory install DESTDIR="$destdir" PREFIX=/opt/pdftrapper | grep -q "exists; left as it is" ||
    fail "a second install did not say it kept the config"
tail -1 "$destdir/etc/pdftrapper/config.toml" | grep -q "edited by the site" || fail "a second install overwrote the config"
make -C "$root" --no-print-directory uninstall DESTDIR="$destdir" PREFIX=/opt/pdftrapper >/dev/null
left=$(find "$destdir/opt" -type f)
[ -z "$left" ] || fail "uninstall left: $left"
echo "test-install: make install and uninstall below DESTDIR/PREFIX, the config kept"
