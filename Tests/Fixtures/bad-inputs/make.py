#!/usr/bin/env python3
"""Writes the bad-input corpus into FOLDER/inbox and FOLDER/edits, with good files beside them,
and prints one JSON line per file: {"name", "folder", "expect", "why"}. `expect` is "quarantine"
(inbox; the file and NAME.why.txt end in the quarantine), "ingest" (a good file, a good file with
a strange name, or a damaged one its decoder takes all the same), "failed" (edits; the script ends
in failed/ with NAME.error.txt) or "done" (a good script). `why` is a phrase the reason must hold (lower case), or "".

  make.py make STAGE OUTSIDE   writes the corpus into STAGE (OUTSIDE: a folder outside every
                               configured one, for links), STAGE/expected.json the expectations
  make.py deliver STAGE ROOT   renames everything into ROOT/inbox and ROOT/edits at once
  make.py check STAGE ROOT     prints one JSON object: {"pending": [...], "problems": [...]}

Names are handled as bytes throughout (some are not UTF-8). Everything is made here, from nothing
downloaded; the HEIC, AVIF and WebP files by the formats' own encoders, heif-enc (libheif-examples),
cwebp and img2webp (webp): without one, make stops and says which.
"""
import io, json, os, random, shutil, socket, struct, subprocess, sys, zlib
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
# Pillow's WebP is a good still picture since WebP is read.
put("webp.webp", image("WEBP"), "ingest")
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

# --- HEIC, AVIF and WebP, from the formats' own encoders (heif-enc, cwebp, img2webp). ---
def encoder(name, package, *arguments):
    # Without an encoder these cases would silently go missing from the corpus: stop, and say why.
    if shutil.which(name) is None:
        sys.exit("make.py: %s is not installed (apt-get install %s); the HEIC, AVIF and WebP cases are made with it"
                 % (name, package))
    run = subprocess.run([name, *arguments], capture_output=True)
    if run.returncode != 0:
        sys.exit("make.py: %s failed with status %d:\n%s" % (" ".join([name, *arguments]), run.returncode,
                                                           (run.stdout + run.stderr).decode("utf-8", "replace")))


def source(width, height=240, background="white"):
    # TestImages' pattern, as a PNG the encoders read.
    path = os.path.join(folder, "source-%dx%d-%s.png" % (width, height, background))
    picture = Image.new("RGB", (width, height), background)
    for i in range(0, width, 20):
        picture.paste((200, 30, 30), (i, (i * 3) % height, i + 10, min(height, (i * 3) % height + 31)))
    picture.save(path)
    return path


def photo(kind, width, height=240):
    """A picture `width` x `height` as a "heic", "avif" or "webp" file, as its own encoder writes it."""
    out = os.path.join(folder, "photo-%d.%s" % (width, kind))
    if kind == "webp":
        encoder("cwebp", "webp", "-quiet", source(width, height), "-o", out)
    else:
        encoder("heif-enc", "libheif-examples", *(["-A"] if kind == "avif" else []), "-o", out, source(width, height))
    return open(out, "rb").read()


def boxes(data):
    # The top-level ISO BMFF boxes: (offset, size, type).
    offset = 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack_from(">I4s", data, offset)
        yield offset, size, kind
        if size < 8:  # 0: to the end of the file; 1: a 64-bit size, which the encoders' small files do not need
            break
        offset += size


def garbled_mdat(data, keep):
    # The mdat's payload, but its first `keep` bytes, overwritten with the same number of noise bytes
    # (always the same noise, so the decoder's answer is too): every box stays whole.
    out = bytearray(data)
    offset, size, _ = next(found for found in boxes(data) if found[2] == b"mdat")
    start = offset + 8 + keep
    out[start:offset + size] = random.Random(7).randbytes(offset + size - start)
    return bytes(out)


def box(kind, payload, version=None, flags=0):
    if version is not None:
        payload = struct.pack(">I", version << 24 | flags) + payload
    return struct.pack(">I", 8 + len(payload)) + kind + payload


