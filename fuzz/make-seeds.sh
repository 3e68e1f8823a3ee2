#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into OUTDIR/<Target>/: small inputs that reach deep
# into each parser, made at run time so nothing of the kind lives in git. The TOML seeds are a few
# toml-test cases, copied from the suite beside the repository (../shared/toml-test, or wherever
# PDFTRAPPER_TOML_TEST_DIR points); without it, only the project's own TOML seeds are written.
#
#   fuzz/make-seeds.sh OUTDIR
set -euo pipefail

out=${1:?usage: make-seeds.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
toml_test=${PDFTRAPPER_TOML_TEST_DIR:-$root/../shared/toml-test}
mkdir -p "$out"/{FuzzTOML,FuzzConfig,FuzzEditScript,FuzzPDFTail,FuzzImageHeaders,FuzzSheetVision}

# --- TOML: a sample of toml-test's TOML 1.0.0 cases (every 8th small valid and invalid one), the
# example config, and the edit scripts below.
if [ -f "$toml_test/tests/files-toml-1.0.0" ]; then
  grep '\.toml$' "$toml_test/tests/files-toml-1.0.0" | while read -r case; do
    file=$toml_test/tests/$case
    [ -f "$file" ] && [ "$(stat -c %s "$file")" -le 512 ] && echo "$case"
  done | awk 'NR % 8 == 1' | while read -r case; do
    install -m 0644 "$toml_test/tests/$case" "$out/FuzzTOML/toml-test-${case//\//-}"
  done
else
  echo "make-seeds: no toml-test suite at $toml_test; TOML seeds are the project's own only" >&2
fi
cp "$root/config.example.toml" "$out/FuzzTOML/config.example.toml"

# --- Config: the example (whole, and without comments: shorter inputs mutate faster), and small ones.
cp "$root/config.example.toml" "$out/FuzzConfig/example.toml"
grep -v '^[[:space:]]*#' "$root/config.example.toml" | grep -v '^[[:space:]]*$' >"$out/FuzzConfig/example-bare.toml"
printf '[library]\nroot = "/srv/documents"\n[inbox]\npath = "/srv/scans/inbox"\n' >"$out/FuzzConfig/minimal.toml"
cat >"$out/FuzzConfig/rules.toml" <<'EOF'
[library]
root = "~/docs"
[inbox]
path = "in"
ignore = ["**/tmp/**", "[!a-c]?.x", "\\*"]
[[rule]]
name = "r"
target = "{rule}/{year}{month}{day}/{stem}-{seq}.pdf"
mode = "new"
[rule.match]
glob = ["**/*.JPG", "IMG_[0-9]*"]
regex = '^(receipts|letters)/.*\d+'
min_size = "1KB"
max_size = "2GiB"
[[rule]]
name = "s"
target = "{host}/{source}/{button}/{profile}/{date} {time}.pdf"
mode = "batch"
batch_window = "90s"
[rule.match]
source = "scanner"
profile = "duplex"
[profile.duplex]
source = "adf-duplex"
mode = "lineart"
resolution = 600
page_size = "Letter"
rule = "s"
EOF
{ cat "$out/FuzzConfig/rules.toml"; printf '\0receipts/2024/IMG_0001 (1).JPG'; } >"$out/FuzzConfig/rules-and-path.bin"

# --- Edit scripts: the first byte chooses the format (even: TOML, odd: JSON), the rest is the script.
edit() { { printf "$1"; cat; } >"$out/FuzzEditScript/$2"; }
edit '\0' all-ops.toml <<'EOF'
target = "Letters/2026/bank.pdf"
units = "mm"
origin = "top-left"
base_revision = 18234
on_conflict = "apply"
purge = true
[[edit]]
op = "rotate"
pages = "1-3, 5, last"
degrees = -90
[[edit]]
op = "move"
pages = [4, 2]
to = "end"
[[edit]]
op = "insert-blank"
after = 0
size = "A4"
[[edit]]
op = "extract"
pages = "odd"
into = "Extracts/{date}-{seq}.pdf"
[[edit]]
op = "crop"
pages = "2-last"
box = [10, 10.5, 200, 287]
[[edit]]
op = "metadata"
title = "Bank, März"
keywords = ""
[[edit]]
op = "bookmark"
title = "Statement"
page = 2
[[edit]]
op = "duplicate"
pages = "even"
EOF
edit '\1' all-ops.json <<'EOF'
{"target": "Letters/2026/bank.pdf", "units": "in", "origin": "bottom-left", "base_revision": 18234,
 "on_conflict": "fail", "purge": false,
 "edit": [
  {"op": "rotate", "pages": "1-3, 5, last", "degrees": 270},
  {"op": "move", "pages": [4, 2], "to": 1},
  {"op": "insert-blank", "after": 0, "size": [8.5, 11.0]},
  {"op": "extract", "pages": "all", "into": "Extracts/{date}-{seq}.pdf"},
  {"op": "crop", "box": [1e0, 0.5, 2E1, 3.0e1]},
  {"op": "metadata", "title": "Bank, M\u00e4rz \ud83d\ude00", "author": "A\"n\\n\/\b\f\n\r\t"},
  {"op": "bookmark", "title": "Statement", "page": 2},
  {"op": "delete", "pages": "even"}
 ]}
EOF
edit '\0' undo.toml <<'EOF'
target = "a.pdf"
[[edit]]
op = "undo"
steps = 2
EOF
edit '\1' redo.json <<'EOF'
{"target": "sub/a.pdf", "edit": [{"op": "redo", "steps": 1}]}
EOF
edit '\1' wrong.json <<'EOF'
{"target": "../a.pdf", "edit": [{"op": "redo", "steps": 1}], "extra": [null, true, {}, [], -1.5e-3]}
EOF
cp "$out/FuzzEditScript/all-ops.toml" "$out/FuzzTOML/edit-script.toml.bin"

# --- PDFs and images, written byte by byte (Pillow for the JPEGs and TIFFs).
python3 - "$out" <<'EOF'
import io, struct, sys, zlib
from pathlib import Path

out = Path(sys.argv[1])

# PDFs: every cross-reference form the tail reader takes. Streams marked /FlateDecode hold their
# data as is: the fuzz target's decoder treats Flate as already inflated.
PAGE = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]/Contents 4 0 R>>"
CONTENT = b"0 0 1 rg 10 10 50 50 re f\n"
BASE = {
    1: b"<</Type/Catalog/Pages 2 0 R>>",
    2: b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
    3: PAGE,
    4: b"<</Length %d>>stream\n" % len(CONTENT) + CONTENT + b"\nendstream",
}

