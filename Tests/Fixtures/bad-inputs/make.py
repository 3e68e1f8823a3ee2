#!/usr/bin/env python3
"""Writes the bad-input corpus into FOLDER/inbox and FOLDER/edits, with good files beside them,
and prints one JSON line per file: {"name", "folder", "expect", "why"}. `expect` is "quarantine"
(inbox; the file and NAME.why.txt end in the quarantine), "ingest" (a good file, or a good file
with a strange name), "failed" (edits; the script ends in failed/ with NAME.error.txt) or "done"
(a good script). `why` is a phrase the reason must hold (lower case), or "".

  make.py make STAGE OUTSIDE   writes the corpus into STAGE (OUTSIDE: a folder outside every
                               configured one, for links), STAGE/expected.json the expectations
  make.py deliver STAGE ROOT   renames everything into ROOT/inbox and ROOT/edits at once
  make.py check STAGE ROOT     prints one JSON object: {"pending": [...], "problems": [...]}

Names are handled as bytes throughout (some are not UTF-8). Everything is made here, from nothing
downloaded.
"""
import io, json, os, socket, struct, subprocess, sys, zlib
from PIL import Image


def deliver(stage, root):
    for where in ("inbox", "edits"):
        source = os.path.join(stage.encode(), where.encode())
        for name in os.listdir(source):
            os.rename(os.path.join(source, name), os.path.join(root.encode(), where.encode(), name))


def check(stage, root):
    expected = json.load(open(os.path.join(stage, "expected.json")))
    base = root.encode()
    archived = set()
    for folder, _, files in os.walk(os.path.join(base, b"archive")):
        archived.update(files)
    pending, problems = [], []
    for entry in expected:
        name = entry["placed"].encode()
        shown = entry["name"].replace("\n", "\\n")
        if entry["expect"] == "ingest":
            if name not in archived:
                pending.append(shown)
            continue
        if entry["expect"] == "quarantine":
            thing, why = os.path.join(base, b"quarantine", name), os.path.join(base, b"quarantine", name + b".why.txt")
        else:
            thing, why = os.path.join(base, b"edits", b"failed", name), os.path.join(base, b"edits", b"failed", name + b".error.txt")
        if not os.path.exists(why):
            pending.append(shown)
            continue
        text = open(why, "rb").read().decode("utf-8", "replace")
        if entry.get("link"):
            # A link is never moved (a later move into it would follow): removed, its note says so.
            if os.path.lexists(thing):
                problems.append(shown + ": the link itself was kept")
            if "was removed" not in text:
                problems.append(shown + ": its note does not say the link was removed")
        elif not os.path.lexists(thing):
            problems.append(shown + ": its note is there but not the file itself")
        reason = text.split("\n")[0].removeprefix("reason: ").strip()
        if not reason:
            problems.append(shown + ": no reason given")
        elif entry["why"] and entry["why"] not in text.lower():
            problems.append(shown + ": reason does not say " + repr(entry["why"]) + ": " + reason)
    print(json.dumps({"pending": pending, "problems": problems}))


if sys.argv[1] == "deliver":
    deliver(sys.argv[2], sys.argv[3])
    sys.exit(0)
if sys.argv[1] == "check":
    check(sys.argv[2], sys.argv[3])
    sys.exit(0)
folder, outside = sys.argv[2], sys.argv[3]
inbox, edits = os.path.join(folder, "inbox"), os.path.join(folder, "edits")
os.makedirs(inbox, exist_ok=True)
os.makedirs(edits, exist_ok=True)
made = []


def note(name, where, expect, why="", link=False, placed=None):
    # A name that is not UTF-8 is renamed by the daemon: each stray byte becomes %XX.
    if isinstance(name, bytes):
        name = "".join("%%%02X" % (ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else c
                       for c in name.decode("utf-8", "surrogateescape"))
    made.append({"name": name, "folder": where, "expect": expect, "why": why, "link": "yes" if link else "",
                 "placed": placed or name})


def put(name, data, expect="quarantine", why=""):
    path = os.path.join(inbox.encode(), name) if isinstance(name, bytes) else os.path.join(inbox, name)
    with open(path, "wb") as f:
        f.write(data)
    note(name, "inbox", expect, why)


def image(fmt, size=(40, 30), mode="RGB", **kw):
    out = io.BytesIO()
    Image.new(mode, size, (200, 30, 30) if mode == "RGB" else 128).save(out, fmt, **kw)
    return out.getvalue()


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, idat, bit_depth=8, color=0, ihdr_crc_ok=True):
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color, 0, 0, 0)
    chunk = png_chunk(b"IHDR", ihdr)
    if not ihdr_crc_ok:
        chunk = chunk[:-4] + b"\0\0\0\0"
    return b"\x89PNG\r\n\x1a\n" + chunk + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")


