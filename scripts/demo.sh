#!/usr/bin/env bash
# The local demo: the daemon on a demo config with its own inbox, edits folder and library under
# ./demo, and SANE's `test` backend as the scanner. Usage: scripts/demo.sh PATH/TO/pdftrapper
# DEMO_SECONDS=N stops the daemon after N seconds (otherwise it runs until Ctrl-C).
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/.."
demo=$PWD/demo
mkdir -p "$demo"/{inbox/receipts,inbox/papers,edits,library,sane,signatures}

# A private SANE config that loads only the test backend, with A4-sized geometry.
echo test > "$demo/sane/dll.conf"
echo "geometry_max 300" > "$demo/sane/test.conf"
export SANE_CONFIG_DIR=$demo/sane

port=${DEMO_PORT:-8470}
cat > "$demo/config.toml" <<TOML
# The demo's config: every path is relative to this file's folder.
[daemon]
state_dir = "state"

# The workspace: the library in a browser (pdftrapper web-url prints the address to log in with).
[web]
listen = "127.0.0.1:$port"

[library]
root = "library"

[inbox]
path = "inbox"
settle = "1s"

[[rule]]
name = "receipts"
target = "Receipts/{year}-{month}.pdf"
match = { folder = "receipts", type = "image" }

# Paper letters photographed or scanned crooked: straightened, turned upright, blank pages left
# out, text pages stored as 1-bit G4, and an invisible text layer added after they land.
[[rule]]
name = "papers"
target = "Papers.pdf"
match = { folder = "papers" }
deskew = true
orient = true
blank = "drop"
compress = "auto"
ocr = ["eng"]

[[rule]]
name = "everything-else"
target = "Inbox.pdf"

# "pdftrapper scan --profile feeder": every sheet in the test scanner's feeder (it holds 10),
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
workspace=$("$bin" web-url --config "$demo/config.toml")

echo "== scanning two pages with SANE's test scanner into the demo inbox (the daemon takes them at start)"
scanimage -d test --mode Color --test-picture "Color pattern" --resolution 75 --format=png \
  > "$demo/inbox/receipts/scan-$(date +%H%M%S).png"
scanimage -d test --mode Gray --test-picture Grid --resolution 75 --format=pnm > "$demo/inbox/page-$(date +%H%M%S).pnm"

echo "== a crooked photo of a letter into demo/inbox/papers (deskewed, G4, then OCR'd by the daemon)"
python3 - "$demo/inbox/papers/letter.jpg" <<'PY'
import random, sys
from PIL import Image, ImageDraw, ImageFont
dpi = 200
im = Image.new("L", (int(8.27 * dpi), int(11.69 * dpi)), 255)
draw = ImageDraw.Draw(im)
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", int(dpi * 12 / 72))
words = "dear customer your invoice for november is attached please pay within thirty days".split()
rnd = random.Random(1)
for line in range(30):
    draw.text((int(dpi * 0.9), int(dpi * (1.2 + 0.3 * line))), " ".join(rnd.choice(words) for _ in range(9)), font=font, fill=0)
im.rotate(3, resample=Image.BICUBIC, fillcolor=255).save(sys.argv[1], quality=85, dpi=(dpi, dpi))
PY
# A saved signature (pen strokes) for edit scripts.
cat > "$demo/signatures/demo.toml" <<'SIG'
width = 3
color = "#1a237e"
strokes = [[[0, 40], [15, 5], [30, 40], [45, 10], [60, 35], [90, 20]]]
SIG
# An edit script to drop into demo/edits once Papers.pdf exists: a note and the signature on page 1.
cat > "$demo/sign.toml" <<'EDIT'
target = "Papers.pdf"
origin = "top-left"
[[edit]]
op = "note"
page = 1
at = [20, 20]
contents = "Seen"
[[edit]]
op = "signature"
page = 1
name = "demo"
box = [20, 60, 180, 120]
EDIT

echo "== pdftrapper devices"
"$bin" devices
echo "== pdftrapper scan --profile feeder: the test scanner's 10-sheet feeder into one revision"
"$bin" scan --config "$demo/config.toml" --profile feeder

cat <<TXT

The demo lives in $demo; the daemon starts now (Ctrl-C stops it).

The workspace (the library in your browser: pages, history, markup, signatures, undo):
  $workspace

In another terminal, try:
  cp some-photo.jpg demo/inbox/                   # lands in demo/library/Inbox.pdf
  cp some-receipt.png demo/inbox/receipts/        # lands in demo/library/Receipts/YYYY-MM.pdf
  echo "not a picture" > demo/inbox/bad.jpg       # goes to demo/quarantine/ with bad.jpg.why.txt
  $bin status --config demo/config.toml           # what the daemon is doing
  $bin history demo/library/Inbox.pdf             # every revision of a PDF
  cp demo/sign.toml demo/edits/                   # an edit script: a note and a signature on Papers.pdf
  $bin annotations demo/library/Papers.pdf        # what it added, with the ids an erase takes
  pdftotext demo/library/Papers.pdf - | head      # the letter's text, once its OCR revision is in
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