def body(objects, start, data):
    offsets = {}
    for number, text in objects.items():
        offsets[number] = start + len(data)
        data += b"%d 0 obj\n" % number + text + b"\nendobj\n"
    return offsets, data

def table(offsets, size, trailer_extra=b"", start_at_zero=True):
    lines = [b"xref\n"]
    if start_at_zero:
        lines.append(b"0 1\n0000000000 65535 f \n")
    for number in sorted(offsets):
        lines.append(b"%d 1\n%010d 00000 n \n" % (number, offsets[number]))
    return b"".join(lines) + b"trailer\n<</Size %d/Root 1 0 R%s>>\n" % (size, trailer_extra)

def classic(objects=BASE, junk=b""):
    data = junk + b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    offsets, data = body(objects, 0, data)
    shift = len(junk)
    xref = len(data)
    rel = {n: o - shift for n, o in offsets.items()}
    return data + table(rel, max(objects) + 1) + b"startxref\n%d\n%%%%EOF\n" % (xref - shift)

def xref_stream_object(number, entries, size, extra=b"", flate=False):
    # /W [1 2 1]; with flate, PNG Up predictor rows (filter byte 2, then the row minus the row above).
    rows = [bytes([t]) + struct.pack(">H", f2) + bytes([f3]) for t, f2, f3 in entries]
    index = b""
    if flate:
        prev = bytes(4)
        data = b""
        for row in rows:
            data += b"\x02" + bytes((a - b) & 0xFF for a, b in zip(row, prev))
            prev = row
        dictionary = b"<</Type/XRef/Size %d/W[1 2 1]/Root 1 0 R/Filter/FlateDecode/DecodeParms<</Predictor 12/Columns 4>>%s/Length %d>>" % (size, extra, len(data))
    else:
        data = b"".join(rows)
        dictionary = b"<</Type/XRef/Size %d/W[1 2 1]/Root 1 0 R%s/Length %d>>" % (size, extra, len(data))
    return dictionary + b"stream\n" + data + b"\nendstream"

