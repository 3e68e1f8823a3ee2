#!/usr/bin/env python3
"""Edit scripts: one 10-op script applied to a 5,000-page target against the same script on a 10-page
one, in one run, as ratios (absolute times on these machines are noise).
Usage: bench/edit.py PATH/TO/pdftrapper [--runs N]

The targets are made the way a library's files are: img2pdf pages from small JPEGs, then one page
appended by `pdftrapper ingest`, so the target already ends in a PDFTrapper revision. Each timed run
gets a fresh copy of the target and of the library's `.pdftrapper` state, flushed before the clock
starts. `pdftrapper apply` runs the script as one incremental update; the peer is qpdf doing the same
page-tree work (rotate, delete, move, duplicate, insert-blank) in one full rewrite. qpdf has no
command-line options for crop, metadata or bookmarks, so it is spared those three. Runs alternate
between the cases, and the table shows medians. Every output is checked: page counts (pdfinfo),
each page's rotation and MediaBox against qpdf's output, the CropBox of the cropped pages, the
title and the bookmark, and `qpdf --check` on the 10-page one.
"""
import os, re, shutil, statistics, subprocess, sys, tempfile, time, json

import img2pdf
from PIL import Image

MM = 72 / 25.4
CROP_MM = [10, 10, 190, 270]
A4 = (210 * MM, 297 * MM)

# The script: each op touches a few pages, at the front and at the end ("last") of the document.
SCRIPT = [
    {"op": "rotate", "pages": "1-3,last", "degrees": 90},
    {"op": "delete", "pages": "2,4"},
    {"op": "move", "pages": "last", "to": 1},
    {"op": "duplicate", "pages": 3},
    {"op": "insert-blank", "after": 5, "size": "A4"},
    # Pages 5 and 7 are not turned at this point: a script measures a page as it is shown.
    {"op": "crop", "pages": "5,7", "box": CROP_MM},
    {"op": "metadata", "title": "Edit benchmark", "author": "bench/edit.py"},
    {"op": "bookmark", "title": "Start", "page": 1},
    {"op": "rotate", "pages": "2,last", "degrees": 180},
    {"op": "move", "pages": "1-2", "to": "end"},
]

# The markup script: ten annotations on the first pages and the last, with a saved signature.
def markup_script(count):
    return [
        {"op": "highlight", "page": 1, "rects": [[20, 200, 150, 210]]},
        {"op": "underline", "page": 1, "rects": [[20, 180, 150, 190]]},
        {"op": "ink", "page": 2, "preset": "pen", "strokes": [[[20, 20], [60, 80], [100, 20]]]},
        {"op": "rect", "page": 2, "box": [10, 10, 120, 90], "fill": "yellow", "opacity": 0.4},
        {"op": "oval", "page": 3, "box": [10, 10, 120, 90], "color": "red"},
        {"op": "arrow", "page": 3, "from": [10, 100], "to": [150, 200], "color": "blue"},
        {"op": "textbox", "page": count, "box": [10, 200, 180, 260], "text": "Checked by the benchmark"},
        {"op": "note", "page": count, "at": [150, 270], "contents": "A note"},
        {"op": "signature", "page": count, "name": "bench", "box": [10, 10, 150, 60]},
        {"op": "erase", "pages": "1", "kind": "underline"},
    ]

def toml_value(value):
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)

def script_toml(script=SCRIPT, units="mm"):
    lines = ['target = "target.pdf"', f'units = "{units}"']
    for edit in script:
        lines += ["", "[[edit]]"] + [f"{key} = {toml_value(value)}" for key, value in edit.items()]
    return "\n".join(lines) + "\n"

def resolve(selection, count):
    """0-based indexes of a page selection of the forms SCRIPT uses ("1-3,last", 3)."""
    indexes = set()
    for part in str(selection).split(","):
        ends = [count if e == "last" else int(e) for e in part.split("-")]
        indexes.update(range(ends[0] - 1, ends[-1]))
    return sorted(indexes)

