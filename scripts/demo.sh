#!/usr/bin/env bash
# The local demo: a demo config with its own inbox, edits folder and library under ./demo, and
# SANE's `test` backend as the scanner. Usage: scripts/demo.sh PATH/TO/pdftrapper
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
TOML

echo "== pdftrapper check-config demo/config.toml"
"$bin" check-config "$demo/config.toml"

echo "== scanning two pages with SANE's test scanner into the demo inbox"
scanimage -d test --mode Color --test-picture "Color pattern" --resolution 75 --format=png \
  > "$demo/inbox/receipts/scan-$(date +%H%M%S).png"
scanimage -d test --mode Gray --test-picture Grid --resolution 75 --format=pnm > "$demo/inbox/page.pnm"

echo "== pdftrapper explain: what the daemon will do with each input"
(cd "$demo" && "$bin" explain --config config.toml inbox/receipts/*.png inbox/page.pnm)

echo "== pdftrapper ingest: the rules put each page in its PDF, one revision per input"
(cd "$demo" && "$bin" ingest --config config.toml inbox/receipts/*.png inbox/page.pnm)
scanimage -d test --mode Color --test-picture "Color pattern" --resolution 75 --format=png > "$demo/inbox/more.png"
(cd "$demo" && "$bin" ingest --config config.toml inbox/more.png)

echo "== pdftrapper history / undo / redo on library/Inbox.pdf"
(cd "$demo" && "$bin" history library/Inbox.pdf && "$bin" undo --config config.toml library/Inbox.pdf \
  && "$bin" redo --config config.toml library/Inbox.pdf && pdfinfo library/Inbox.pdf | grep Pages)

cat <<TXT

The demo lives in $demo:
  config.toml   the config (try a typo in it, then: $bin check-config demo/config.toml)
  inbox/        drop images and PDFs here; inbox/receipts/ goes to the "receipts" rule
  library/      where the target PDFs go (open them in any viewer)
  library/.pdftrapper/  the journal and the undo history (beside the PDFs, shared by every process)
  state/        the daemon's own state (status)
Try: $bin ingest --config demo/config.toml SOME_IMAGE_OR_PDF
     $bin history demo/library/Inbox.pdf ; $bin undo --config demo/config.toml demo/library/Inbox.pdf
TXT