def tiff_header(width, height, bits=8, compression=1, strip_offset=8, strip_bytes=None, samples=1):
    # Little-endian baseline TIFF with one IFD right after the header.
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, bits), (259, 3, 1, compression),
               (262, 3, 1, 1), (273, 4, 1, strip_offset), (277, 3, 1, samples), (278, 4, 1, height),
               (279, 4, 1, strip_bytes if strip_bytes is not None else min(width * height, 0xFFFFFFFF))]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", t, k, c, v) if k == 4 else
                                                      struct.pack("<HHIHH", t, k, c, v, 0) for t, k, c, v in entries)
    return b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0)


def pdf(objects, root=1, xref_ok=True, trailer_extra=b""):
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % (offset + (7 if not xref_ok else 0))
    out += b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, trailer_extra,
                                                                              xref + (0 if xref_ok else 3))
    return bytes(out)


good_pdf = pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] >>"])
jpeg = image("JPEG")

# --- Good files dropped beside the bad ones: all must go in. ---
put("good-1.jpg", image("JPEG", (41, 30)), "ingest")
put("good-2.png", image("PNG", (42, 30)), "ingest")
put("good-3.pdf", good_pdf, "ingest")
put("good-4.tiff", image("TIFF", (43, 30)), "ingest")
put("good-5.pgm", image("PPM", (44, 30), mode="L"), "ingest")
# A good page that asks a viewer to launch a program and run JavaScript: it goes in without them.
put("good-6-active.pdf", pdf([b"<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /Launch /F (/bin/sh) >> >>",
                              b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                              b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Annots [4 0 R] "
                              b"/AA << /O << /S /Launch /F (/bin/sh) >> >> >>",
                              b"<< /Type /Annot /Subtype /Link /Rect [0 0 50 50] /A << /S /JavaScript /JS (1) >> >>"]),
    "ingest")
# Strange names on good files: taken like any other.
put("new\nline.jpg", image("JPEG", (45, 30)), "ingest")
put(b"latin1-\xe9t\xe9.jpg", image("JPEG", (46, 30)), "ingest")
put("x" * 251 + ".jpg", image("JPEG", (47, 30)), "ingest")
put("-leading-dash.jpg", image("JPEG", (48, 30)), "ingest")
put("spaces and 'quotes' \"too\".jpg", image("JPEG", (49, 30)), "ingest")

# --- Empty and not what they claim. ---
put("empty.jpg", b"", why="empty")
put("empty.pdf", b"", why="empty")
put("empty.png", b"", why="empty")
put("text-named.jpg", b"just some text, not a picture\n", why="not a jpeg")
put("html-named.pdf", b"<!DOCTYPE html><html><body>hi</body></html>", why="not a jpeg")
put("zip-named.pdf", b"PK\x03\x04" + b"\0" * 100, why="not a jpeg")
put("gif.gif", b"GIF89a" + b"\0" * 50)
put("bmp.bmp", image("BMP"))
put("webp.webp", image("WEBP"))
put("heic.heic", b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + b"\0" * 64)
put("elf-named.png", open("/bin/true", "rb").read()[:4096])
put("one-byte.tiff", b"I")

