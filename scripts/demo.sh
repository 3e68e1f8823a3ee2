#!/usr/bin/env bash
# The local demo: the daemon on a demo config with its own inbox, edits folder and library under
# ./demo, and SANE's `test` backend as the scanner. Usage: scripts/demo.sh PATH/TO/pdftrapper
# DEMO_SECONDS=N stops the daemon after N seconds (otherwise it runs until Ctrl-C).
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/.."
demo=$PWD/demo
mkdir -p "$demo"/{inbox/receipts,edits,library,sane}

# A private SANE config that loads only the test backend, with A4-sized geometry.
echo test > "$demo/sane/dll.conf"
echo "geometry_max 300" > "$demo/sane/test.conf"
export SANE_CONFIG_DIR=$demo/sane

cat > "$demo/config.toml" <<'TOML'
# The demo's config: every path is relative to this file's folder.
[daemon]
state_dir = "state"

[library]
root = "library"

[inbox]
path = "inbox"
settle = "1s"

[[rule]]
name = "receipts"
target = "Receipts/{year}-{month}.pdf"
match = { folder = "receipts", type = "image" }

[[rule]]
name = "everything-else"
target = "Inbox.pdf"

# `pdftrapper scan --profile feeder`: every sheet in the test scanner's feeder (it holds 10),
# grey, 150 dpi, A4, into one revision of Scans/YEAR-MONTH.pdf.
[profile.feeder]
device = "test:0"
source = "adf"
mode = "gray"
resolution = 150
page_size = "A4"
target = "Scans/{year}-{month}.pdf"

[profile.feeder.options]
test-picture = "Color pattern"
# SANE's test backend can hang when its reader thread is cancelled mid-exit; a 1 ms pause after each
# buffer avoids it (real scanners are slower than that anyway).
read-delay = true
read-delay-duration = 1000
TOML

echo "== pdftrapper check-config demo/config.toml"
"$bin" check-config "$demo/config.toml"

echo "== scanning two pages with SANE's test scanner into the demo inbox (the daemon takes them at start)"
scanimage -d test --mode Color --test-picture "Color pattern" --resolution 75 --format=png \
  > "$demo/inbox/receipts/scan-$(date +%H%M%S).png"
scanimage -d test --mode Gray --test-picture Grid --resolution 75 --format=pnm > "$demo/inbox/page-$(date +%H%M%S).pnm"

echo "== pdftrapper devices"
"$bin" devices
echo "== pdftrapper scan --profile feeder: the test scanner's 10-sheet feeder into one revision"
"$bin" scan --config "$demo/config.toml" --profile feeder

cat <<TXT

The demo lives in $demo; the daemon starts now (Ctrl-C stops it). In another terminal, try:
  cp some-photo.jpg demo/inbox/                   # lands in demo/library/Inbox.pdf
  cp some-receipt.png demo/inbox/receipts/        # lands in demo/library/Receipts/YYYY-MM.pdf
  echo "not a picture" > demo/inbox/bad.jpg       # goes to demo/quarantine/ with bad.jpg.why.txt
  $bin status --config demo/config.toml           # what the daemon is doing
  $bin history demo/library/Inbox.pdf             # every revision of a PDF
  $bin undo --config demo/config.toml demo/library/Inbox.pdf
  SANE_CONFIG_DIR=demo/sane scanimage -d test --format=png > demo/inbox/scan.png
  SANE_CONFIG_DIR=demo/sane $bin scan --config demo/config.toml --profile feeder
Originals go to demo/archive/; the journal and undo history to demo/library/.pdftrapper/.

TXT
if [ -n "${DEMO_SECONDS:-}" ]; then
  timeout --signal=TERM "$DEMO_SECONDS" "$bin" run --config "$demo/config.toml" || [ $? = 124 ]
  "$bin" status --config "$demo/config.toml" || true
else
  exec "$bin" run --config "$demo/config.toml"
fi