def expected_pages(count):
    """What SCRIPT should make of `count` pages, worked out independently of PDFTrapper: each page as
    a dict of its source page (0 for the blank), rotation, whether it is cropped; and the 1-based
    page the bookmark opens."""
    pages = [{"source": n, "rot": 0, "crop": False, "mark": False} for n in range(1, count + 1)]
    for edit in SCRIPT:
        op = edit["op"]
        if op == "rotate":
            for i in resolve(edit["pages"], len(pages)):
                pages[i]["rot"] = (pages[i]["rot"] + edit["degrees"]) % 360
        elif op == "delete":
            drop = set(resolve(edit["pages"], len(pages)))
            pages = [p for i, p in enumerate(pages) if i not in drop]
        elif op == "move":
            chosen = resolve(edit["pages"], len(pages))
            moved = [pages[i] for i in chosen]
            rest = [p for i, p in enumerate(pages) if i not in chosen]
            at = len(rest) if edit["to"] == "end" else sum(1 for i in range(edit["to"] - 1) if i not in chosen)
            pages = rest[:at] + moved + rest[at:]
        elif op == "duplicate":
            for i in reversed(resolve(edit["pages"], len(pages))):
                pages.insert(i + 1, dict(pages[i], mark=False))
        elif op == "insert-blank":
            pages.insert(edit["after"], {"source": 0, "rot": 0, "crop": False, "mark": False})
        elif op == "crop":
            for i in resolve(edit["pages"], len(pages)):
                pages[i]["crop"] = True
        elif op == "bookmark":
            pages[edit["page"] - 1]["mark"] = True
    mark = next(i + 1 for i, p in enumerate(pages) if p["mark"])
    return pages, mark

def qpdf_command(base, blank, out, pages):
    """One qpdf run that makes the same page sequence and rotations as the script (no crop, metadata
    or bookmark: qpdf's command line has none)."""
    spec = []
    for page in pages:
        if page["source"] == 0:
            spec.append([blank, page["source"], page["source"]])
        elif spec and spec[-1][0] == base and spec[-1][2] + 1 == page["source"]:
            spec[-1][2] = page["source"]
        else:
            spec.append([base, page["source"], page["source"]])
    args = []
    for path, first, last in spec:
        args += [path, "1" if path == blank else (f"{first}-{last}" if first != last else str(first))]
    rotations = {}
    for n, page in enumerate(pages, 1):
        if page["rot"]:
            rotations.setdefault(page["rot"], []).append(str(n))
    rotate = [f"--rotate=+{deg}:{','.join(numbers)}" for deg, numbers in sorted(rotations.items())]
    return ["qpdf", base, "--pages", *args, "--", *rotate, out]

