#!/usr/bin/env python3
"""The produced corpus: real PDFs made at test time by the producers installed here, so a clone
with nothing beside it tests every reader and writer on files from more than one producer.

  make.py FOLDER   writes every file below into FOLDER, named PRODUCER-WHAT.pdf

What each file is for (the tests read these properties; keep them when changing a file):
  ghostscript-4-pages.pdf     Ghostscript's pdfwrite from PostScript: 4 text pages sharing 2 fonts,
                              classic xref table, every page's attributes on the page itself
  ghostscript-outline.pdf     3 pages, an outline of 4 entries, links to other pages by direct
                              reference and one to a URI (pdfmark), document info
  cairo-4-pages.pdf           the 4 pages again, as cairo writes them (pdftocairo -pdf)
  qpdf-object-streams.pdf     the outline file with a compressed xref stream and object streams
  qpdf-linearized.pdf         the 4 pages, linearized (and so a hint stream, a first-page xref)
  qpdf-password.pdf           the 4 pages, AES-256, user password "user": it opens only with it
  qpdf-owner-password.pdf     the 4 pages, AES-256, only an owner password: it opens without one
  mutool-create-images.pdf    1 page from a content stream: text, a JPEG and a grey PNG (mutool create)
  mutool-convert-html.pdf     an HTML page laid out by MuPDF (mutool convert), with a picture
  img2pdf-images.pdf          3 pages, one picture each, kept as they were: JPEG (DCT), PNG
                              (Flate) and a Group 4 TIFF (CCITTFax)
  reportlab-form.pdf          2 pages, an AcroForm (text, check box, choice) and an inline image
  pypdf-form.pdf              a Ghostscript page with text and check-box fields added by pypdf
  pypdf-inherited.pdf         the 4 pages with /MediaBox and /Resources moved to the page-tree root

Everything is drawn here; nothing is downloaded. A producer that is missing or fails stops the
whole run, and the error names its command.
"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
out = os.path.abspath(sys.argv[1])
os.makedirs(out, exist_ok=True)
work = os.path.join(out, ".sources")
os.makedirs(work, exist_ok=True)


def path(name, folder=out):
    return os.path.join(folder, name)


def run(*command, cwd=None):
    try:
        subprocess.run(command, check=True, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True)
    except FileNotFoundError:
        sys.exit(f"make.py: {command[0]} is not installed (scripts/install-deps.sh installs it)")
    except subprocess.CalledProcessError as failure:
        sys.exit(f"make.py: {' '.join(command)} exited {failure.returncode}:\n{failure.stderr.decode(errors='replace')}")


def ghostscript(source, target):
    run("gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfwrite", "-o", path(target), path(source, HERE))


def pictures():
    """A colour JPEG, a grey PNG and a bilevel Group 4 TIFF, drawn by Pillow."""
    from PIL import Image, ImageDraw
    photo = Image.new("RGB", (240, 160), "white")
    draw = ImageDraw.Draw(photo)
    for i in range(0, 240, 12):
        draw.rectangle([i, 0, i + 5, 160], fill=(i, 120, 255 - i))
    draw.ellipse([80, 40, 160, 120], fill=(250, 200, 0))
    photo.save(path("photo.jpg", work), quality=90)
    logo = Image.new("L", (96, 96), 255)
    ImageDraw.Draw(logo).ellipse([8, 8, 88, 88], fill=40)
    logo.save(path("logo.png", work))
    page = Image.new("1", (850, 1100), 1)
    draw = ImageDraw.Draw(page)
    for y in range(100, 1000, 40):
        draw.rectangle([100, y, 100 + (y * 7) % 600, y + 12], fill=0)
    page.save(path("scan.tif", work), compression="group4", dpi=(100, 100))


def mutool_create():
    spec = path("page.txt", work)
    with open(spec, "w") as f:
        f.write(f"""%%MediaBox 0 0 300 400
%%Font Helv Helvetica
%%Image Photo {path("photo.jpg", work)}
%%Image Logo {path("logo.png", work)}
BT /Helv 14 Tf 20 360 Td (Made by mutool create) Tj ET
q 120 0 0 80 20 240 cm /Photo Do Q
q 64 0 0 64 170 248 cm /Logo Do Q
0 0.5 0 rg 20 200 260 8 re f
""")
    run("mutool", "create", "-o", path("mutool-create-images.pdf"), spec)


def mutool_convert():
    html = path("page.html", work)
    with open(html, "w") as f:
        f.write("""<html><body><h1>Made by mutool convert</h1>
