"""Damaged targets made from real PDFs: each kind of damage a target meets in the wild (a page tree
pointing nowhere, no /Root, a page-tree loop, every xref entry wrong, a file cut inside an object
stream, a file of no pages, a megabyte of trailing garbage), made from a document Ghostscript
writes here, in qpdf's two xref forms. Every edit but the cut keeps the file's length and offsets,
so each file has exactly the one fault it is named for.
"""
import os
import re
import subprocess


def source_documents(folder):
    """A three-page text document from Ghostscript, as a classic xref table and with object streams
    (qpdf). Returns (classic, objstm) paths."""
    os.makedirs(folder, exist_ok=True)
    ps = os.path.join(folder, "letter.ps")
    with open(ps, "w") as f:
        f.write("%!PS\n/Helvetica findfont 24 scalefont setfont\n")
        for number, line in enumerate(["A letter worth keeping", "Its second page", "And its third"]):
            f.write(f"72 700 moveto ({line}) show\n72 660 moveto (page {number + 1}) show showpage\n")
    made = os.path.join(folder, "letter-gs.pdf")
    # The same bytes every run (dates and IDs fixed), so every run meets the same damage.
    subprocess.run(["ps2pdf", ps, made], check=True, env={**os.environ, "SOURCE_DATE_EPOCH": "1764806400"})
    classic = os.path.join(folder, "letter-classic.pdf")
    objstm = os.path.join(folder, "letter-objstm.pdf")
    subprocess.run(["qpdf", "--deterministic-id", "--object-streams=disable", made, classic], check=True)
    subprocess.run(["qpdf", "--deterministic-id", "--object-streams=generate", "--compress-streams=y", made, objstm], check=True)
    return classic, objstm


def _same_length(data, pattern, replace):
    match = re.search(pattern, data)
    if not match:
        raise ValueError(f"no {pattern!r} in the source")
    new = replace(match)
    assert len(new) == len(match.group(0)), (new, match.group(0))
    return data[:match.start()] + new + data[match.end():]


def pages_nowhere(data):
    """The catalog's /Pages names object 0, which is never in use: the page tree points nowhere."""
    return _same_length(data, rb"/Pages (\d+) 0 R", lambda m: b"/Pages " + b"0" * len(m.group(1)) + b" 0 R")


def no_root(data):
    """The trailer has no /Root."""
    return _same_length(data, rb"/Root \d+ 0 R", lambda m: b" " * len(m.group(0)))


def pages_loop(data):
    """The page tree's first kid is the page tree itself."""
    pages = re.search(rb"(\d+) 0 obj\s*<<[^>]*/Type /Pages", data)
    if not pages:
        raise ValueError("no /Pages object")
    number = pages.group(1)
    def loop(m):
        first = m.group(1)
        new = number.ljust(len(first)) if len(number) <= len(first) else None
        if new is None:
            raise ValueError("page tree object number longer than its first kid's")
        return m.group(0).replace(first + b" 0 R", new + b" 0 R", 1)
    return _same_length(data, rb"/Kids \[ ?(\d+) 0 R", loop)


def xref_wrong(data):
    """Every in-use xref entry points seven bytes past its object."""
    def shift(m):
        return b"%010d" % (int(m.group(1)) + 7) + m.group(2)
    return re.sub(rb"(\d{10})( \d{5} n)", shift, data)


def cut_in_objstm(data):
    """The file ends halfway through its first object stream's data."""
    stream = re.search(rb"/Type\s*/ObjStm.*?stream\r?\n", data, re.S)
    if not stream:
        raise ValueError("no object stream")
    length = int(re.search(rb"/Length (\d+)", data[data.rfind(b"obj", 0, stream.start()):stream.end()]).group(1))
    return data[:stream.end() + length // 2]


def zero_pages(data):
    """A whole, valid file whose page tree has no kids."""
    def empty(m):
        return (b"/Count 0".ljust(len(m.group(1))) + m.group(2) + b"[" + b" " * (len(m.group(3)) - 2) + b"]")
    return _same_length(data, rb"(/Count \d+)(\s*/Kids\s*)(\[[^\]]*\])", empty)


def trailing_garbage(data):
    """A megabyte of garbage after %%EOF, as a broken upload or a concatenation leaves."""
    garbage = bytes((i * 7919 + 13) % 251 for i in range(1 << 20))
    return data + garbage.replace(b"%%EOF", b"%%EOX").replace(b"startxref", b"startxreg")


# name: (damage, which source: "classic" or "objstm")
KINDS = {
    "pages-nowhere": (pages_nowhere, "classic"),
    "no-root": (no_root, "classic"),
    "pages-loop": (pages_loop, "classic"),
    "xref-wrong": (xref_wrong, "classic"),
    "cut-in-objstm": (cut_in_objstm, "objstm"),
    "zero-pages": (zero_pages, "classic"),
    "trailing-garbage": (trailing_garbage, "classic"),
}


def make_all(folder):
    """Every kind, as folder/NAME.pdf; returns {name: path}."""
    classic, objstm = source_documents(os.path.join(folder, "sources"))
    sources = {}
    for name, path in [("classic", classic), ("objstm", objstm)]:
        with open(path, "rb") as f:
            sources[name] = f.read()
    made = {}
    for name, (damage, source) in KINDS.items():
        path = os.path.join(folder, name + ".pdf")
        with open(path, "wb") as f:
            f.write(damage(sources[source]))
        made[name] = path
    return made