def with_xref_stream(flate=False, object_stream=False):
    data = b"%PDF-1.5\n"
    objects = dict(BASE)
    entries = {0: (0, 0, 255)}
    if object_stream:
        members = [(1, BASE[1]), (2, BASE[2])]
        header, payload = b"", b""
        for number, text in members:
            header += b"%d %d " % (number, len(payload))
            payload += text + b" "
        stream = header + payload
        objects = {3: BASE[3], 4: BASE[4],
                   5: b"<</Type/ObjStm/N 2/First %d/Length %d>>stream\n" % (len(header), len(stream)) + stream + b"\nendstream"}
        for index, (number, _) in enumerate(members):
            entries[number] = (2, 5, index)
    offsets, data = body(objects, 0, data)
    for number, offset in offsets.items():
        entries[number] = (1, offset, 0)
    xref_number = max(max(objects), max(entries)) + 1
    xref_offset = len(data)
    entries[xref_number] = (1, xref_offset, 0)
    size = xref_number + 1
    rows = [entries.get(n, (0, 0, 0)) for n in range(size)]
    data += b"%d 0 obj\n" % xref_number + xref_stream_object(xref_number, rows, size, flate=flate) + b"\nendobj\n"
    return data + b"startxref\n%d\n%%%%EOF\n" % xref_offset

def hybrid():
    # A classic table for old readers, and an /XRefStm stream holding object 5 (hidden from them).
    data = b"%PDF-1.5\n"
    objects = dict(BASE)
    objects[1] = b"<</Type/Catalog/Pages 2 0 R/Outlines 5 0 R>>"
    objects[5] = b"<</Type/Outlines/Count 0>>"
    offsets, data = body(objects, 0, data)
    stm_offset = len(data)
    rows = [(0, 0, 255)] + [(0, 0, 0)] * 4 + [(1, offsets[5], 0)]
    data += b"6 0 obj\n" + xref_stream_object(6, rows, 6) + b"\nendobj\n"
    visible = {n: o for n, o in offsets.items() if n != 5}
    xref = len(data)
    return data + table(visible, 7, b"/XRefStm %d" % stm_offset) + b"startxref\n%d\n%%%%EOF\n" % xref