<p>An HTML page laid out by MuPDF, with <b>bold</b> and <i>italic</i> words.</p>
<p><img src="logo.png" width="96" height="96"/></p>
<ol><li>one</li><li>two</li><li>three</li></ol></body></html>
""")
    run("mutool", "convert", "-o", path("mutool-convert-html.pdf"), html, cwd=work)


def reportlab_form():
    from reportlab.pdfgen import canvas
    c = canvas.Canvas(path("reportlab-form.pdf"), pagesize=(400, 500))
    c.setFont("Helvetica", 14)
    c.drawString(30, 460, "A form made by reportlab")
    c.drawString(30, 420, "Name:")
    c.acroForm.textfield(name="reportlab_name", tooltip="Name", x=90, y=410, width=200, height=24, value="Ada")
    c.drawString(30, 380, "Agree:")
    c.acroForm.checkbox(name="reportlab_agree", x=90, y=372, size=20, checked=True)
    c.acroForm.choice(name="reportlab_colour", x=90, y=330, width=120, height=24,
                      options=["red", "green", "blue"], value="green")
    c.drawInlineImage(path("photo.jpg", work), 30, 200, width=120, height=80)
    c.showPage()
    c.drawString(30, 460, "Page two of the reportlab form")
    c.showPage()
    c.save()


def pypdf_form():
    """Two fields on a Ghostscript page, with their appearances, in an AcroForm pypdf writes."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (ArrayObject, BooleanObject, DictionaryObject, FloatObject, NameObject,
                               NumberObject, TextStringObject)
    ghostscript("form-page.ps", ".sources/form-page.pdf")
    writer = PdfWriter(clone_from=PdfReader(path("form-page.pdf", work)))
    page = writer.pages[0]

    def field(kind, name, rect, **extra):
        entries = {"/Type": NameObject("/Annot"), "/Subtype": NameObject("/Widget"), "/FT": NameObject(kind),
                   "/T": TextStringObject(name), "/Rect": ArrayObject([FloatObject(v) for v in rect]),
                   "/F": NumberObject(4), "/P": page.indirect_reference}
        entries.update(extra)
        return writer._add_object(DictionaryObject({NameObject(k): v for k, v in entries.items()}))

    name = field("/Tx", "pypdf_city", [150, 600, 400, 624], **{"/DA": TextStringObject("/Helv 12 Tf 0 g")})
    tick = field("/Btn", "pypdf_member", [150, 560, 170, 580], **{"/V": NameObject("/Off"), "/AS": NameObject("/Off")})
    page[NameObject("/Annots")] = ArrayObject([name, tick])
    helv = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    writer._root_object[NameObject("/AcroForm")] = DictionaryObject({
        NameObject("/Fields"): ArrayObject([name, tick]),
        NameObject("/DA"): TextStringObject("/Helv 12 Tf 0 g"),
        NameObject("/DR"): DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/Helv"): helv})}),
        NameObject("/NeedAppearances"): BooleanObject(False),
    })
    writer.update_page_form_field_values(page, {"pypdf_city": "Lyon"}, auto_regenerate=False)
    writer.write(path("pypdf-form.pdf"))


def pypdf_inherited():
    """What some producers write: the attributes every page shares, once on the page-tree root."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject
    writer = PdfWriter(clone_from=PdfReader(path("ghostscript-4-pages.pdf")))
    pages = [page.get_object() for page in writer.pages]
    root = writer._root_object["/Pages"].get_object()
    def resolved(value):
        value = value.get_object()
        if isinstance(value, dict):
            return {key: resolved(item) if key != "/Font" else item.get_object() for key, item in value.items()}
        return value
    for key in ("/MediaBox", "/Resources"):
        shared = pages[0][key]
        if any(resolved(page[key]) != resolved(shared) for page in pages):
            sys.exit(f"make.py: the 4 pages do not share one {key}; pypdf-inherited.pdf needs them to")
        root[NameObject(key)] = shared
        for page in pages:
            del page[NameObject(key)]
    writer.write(path("pypdf-inherited.pdf"))


pictures()
ghostscript("4-pages.ps", "ghostscript-4-pages.pdf")
ghostscript("outline.ps", "ghostscript-outline.pdf")
run("pdftocairo", "-pdf", path("ghostscript-4-pages.pdf"), path("cairo-4-pages.pdf"))
run("qpdf", "--object-streams=generate", path("ghostscript-outline.pdf"), path("qpdf-object-streams.pdf"))
run("qpdf", "--linearize", path("ghostscript-4-pages.pdf"), path("qpdf-linearized.pdf"))
run("qpdf", "--encrypt", "user", "owner", "256", "--", path("ghostscript-4-pages.pdf"), path("qpdf-password.pdf"))
run("qpdf", "--encrypt", "", "owner", "256", "--", path("ghostscript-4-pages.pdf"), path("qpdf-owner-password.pdf"))
mutool_create()
mutool_convert()
run("img2pdf", path("photo.jpg", work), path("logo.png", work), path("scan.tif", work), "-o", path("img2pdf-images.pdf"))
reportlab_form()
pypdf_form()
pypdf_inherited()