# Good ones: all go in, whatever the name says.
put("good-7.webp", photo("webp", 328), "ingest")
put("good-8.avif", photo("avif", 336), "ingest")
put("photo.jpg", photo("heic", 344), "ingest")  # a phone's HEIC, named as if a JPEG
# Cut in half (an upload that stopped): waited for until incomplete_timeout, like truncated.jpg.
heic, avif, webp = photo("heic", 320), photo("avif", 320), photo("webp", 320)
put("truncated.heic", heic[:len(heic) // 2])
put("truncated.avif", avif[:len(avif) // 2])
put("truncated.webp", webp[:len(webp) // 2])
# Every byte of the HEVC data noise, its NAL unit's length too: libheif's libde265 plugin finds that
# length running past the data and refuses it before the decoder sees a byte ("cannot decode HEIC:
# Decoder plugin generated an error: Unexpected end of file"; every box is whole, so not "truncated").
put("garbage-mdat.heic", garbled_mdat(heic, 0), why="decoder plugin")
# Noise after the NAL unit's length and its first 32 bytes (the slice header among them): libde265
# conceals the errors and returns a picture of noise, as an HEVC decoder may; nothing tells it from
# a photo, so it goes in.
put("garbage-slice-data.heic", garbled_mdat(heic, 4 + 32), "ingest")
# Two frames: a page is one still picture.
encoder("img2webp", "webp", "-o", os.path.join(inbox, "animated.webp"), source(64, 48), source(64, 48, "black"))
note("animated.webp", "inbox", "quarantine", "animation")
# A header of 16383 x 16383 (268 MP; WebP's largest) over the 200 MP limit, refused before decoding.
# For a flat colour cwebp's lossless bitstream does not depend on the size (each Huffman code has
# one symbol, so the pixels take no bits): a 16 x 16 one with the size field set to 16383 x 16383
# is byte for byte what `cwebp -lossless -z 0` writes for the whole picture (libwebp 1.2.4), which
# takes it 8 s and 1.8 GB.
flat = os.path.join(folder, "flat.png")
Image.new("RGB", (16, 16), (200, 30, 30)).save(flat)
encoder("cwebp", "webp", "-quiet", "-lossless", "-z", "0", flat, "-o", flat + ".webp")
big = bytearray(open(flat + ".webp", "rb").read())
if big[12:16] != b"VP8L" or big[20] != 0x2F:
    sys.exit("make.py: cwebp -lossless wrote no plain VP8L file: %r" % bytes(big[:24]))
# After the signature byte, 32 bits, least significant first: width - 1 and height - 1 (14 bits
# each), then alpha and version.
size = struct.unpack_from("<I", big, 21)[0]
struct.pack_into("<I", big, 21, size & ~0xFFFFFFF | 16382 << 14 | 16382)
put("bomb.webp", bytes(big), why="pixels, over the limit")
# An MP4 video's ftyp box (brand isom), then a movie header, a video track and its data, named as
# a phone's photo: no HEIF brand, so not a picture.
matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
mp4 = (box(b"ftyp", b"isom" + struct.pack(">I", 0x200) + b"isomiso2avc1mp41")
       + box(b"moov", box(b"mvhd", struct.pack(">IIIIIH10x", 0, 0, 1000, 2000, 0x10000, 0x100) + matrix
                          + b"\0" * 24 + struct.pack(">I", 2), version=0)
             + box(b"trak", box(b"tkhd", struct.pack(">IIIII8xHHH2x", 0, 0, 1, 0, 2000, 0, 0, 0) + matrix
                                + struct.pack(">II", 320 << 16, 240 << 16), version=0, flags=3)
                   + box(b"mdia", box(b"mdhd", struct.pack(">IIIIHH", 0, 0, 90000, 180000, 0x55C4, 0), version=0)
                         + box(b"hdlr", struct.pack(">I4s12x", 0, b"vide") + b"VideoHandler\0", version=0))))
       + box(b"mdat", struct.pack(">I", 60) + b"\x65\x88\x84" + bytes(range(57))))
put("clip.heic", mp4, why="not a jpeg")

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
# Past the 64 MiB an edit script may have (limits.max_script_size's default and most).
script("huge.toml", 'target = "All.pdf"\n' + "# filler\n" * 7_500_000, why="max_script_size")
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