def updated():
    # A second revision adding a page, its table chained to the first by /Prev.
    first = classic()
    prev = int(first.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    objects = {2: b"<</Type/Pages/Kids[3 0 R 5 0 R]/Count 2/MediaBox[0 0 612 792]/Rotate 90>>",
               5: PAGE.replace(b"/MediaBox[0 0 200 100]", b"")}
    offsets, data = body(objects, 0, first)
    xref = len(data)
    data += table(offsets, 6, b"/Prev %d/ID[<0123456789ABCDEF><0123456789ABCDEF>]/Info 1 0 R" % prev,
                  start_at_zero=False)
    return data + b"startxref\n%d\n%%%%EOF" % xref

# What the page editor reads: a nested tree with inherited attributes, annotations, /Info, an outline.
NESTED = {
    1: b"<</Type/Catalog/Pages 2 0 R/Outlines 8 0 R>>",
    2: b"<</Type/Pages/Kids[6 0 R 5 0 R]/Count 3/MediaBox[0 0 612 792]/Resources<<>>>>",
    3: b"<</Type/Page/Parent 6 0 R/Contents 4 0 R/Annots[7 0 R]>>",
    4: BASE[4],
    5: b"<</Type/Page/Parent 2 0 R/Contents 4 0 R/CropBox[0 0 300 300]>>",
    6: b"<</Type/Pages/Parent 2 0 R/Kids[3 0 R 10 0 R]/Count 2/Rotate 270/CropBox[5 5 600 780]>>",
    7: b"<</Type/Annot/Subtype/Link/Rect[0 0 10 10]/P 3 0 R/Dest[5 0 R/Fit]>>",
    8: b"<</Type/Outlines/First 9 0 R/Last 9 0 R/Count 1>>",
    9: b"<</Title(One)/Parent 8 0 R/Dest[3 0 R/XYZ 0 792 0]>>",
    10: b"<</Type/Page/Parent 6 0 R/Contents[4 0 R 4 0 R]/Rotate 90>>",
    11: b"<</Title(Info)/Author<FEFF0041>/Producer(make-seeds)>>",
}

def nested():
    data = b"%PDF-1.7\n"
    offsets, data = body(NESTED, 0, data)
    xref = len(data)
    return data + table(offsets, 12, b"/Info 11 0 R") + b"startxref\n%d\n%%%%EOF\n" % xref

pdfs = {
    "nested.pdf": nested(),
    "classic.pdf": classic(),
    "leading-junk.pdf": classic(junk=b"junk before the header\n"),
    "xref-stream.pdf": with_xref_stream(),
    "xref-stream-predictor.pdf": with_xref_stream(flate=True),
    "object-stream.pdf": with_xref_stream(object_stream=True),
    "hybrid.pdf": hybrid(),
    "updated.pdf": updated(),
}
for name, data in pdfs.items():
    (out / "FuzzPDFTail" / name).write_bytes(data)

# Images. PNGs by hand, so their IDAT can hold rows as stored (the fuzz target's "inflate" takes
# data as is): grey, RGB with tRNS, palette, 16-bit, Adam7; plus one real zlib one for the header.
img = out / "FuzzImageHeaders"

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

def png(width, height, depth, color, rows, extra=b"", interlace=0, compress=False):
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, interlace)
    idat = zlib.compress(rows) if compress else rows
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"pHYs", struct.pack(">IIB", 11811, 11811, 1))
            + extra + chunk(b"IDAT", idat) + chunk(b"IEND", b""))

(img / "grey.png").write_bytes(png(4, 2, 8, 0, b"\x00\x10\x20\x30\x40" + b"\x01\x01\x01\x01\x01"))
(img / "rgb-trns.png").write_bytes(png(2, 2, 8, 2, b"\x02" + bytes(6) + b"\x04" + bytes(range(6)),
                                       extra=chunk(b"tRNS", b"\x00\x00\x00\x00\x00\x00")))
(img / "palette.png").write_bytes(png(3, 1, 2, 3, b"\x03\x1b", extra=chunk(b"PLTE", bytes(range(12)))
                                      + chunk(b"tRNS", b"\x00\x80")))
(img / "grey16-alpha.png").write_bytes(png(1, 2, 16, 4, b"\x00\x12\x34\xff\xff" + b"\x03\x00\x01\x00\x00"))
# Adam7 on 3x3: passes 1, 4, 5, 6 (two rows), 7 hold pixels.
(img / "adam7.png").write_bytes(png(3, 3, 8, 0, b"\x00\x01" + b"\x00\x02" + b"\x00\x03\x04" + b"\x00\x05\x00\x06"
                                    + b"\x00\x07\x08\x09", interlace=1))
(img / "zlib.png").write_bytes(png(2, 1, 8, 6, b"\x00" + bytes(8), compress=True))

# PNM: every kind, comments, maxvals that need scaling, 16-bit samples.
pnm = {
    "p1.pbm": b"P1\n# comment\n3 2\n1 0 1\n0 1 0\n",
    "p2.pgm": b"P2 2 2 1000 0 500 999 1000\n",
    "p3.ppm": b"P3\n1 1\n255\n255 0 128\n",
    "p4.pbm": b"P4\n9 1\n\xff\x80",
    "p5-16.pgm": b"P5\n2 1\n65535\n\x12\x34\xff\xff",
    "p6.ppm": b"P6\n#c\n1 2\n255\n" + bytes(range(6)),
}
for name, data in pnm.items():
    (img / name).write_bytes(data)