# --- JPEG. ---
put("truncated.jpg", jpeg[:len(jpeg) // 2])
put("soi-only.jpg", b"\xff\xd8")
put("header-only.jpg", jpeg[:20])
sof = jpeg.find(b"\xff\xc0")
put("zero-width.jpg", jpeg[:sof + 7] + b"\0\0" + jpeg[sof + 9:])
put("garbage-after-soi.jpg", b"\xff\xd8" + os.urandom(2000))
put("bomb.jpg", jpeg[:sof + 5] + struct.pack(">HH", 65000, 65000) + jpeg[sof + 9:], why="pixels")
progressive = image("JPEG", (300, 200), progressive=True)
put("truncated-progressive.jpg", progressive[:len(progressive) // 3])

# --- PNG. ---
put("signature-only.png", b"\x89PNG\r\n\x1a\n")
put("bad-ihdr-crc.png", png(10, 10, zlib.compress(b"\0" * 110), ihdr_crc_ok=False))
put("truncated-idat.png", png(100, 100, zlib.compress(b"\0" * 10100))[:-40])
put("zero-width.png", png(0, 10, zlib.compress(b"")))
put("bomb.png", png(100000, 100000, zlib.compress(b"\0" * 1000)), why="pixels")
# A Flate bomb: a 1000 x 1000 picture whose IDAT inflates to 1 GB.
bomb = zlib.compressobj(9)
flate = b"".join(bomb.compress(b"\0" * (1 << 20)) for _ in range(1024)) + bomb.flush()
put("flate-bomb.png", png(1000, 1000, flate))
put("bad-bit-depth.png", png(10, 10, zlib.compress(b"\0" * 110), bit_depth=7))
put("bad-color-type.png", png(10, 10, zlib.compress(b"\0" * 110), color=5))
put("garbage-idat.png", png(50, 50, os.urandom(500)))

# --- TIFF. ---
tiff = image("TIFF", (60, 40))
put("truncated.tiff", tiff[:len(tiff) // 2])
put("bad-ifd-offset.tiff", b"II*\0" + struct.pack("<I", 0x7FFFFFF0) + b"\0" * 16)
put("bomb.tiff", tiff_header(100000, 100000) + b"\0" * 64, why="pixels")
put("strip-past-end.tiff", tiff_header(100, 100, strip_offset=1 << 30))
put("odd-bits.tiff", tiff_header(10, 10, bits=3) + b"\0" * 100)
put("unknown-compression.tiff", tiff_header(10, 10, compression=60000) + b"\0" * 100)
put("ifd-loop.tiff", b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", 0) + struct.pack("<I", 8))

# --- PNM. ---
put("bad-header.pgm", b"P5\nwide high\n255\n" + b"\0" * 10)
put("bomb.pgm", b"P5\n100000 100000\n255\n" + b"\0" * 100, why="pixels")
put("truncated.ppm", b"P6\n100 100\n255\n" + b"\0" * 500)
put("maxval-zero.pgm", b"P5\n10 10\n0\n" + b"\0" * 100)

# --- PDF. ---
put("truncated.pdf", good_pdf[:len(good_pdf) // 2])
put("header-only.pdf", b"%PDF-1.7\n")
put("noise.pdf", b"%PDF-1.4\n" + os.urandom(3000))
put("no-pages.pdf", pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]), why="no pages")
put("cyclic-tree.pdf", pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                            b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>"]))
put("no-root.pdf", pdf([b"<< /Type /Pages /Kids [] /Count 0 >>"], root=9))
put("broken-xref-and-body.pdf", good_pdf.replace(b"obj", b"job").replace(b"xref", b"fxre"))
put("deep-nesting.pdf", pdf([b"<< /Type /Catalog /Pages 2 0 R /X " + b"[" * 100000 + b"]" * 100000 + b" >>",
                             b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b"<< /Type /Page /Parent 2 0 R /X 4 0 R >>",
                             b"[" * 100000]))
encrypted = os.path.join(folder, "plain.pdf")
with open(encrypted, "wb") as f:
    f.write(good_pdf)
subprocess.run(["qpdf", "--encrypt", "user", "owner", "256", "--", encrypted, os.path.join(inbox, "encrypted.pdf")], check=True)
note("encrypted.pdf", "inbox", "quarantine", "encrypt")

# --- Too big for the limits of the test config (max_input_size = "4MB", max_pages = 50). ---
put("over-size.jpg", jpeg + b"\0" * (5 << 20), why="max_input_size")
pages = [Image.new("L", (8, 8), 255) for _ in range(60)]
out = io.BytesIO()
pages[0].save(out, "TIFF", save_all=True, append_images=pages[1:])
put("sixty-pages.tiff", out.getvalue(), why="max_pages")

# --- Not regular files, and links. ---
secret = os.path.join(outside, "secret.jpg")
with open(secret, "wb") as f:
    f.write(image("JPEG", (50, 30)))
os.symlink(secret, os.path.join(inbox, "link-outside.jpg"))
note("link-outside.jpg", "inbox", "quarantine", "link", link=True)
os.symlink("good-1.jpg", os.path.join(inbox, "link-inside.jpg"))
note("link-inside.jpg", "inbox", "quarantine", "link", link=True)
os.symlink("/nonexistent/nothing.jpg", os.path.join(inbox, "link-dangling.jpg"))
note("link-dangling.jpg", "inbox", "quarantine", "link", link=True)
os.symlink(outside, os.path.join(inbox, "link-to-folder"))
note("link-to-folder", "inbox", "quarantine", "link", link=True)
os.link(secret, os.path.join(inbox, "hardlink-outside.jpg"))
note("hardlink-outside.jpg", "inbox", "quarantine", "hard link")
os.mkfifo(os.path.join(inbox, "fifo.jpg"))
note("fifo.jpg", "inbox", "quarantine", "fifo")
server = socket.socket(socket.AF_UNIX)
server.bind(os.path.join(inbox, "socket.jpg"))
note("socket.jpg", "inbox", "quarantine", "socket")
os.mknod(os.path.join(inbox, "device.jpg"), 0o600 | 0o020000, os.makedev(1, 3))
note("device.jpg", "inbox", "quarantine", "device")
put(b"bad-name-\xff\xfe.pdf", b"not a pdf at all")
# A name of 255 bytes: its note would not fit beside it, so it is quarantined as 247 bytes.
long_name = "q" * 251 + ".jpg"
with open(os.path.join(inbox, long_name), "wb") as f:
    f.write(b"not a picture")
note(long_name, "inbox", "quarantine", "not a jpeg", placed="q" * 243 + ".jpg")

# --- Edit scripts. ---
def script(name, data, expect="failed", why=""):
    path = os.path.join(edits.encode(), name) if isinstance(name, bytes) else os.path.join(edits, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    note(name, "edits", expect, why)

script("empty.toml", b"")
script("doubling.toml", 'target = "All.pdf"\n' + '[[edit]]\nop = "duplicate"\npages = "all"\n' * 20)
script("no-area.toml", 'target = "All.pdf"\n[[edit]]\nop = "crop"\npages = "1"\nbox = [0, 0, 1e-300, 1e-300]\n', why="no area")
script("malformed.toml", 'target = "All.pdf"\n[[edit\n')
script("malformed.json", '{"target": "All.pdf", "edit": [')
script("huge.toml", 'target = "All.pdf"\n' + "# filler\n" * 300000, why="max_script_size")
script("deep.toml", 'target = "All.pdf"\nx = ' + "[" * 5000 + "]" * 5000 + "\n")
script("deep.json", '{"target": "All.pdf", "x": ' + "[" * 5000 + "]" * 5000 + "}")
script("climbs-out.toml", 'target = "../../etc/passwd"\n[[edit]]\nop = "rotate"\npages = "1"\ndegrees = 90\n')
script("absolute.toml", 'target = "/etc/passwd"\n[[edit]]\nop = "rotate"\npages = "1"\ndegrees = 90\n')
script("missing-target.toml", 'target = "Nothing.pdf"\n[[edit]]\nop = "rotate"\npages = "1"\ndegrees = 90\n')
script("unknown-op.toml", 'target = "All.pdf"\n[[edit]]\nop = "explode"\n')
script("invalid-utf8.toml", b'target = "All\xff.pdf"\n')
script("signature-climbs.toml", 'target = "All.pdf"\n[[edit]]\nop = "signature"\npage = 1\nname = "../secret"\n'
       'box = [10, 10, 50, 30]\n')
os.symlink(secret, os.path.join(edits, "link.toml"))
note("link.toml", "edits", "failed", "", link=True)
os.link(secret, os.path.join(edits, "hardlink.toml"))
note("hardlink.toml", "edits", "failed", "hard link")

json.dump(made, open(os.path.join(folder, "expected.json"), "w"), indent=1)
print(len(made))
