#!/usr/bin/env python3
"""How well `find_page` finds the sheet in the real photos of ../shared/photos, judged against the
corners marked by hand in Tests/Fixtures/photo-corners.json (issue 42's measure), from outside:
each photo goes through `pdftrapper ingest` with `find_page = true`, and the corners it cut along are
read back from the page's /PieceInfo (KeptPhoto: fractions of the upright photo, clockwise from the
top left), the page's proportions from its /MediaBox.

Usage: Tests/Photos/evaluate.py PATH/TO/pdftrapper [--photos ../shared/photos] [--json OUT]

Per photo: found or left alone (and the note why), the worst corner's distance from the marked one
as a share of the photo's diagonal, whether any marked corner lies outside the page cut (part of the
sheet lost), and the page's proportions against the paper's. Last line:
`sheets: F of N found, C with every corner within 2 %, P with proportions within 3 %, L cut into the sheet`.
"""
import argparse, json, math, os, subprocess, sys, tempfile

import pypdf

HERE = os.path.dirname(os.path.abspath(__file__))
CORNERS = os.path.join(HERE, "..", "Fixtures", "photo-corners.json")


def ingest(binary, photo, folder):
    """The photo through find_page into a PDF of its own; (the PDF's path, the command's stderr)."""
    config = os.path.join(folder, "config.toml")
    with open(config, "w") as f:
        f.write(f'[daemon]\nstate_dir = "{folder}/state"\n[library]\nroot = "{folder}/library"\n'
                f'[inbox]\npath = "{folder}/inbox"\n[[rule]]\nname = "photo"\ntarget = "Out.pdf"\n'
                'find_page = true\ncompress = "keep"\n')
    run = subprocess.run([binary, "ingest", "--config", config, photo], capture_output=True, text=True)
    return os.path.join(folder, "library", "Out.pdf"), run.stdout + run.stderr


def cut(pdf):
    """The corners the page was cut along (fractions, clockwise from the top left) and the page's
    proportions (long side over short), or (None, proportions) when no photo was kept."""
    page = pypdf.PdfReader(pdf).pages[0]
    box = page.mediabox
    width, height = float(box.width), float(box.height)
    proportions = max(width, height) / min(width, height)
    try:
        private = page["/PieceInfo"]["/PDFTrapper"]["/Private"]
        values = [float(v) for v in private["/Corners"]]
    except KeyError:
        return None, proportions
    corners = [(values[i], values[i + 1]) for i in range(0, 8, 2)]
    # The whole photo is kept as its own "cut" when no sheet was found (or none was needed).
    if all(abs(x - wx) < 1e-3 and abs(y - wy) < 1e-3 for (x, y), (wx, wy) in zip(corners, WHOLE)):
        return None, proportions
    return corners, proportions


WHOLE = [(0, 0), (1, 0), (1, 1), (0, 1)]
# How far outside the cut a marked corner may lie before the cut counts as going into the sheet:
# the marks' own accuracy (Tests/Photos/README.md), as a share of the diagonal.
MARK_TOLERANCE = 0.005


def inside(point, quad, slack):
    """`point` is inside the convex quadrilateral `quad`, or outside by no more than `slack` pixels."""
    signs = []
    for i in range(4):
        (x1, y1), (x2, y2) = quad[i], quad[(i + 1) % 4]
        cross = (x2 - x1) * (point[1] - y1) - (y2 - y1) * (point[0] - x1)
        length = math.hypot(x2 - x1, y2 - y1) or 1
        signs.append(cross / length)
    return all(s >= -slack for s in signs) or all(s <= slack for s in signs)


def judge(entry, found, proportions):
    width, height = entry["size"]
    diagonal = math.hypot(width, height)
    result = {"kind": entry["kind"], "found": found is not None, "proportions": round(proportions, 3)}
    if entry.get("proportions"):
        result["proportions_error"] = round(abs(proportions / entry["proportions"] - 1), 4)
    if found is None or "corners" not in entry:
        return result
    quad = [(x * width, y * height) for x, y in found]
    errors = [math.hypot(qx - mx, qy - my) / diagonal for (qx, qy), (mx, my) in zip(quad, entry["corners"])]
    result["worst_corner"] = round(max(errors), 4)
    result["cut_into_sheet"] = entry["kind"] == "sheet" and not all(inside(c, quad, MARK_TOLERANCE * diagonal)
                                                                     for c in entry["corners"])
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--photos", default=os.path.join(HERE, "..", "..", "..", "shared", "photos"))
    parser.add_argument("--json")
    args = parser.parse_args()
    if not os.path.isdir(args.photos):
        print(f"evaluate: skipped, {args.photos} is missing (the real photos are not part of a clone)")
        return 0
    with open(CORNERS) as f:
        marked = json.load(f)
    results = {}
    for name, entry in sorted(marked.items()):
        with tempfile.TemporaryDirectory() as folder:
            pdf, output = ingest(os.path.abspath(args.binary), os.path.join(args.photos, name), folder)
            if not os.path.exists(pdf):
                results[name] = {"kind": entry["kind"], "error": output.strip()[-300:]}
            else:
                found, proportions = cut(pdf)
                results[name] = judge(entry, found, proportions)
                notes = [line for line in output.splitlines() if "find_page" in line]
                if notes:
                    results[name]["note"] = notes[-1][-200:]
        r = results[name]
        print(f"{name}: {r['kind']}, " + (f"error: {r['error']}" if "error" in r else
              ("found" if r["found"] else "left alone")
              + (f", worst corner {100 * r['worst_corner']:.1f} %" if "worst_corner" in r else "")
              + (", CUT INTO THE SHEET" if r.get("cut_into_sheet") else "")
              + f", proportions {r['proportions']}"
              + (f" ({100 * r['proportions_error']:.1f} % off)" if "proportions_error" in r else "")
              + (f": {r['note']}" if not r["found"] and "note" in r else "")))
    sheets = {n: r for n, r in results.items() if r["kind"] == "sheet"}
    found = sum(r.get("found", False) for r in sheets.values())
    corners = sum(r.get("worst_corner", 1) <= 0.02 for r in sheets.values())
    known = [r for r in sheets.values() if "proportions_error" in r]
    proportions = sum(r["proportions_error"] <= 0.03 for r in known if r.get("found"))
    lost = sum(r.get("cut_into_sheet", False) for r in sheets.values())
    scans = {n: r for n, r in results.items() if r["kind"] == "scan"}
    cropped = sum(r.get("found", False) for r in scans.values())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"scans: {cropped} of {len(scans)} cropped (should be 0)")
    print(f"sheets: {found} of {len(sheets)} found, {corners} with every corner within 2 %, {proportions} of "
          f"{len(known)} with known paper within 3 %, {lost} cut into the sheet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