# A big-endian TIFF by hand: one 2x1 8-bit grey strip, resolution in centimetres, orientation 6.
def tiff_mm():
    entries = [(256, 3, 1, 2), (257, 3, 1, 1), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 0), (274, 3, 1, 6), (277, 3, 1, 1), (279, 4, 1, 2), (282, 5, 1, 0), (283, 5, 1, 0),
               (296, 3, 1, 3)]
    ifd_offset = 8
    data_offset = ifd_offset + 2 + 12 * len(entries) + 4
    rational_offset = data_offset + 2
    fixed = []
    for tag, kind, count, value in entries:
        if tag == 273: value = data_offset
        if tag in (282, 283): value = rational_offset
        if kind == 3:
            fixed.append(struct.pack(">HHIHH", tag, kind, count, value, 0))
        else:
            fixed.append(struct.pack(">HHII", tag, kind, count, value))
    return (b"MM\x00\x2a" + struct.pack(">I", ifd_offset) + struct.pack(">H", len(entries)) + b"".join(fixed)
            + struct.pack(">I", 0) + b"\x00\xff" + struct.pack(">II", 118, 1))
(img / "mm.tif").write_bytes(tiff_mm())

from PIL import Image
grey = Image.new("L", (16, 8), 128)
for x in range(16):
    grey.putpixel((x, x % 8), 0)
for name, image, options in [
    ("baseline.jpg", grey, dict(quality=50, dpi=(200, 200))),
    ("progressive.jpg", grey.convert("RGB"), dict(quality=50, progressive=True)),
    ("cmyk.jpg", grey.convert("CMYK"), dict(quality=50)),
]:
    image.save(img / name, **options)
exif = Image.Exif()
exif[0x0112] = 6       # orientation: rotate 90 clockwise to view
exif[0x011A] = 150.0   # XResolution
exif[0x011B] = 150.0
exif[0x0128] = 2       # inches
grey.convert("RGB").save(img / "exif.jpg", quality=50, exif=exif.tobytes())

bilevel = grey.point(lambda v: 255 if v > 64 else 0).convert("1")
bilevel.save(img / "g4.tif", compression="group4", dpi=(300, 300))
bilevel.save(img / "g3.tif", compression="group3")
bilevel.save(img / "two-pages.tif", compression="group4", save_all=True,
             append_images=[bilevel.transpose(Image.Transpose.ROTATE_180)])
grey.convert("RGB").save(img / "packbits-rgb.tif", compression="packbits")
# The phone formats, for the sniff's brands and the completeness check's RIFF and box walks (their
# pixels are libwebp's and libheif's to decode).
grey.save(img / "lossy.webp", quality=50)
grey.save(img / "lossless.webp", lossless=True)
grey.convert("RGB").save(img / "photo.avif", quality=50)
import shutil, subprocess
if shutil.which("heif-enc"):
    grey.convert("RGB").save(img / "heic-source.png")
    subprocess.run(["heif-enc", "-q", "50", str(img / "heic-source.png"), "-o", str(img / "photo.heic")], check=True,
                   stdout=subprocess.DEVNULL)
    (img / "heic-source.png").unlink()
EOF

echo "make-seeds: $(find "$out" -type f | wc -l) seeds in $out"

# --- SheetVision: a drawn scene (mode 1) of a light sheet on a dark table, 300 x 220, with a printed
# box inside; the same with the warp (mode 2); and a few raw pixels (mode 0). Byte layout: see
# fuzz/SheetVision/FuzzSheetVision.cpp.
sheet=$out/FuzzSheetVision
#          mode salt  width-1  height-1 words  table     shapes  quad: x,y (0..3w-w as 16-bit, +w)             colour    fill
printf '\x01\x07\x2b\x01\xdb\x00\x00\x40\x30\x20\x02\x5a\x01\xf8\x00\x4e\x02\x00\x01\x50\x02\x54\x01\x68\x01\xfe\x01\xf0\xf0\xe8\x01\x90\x01\x10\x01\xf4\x01\x10\x01\xf4\x01\x40\x01\x90\x01\x40\x01\x20\x20\x20\x01' >"$sheet/scene"
printf '\x02\x07\x2b\x01\xdb\x00\x01\x40\x30\x20\x01\x5a\x01\xf8\x00\x4e\x02\x00\x01\x50\x02\x54\x01\x68\x01\xfe\x01\xf0\xf0\xe8\x01\x64\x00\x64\x00\x00\x01\x80\x00' >"$sheet/warp"
printf '\x00\x01\x03\x00\x03\x00\x00\x10\x80\xff\x00\x40\x20' >"$sheet/raw"