def run_timed(command):
    """Wall time and peak RSS (KiB) of one run of `command`."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command[:8])}...\n{result.stdout}{result.stderr}")
    return elapsed, int(result.stderr.strip().splitlines()[-1])

def page_facts(path):
    """pdfinfo's page count, title, and each page's rotation, MediaBox and CropBox."""
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True).stdout
    count = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    title = re.search(r"^Title:\s+(.*)$", info, re.M)
    boxes = subprocess.run(["pdfinfo", "-box", "-f", "1", "-l", str(count), path],
                           capture_output=True, text=True, check=True).stdout
    rot = {int(n): int(r) for n, r in re.findall(r"^Page\s+(\d+) rot:\s+(\d+)", boxes, re.M)}
    def box(name):
        return {int(n): [float(v) for v in b.split()]
                for n, b in re.findall(rf"^Page\s+(\d+) {name}:\s+(.*)$", boxes, re.M)}
    return count, title and title.group(1).strip(), rot, box("MediaBox"), box("CropBox")

def check(size, ours, peer, expected, mark):
    """Fails the benchmark unless both outputs are what the script asks for."""
    problems = []
    count, title, rot, media, crop = page_facts(ours)
    peer_count, _, peer_rot, peer_media, _ = page_facts(peer)
    if count != len(expected) or peer_count != len(expected):
        problems.append(f"pages: pdftrapper {count}, qpdf {peer_count}, expected {len(expected)}")
    crop_box = [v * MM for v in CROP_MM]
    def near(box, want):
        return box is not None and all(abs(a - b) < 0.1 for a, b in zip(box, want))
    for n, page in enumerate(expected, 1):
        if rot.get(n) != page["rot"] or peer_rot.get(n) != page["rot"]:
            problems.append(f"page {n}: rotation {rot.get(n)} (qpdf {peer_rot.get(n)}), expected {page['rot']}")
        if media.get(n) != peer_media.get(n):
            problems.append(f"page {n}: MediaBox {media.get(n)}, qpdf's {peer_media.get(n)}")
        if page["source"] == 0 and not near(media.get(n), [0, 0, *A4]):
            problems.append(f"page {n}: the blank page's MediaBox is {media.get(n)}")
        if near(crop.get(n), crop_box) != page["crop"]:
            problems.append(f"page {n}: CropBox {crop.get(n)}, cropped: {page['crop']}")
    if title != "Edit benchmark":
        problems.append(f"title {title!r}")
    outlines = json.loads(subprocess.run(["qpdf", "--json", "--json-key=outlines", ours],
                                         capture_output=True, text=True, check=True).stdout)["outlines"]
    if [(o["title"], o["destpageposfrom1"]) for o in outlines] != [("Start", mark)]:
        problems.append(f"outlines {outlines}, expected 'Start' on page {mark}")
    if size == 10:
        checked = subprocess.run(["qpdf", "--check", ours], capture_output=True, text=True)
        if checked.returncode != 0:
            problems.append(f"qpdf --check exit {checked.returncode}: {checked.stdout}{checked.stderr}")
    if problems:
        sys.exit(f"{size}-page output is wrong:\n  " + "\n  ".join(problems[:20]))
    return count

def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 7
    work = tempfile.mkdtemp(prefix="pdftrapper-bench-edit-")
    try:
        small = os.path.join(work, "small.jpg")
        Image.effect_noise((200, 280), 40).convert("RGB").save(small, quality=80, dpi=(25, 25))
        last = os.path.join(work, "last.jpg")
        Image.effect_noise((200, 280), 41).convert("RGB").save(last, quality=80, dpi=(25, 25))
        # The peer's source for insert-blank: one empty A4 page, given a proper xref table by qpdf.
        blank, sketch = os.path.join(work, "a4-blank.pdf"), os.path.join(work, "a4-sketch.pdf")
        with open(sketch, "wb") as f:
            f.write(b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
                    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
                    + f"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 {A4[0]:.4f} {A4[1]:.4f}]>>endobj\n".encode()
                    + b"trailer<</Root 1 0 R/Size 4>>\n%%EOF\n")
        subprocess.run(["qpdf", sketch, blank], stderr=subprocess.DEVNULL)
        subprocess.run(["qpdf", "--check", blank], check=True, stdout=subprocess.DEVNULL)

        cases = {}
        for pages in (10, 5000):
            library = os.path.join(work, f"library-{pages}")
            os.makedirs(os.path.join(library, "inbox"))
            config = os.path.join(library, "config.toml")
            with open(config, "w") as f:
                f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "root"\n[inbox]\npath = "inbox"\n')
            target = os.path.join(library, "root", "target.pdf")
            os.makedirs(os.path.dirname(target))
            with open(target, "wb") as f:
                f.write(img2pdf.convert([small] * (pages - 1)))
            subprocess.run([binary, "ingest", "--config", config, "--to", target, last],
                           check=True, stdout=subprocess.DEVNULL)
            base = os.path.join(work, f"base-{pages}.pdf")
            shutil.copyfile(target, base)
            state = os.path.join(library, "root", ".pdftrapper")
            snapshot = os.path.join(work, f"state-{pages}")
            shutil.copytree(state, snapshot)
            script = os.path.join(library, "edit.toml")
            with open(script, "w") as f:
                f.write(script_toml())
            markup = os.path.join(library, "markup.toml")
            with open(markup, "w") as f:
                f.write(script_toml(markup_script(pages), units="pt"))
            os.makedirs(os.path.join(library, "signatures"))
            signature = Image.new("RGBA", (300, 100), (0, 0, 0, 0))
            signature.paste((20, 30, 140, 255), (10, 45, 290, 55))
            signature.save(os.path.join(library, "signatures", "bench.png"))
            expected, mark = expected_pages(pages)
            out = os.path.join(work, f"qpdf-{pages}.pdf")
            def fresh(base=base, target=target, state=state, snapshot=snapshot):
                # The target and its state as they were after the ingest, flushed, so that no run
                # pays for writing back the previous copy.
                shutil.copyfile(base, target)
                shutil.rmtree(state)
                shutil.copytree(snapshot, state)
                os.sync()
            cases[pages] = dict(
                size=os.path.getsize(base), target=target, out=out, expected=expected, mark=mark,
                ours=([binary, "apply", "--config", config, script], fresh),
                markup=([binary, "apply", "--config", config, markup], fresh),
                qpdf=(qpdf_command(base, blank, out, expected), os.sync))

        # Alternate: every run of every case once per round, the order reversed every other round.
        order = [(pages, tool) for pages in (10, 5000) for tool in ("ours", "qpdf", "markup")]
        times = {key: [] for key in order}
        peaks = {key: 0 for key in order}
        for round_ in range(runs):
            for key in order if round_ % 2 == 0 else reversed(order):
                command, prepare = cases[key[0]][key[1]]
                prepare()
                elapsed, peak = run_timed(command)
                times[key].append(elapsed)
                peaks[key] = max(peaks[key], peak)
        for pages, case in cases.items():
            # The markup script once more, checked: nine annotations of eight kinds stay (one was erased).
            command, prepare = case["markup"]
            prepare()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            listed = json.loads(subprocess.run([binary, "annotations", "--json", case["target"]],
                                               capture_output=True, text=True, check=True).stdout)
            kinds = sorted(a["kind"] for a in listed)
            if kinds != sorted(["Highlight", "Ink", "Square", "Circle", "Line", "FreeText", "Text", "Stamp"]):
                sys.exit(f"{pages}-page markup output is wrong: {kinds}")
            if pages == 10:
                subprocess.run(["qpdf", "--check", case["target"]], check=True, stdout=subprocess.DEVNULL)
            command, prepare = case["ours"]
            prepare()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            case["pages_out"] = check(pages, case["target"], case["out"], case["expected"], case["mark"])

        median = {key: statistics.median(values) for key, values in times.items()}
        print(f"# a 10-op edit script (rotate, delete, move, duplicate, insert-blank, crop, metadata, "
              f"bookmark, rotate, move); median of {runs} alternating runs")
        print(f"{'pages':>6} {'size MB':>8} {'out pages':>10} {'pdftrapper ms':>14} {'qpdf ms':>9} "
              f"{'qpdf/ours':>10} {'RSS ours MB':>12} {'RSS qpdf MB':>12}")
        for pages, case in cases.items():
            ours, qpdf = median[(pages, "ours")], median[(pages, "qpdf")]
            print(f"{pages:>6} {case['size'] / 1e6:>8.1f} {case['pages_out']:>10} {ours * 1e3:>14.1f} "
                  f"{qpdf * 1e3:>9.1f} {qpdf / ours:>10.1f} {peaks[(pages, 'ours')] / 1024:>12.1f} "
                  f"{peaks[(pages, 'qpdf')] / 1024:>12.1f}")
        ratio = median[(5000, "ours")] / median[(10, "ours")]
        print(f"script on 5,000 pages / script on 10 pages (pdftrapper): {ratio:.2f} (goal <= 1.5)")
        print(f"script on 5,000 pages / script on 10 pages (qpdf): "
              f"{median[(5000, 'qpdf')] / median[(10, 'qpdf')]:.2f}")
        markup_ratio = median[(5000, "markup")] / median[(10, "markup")]
        print(f"10-op markup script (highlight, underline, ink, rect, oval, arrow, textbox, note, signature, erase): "
              f"{median[(10, 'markup')] * 1e3:.1f} ms on 10 pages, {median[(5000, 'markup')] * 1e3:.1f} ms on 5,000; "
              f"ratio {markup_ratio:.2f} (goal <= 1.5; no peer adds annotations from the command line)")
        print("outputs checked: page counts, rotations, MediaBoxes (against qpdf's), CropBoxes, title, "
              "bookmark; qpdf --check on the 10-page one")
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
