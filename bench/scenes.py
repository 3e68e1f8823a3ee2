#!/usr/bin/env python3
"""The sheet finder on many drawn phone photos (issue 42): seeded scenes from
Tests/Fixtures/photo-scenes/scene.py (sheets of five papers on wood, cloth and white tables, turned,
tilted, shadowed, with a header bar, a white board beside or below, a facing page at a fold, a crease,
a cloth below, a torn top, soft focus, off-centre; photos without a sheet; flat scans), each judged
against the corners it was drawn with. The real photos (bench/sheets.py) are few; these are many,
and find what a change does to cases the real set lacks.

Usage: bench/scenes.py [--library .build/vision/libPDFTrapperVision.so] [--against OTHER.so]
                       [--seeds 1-4] [--per 40] [--list "CUT INTO,CROPPED"] [--family striped-cards]

With --against, a second build of the library (main's, say) is judged on the same scenes and every
scene the two judge differently is listed: what a change to the finder gains and loses.

Per scene: `right` (every corner within 2 % of the photo's diagonal, none more than 0.5 % outside
the cut), `whole` (found, looser or off, nothing lost), `CUT INTO` (a drawn corner more than 0.5 %
outside the cut: part of the sheet lost), `none` (left whole). A sheet partly off the frame is
`partial` when found (nothing judged: what is in the photo must stay, which the corners cannot
say). A photo without a sheet and a flat scan must be left alone; `CROPPED` when not.
Needs OpenCV's Python binding and numpy, as bench/sheets.py.
"""
import argparse, json, math, os, random, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

try:
    import cv2
    import numpy
except ImportError as missing:
    print(f"scenes: skipped, {missing.name} is missing (apt-get install python3-opencv)")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import sheets  # noqa: E402 (the finder through ctypes, as bench/sheets.py calls it)
import evaluate  # noqa: E402 (its rule for a corner lost outside a cut; sheets.py puts it on the path)

SCENE = os.path.join(REPO, "Tests", "Fixtures", "photo-scenes", "scene.py")
PAPERS = [[210, 297], [216, 279], [80, 230], [148, 210], [85.6, 54]]
EXTRAS = ["", "", "band", "white_right", "white_below", "facing", "crease", "cloth_below", "torn", "nosheet", "flat",
          "blur", "shift", "bow"]


def sheet_on_a_table(rng, n, turn, tilt, fill, shadow):
    """Scene `n`'s sheet: a photo's size, a table, any of PAPERS turned up to `turn` degrees either
    way, tilted up to `tilt`, filling a share of the photo between the two of `fill`, shadowed at the
    odds of `shadow`; drawn from `rng` always in this order, so that a seed keeps its scenes."""
    return {"size": rng.choice([[2000, 1500], [1500, 2000], [1600, 1200]]), "table": rng.choice(["wood", "cloth", "white"]),
            "angle": rng.uniform(-turn, turn), "tilt": rng.uniform(0, tilt), "seed": n, "fill": rng.uniform(*fill),
            "shadow": rng.random() < shadow, "paper": rng.choice(PAPERS)}


def specs(seed, per):
    """`per` scenes of one seed: the same seed always draws the same scenes."""
    rng = random.Random(seed)
    out = []
    for n in range(per):
        spec = sheet_on_a_table(rng, n, 25, 30, (0.45, 0.95), 0.3)
        extra = rng.choice(EXTRAS)
        if extra == "band":
            spec["band"] = sorted([rng.uniform(0, 0.3), rng.uniform(0, 0.3)])
        elif extra == "white_below":
            spec["white_below"] = rng.uniform(0.2, 0.8)
        elif extra == "crease":
            spec["crease"] = rng.uniform(0.3, 0.8)
        elif extra == "torn":
            spec["torn"] = 0.03
        elif extra == "nosheet":
            spec["sheet"] = False
        elif extra == "blur":
            spec.update(blur=2, grain=4, quality=60)
        elif extra == "shift":
            spec["shift"] = [rng.uniform(-400, 400), rng.uniform(-400, 400)]
        elif extra == "bow":
            spec["bow"] = rng.uniform(0.01, 0.04)
        elif extra:
            spec[extra] = True
        out.append((f"{seed}/{n}", extra or "plain", spec))
    return out


def striped_cards(seed, per):
    """`per` scenes of one seed of the striped-card family: an ID-1 card with a dark stripe right
    across it near its top, nearly filling the photo, mostly on the white table (its border then
    steps by about 7 from the table, the stripe by far more), sometimes with the table right of it or
    below it as white as the card. The stripe must not be taken for the card."""
    rng = random.Random(seed)
    out = []
    for n in range(per):
        spec = {"size": [1600, 1200], "table": rng.choice(["white", "white", "wood", "cloth"]), "angle": rng.uniform(-6, 6),
                "tilt": rng.uniform(0, 15), "seed": n, "fill": rng.uniform(0.85, 0.99), "paper": [85.6, 54], "shadow": rng.random() < 0.3}
        top = rng.uniform(0.05, 0.2)
        spec["band"] = [top, top + rng.uniform(0.12, 0.2)]
        if rng.random() < 0.3:
            spec["white_right"] = True
        if rng.random() < 0.3:
            spec["white_below"] = rng.uniform(0.3, 1)
        out.append((f"{seed}/{n}", "stripe", spec))
    return out


def headed_sheets(seed, per):
    """`per` scenes of one seed of the headed-sheet family: a page with a coloured header band along
    its top edge (a textbook's, a form's), nearly filling the photo, its sides bowing a little as a
    page lifted off the table does. The band's inner edge is the strongest straight edge near the
    top; taking it cuts the header off, the worst failure."""
    rng = random.Random(seed)
    out = []
    for n in range(per):
        spec = {"size": rng.choice([[1200, 1600], [1500, 2000]]), "table": rng.choice(["wood", "cloth", "white"]),
                "angle": rng.uniform(-8, 8), "tilt": rng.uniform(0, 15), "seed": n, "fill": rng.uniform(0.8, 0.95),
                "paper": rng.choice([[210, 297], [216, 279]]), "band": [0, rng.uniform(0.04, 0.1)],
                "band_colour": rng.choice([[200, 40, 30], [30, 40, 90], [230, 120, 20]]), "bow": rng.uniform(0.005, 0.03)}
        out.append((f"{seed}/{n}", "header", spec))
    return out


def barred_sheets(seed, per):
    """`per` scenes of one seed of the barred-sheet family: an A4 or Letter page with a dark bar
    printed right across it between half and four fifths of its height, on wood, cloth or the white
    table. On the white table the page's own sides are faint and the bar's edges strong: the page on
    one side of the bar alone must not be taken for it."""
    rng = random.Random(seed)
    out = []
    for n in range(per):
        top = rng.uniform(0.5, 0.8)
        spec = {"size": rng.choice([[1500, 2000], [2000, 1500]]), "table": rng.choice(["white", "wood", "cloth"]),
                "angle": rng.uniform(-10, 10), "tilt": rng.uniform(0, 20), "seed": n, "fill": rng.uniform(0.5, 0.8),
                "paper": rng.choice([[210, 297], [216, 279]]), "band": [top, top + rng.uniform(0.03, 0.08)]}
        out.append((f"{seed}/{n}", "bar", spec))
    return out


def held_sheets(seed, per):
    """`per` scenes of one seed of the held-sheet family (issue 42, point 1: "a sheet with a hand or
    a pen over one edge"): a page, receipt or card on wood, cloth or the white table, with a pen
    lying across one of its sides or a thumb reaching over one from beyond the frame (sometimes
    both), anywhere along the side, the sheet filling from half the photo to nearly all of it. The
    side under the pen or thumb shows no edge there; the sheet must still be found whole."""
    rng = random.Random(seed)
    out = []
    for n in range(per):
        spec = sheet_on_a_table(rng, n, 20, 25, (0.5, 0.92), 0.2)
        held = rng.choice(["pen", "thumb", "both"])
        if held in ("pen", "both"):
            spec["pen"] = [rng.randrange(4), rng.uniform(0.15, 0.85), rng.uniform(-50, 50)]
        if held in ("thumb", "both"):
            spec["thumb"] = [rng.randrange(4), rng.uniform(0.2, 0.8)]
        out.append((f"{seed}/{n}", held, spec))
    return out


FAMILIES = {"mixed": specs, "striped-cards": striped_cards, "headed-sheets": headed_sheets, "barred-sheets": barred_sheets,
            "held-sheets": held_sheets}


def verdict(spec, drawn, size, cut, polygon, middles):
    """`polygon`: what the sheet was cut along (its outline, or `cut`); `middles`: a bowed sheet's
    sides' middles, the tips of its bulges, which must be inside it too."""
    if spec.get("flat") or spec.get("sheet") is False:
        return "CROPPED" if cut else "alone"
    if not cut:
        return "none"
    width, height = size
    if not all(0 <= x <= width - 1 and 0 <= y <= height - 1 for x, y in drawn):
        return "partial"
    diagonal = math.hypot(width, height)
    if not all(evaluate.inside(p, cut, evaluate.MARK_TOLERANCE * diagonal) for p in drawn):
        return "CUT INTO"
    shape = numpy.array(polygon, dtype=numpy.float32)
    if any(cv2.pointPolygonTest(shape, (float(x), float(y)), True) < -evaluate.MARK_TOLERANCE * diagonal for x, y in middles):
        return "CUT INTO"
    worst = max(math.hypot(a - c, b - d) for (a, b), (c, d) in zip(cut, drawn)) / diagonal
    return "right" if worst <= 0.02 else "whole"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", default=os.path.join(REPO, ".build", "vision", "libPDFTrapperVision.so"))
    parser.add_argument("--against", help="a second build of the library, judged on the same scenes")
    parser.add_argument("--seeds", default="1-4", help="FIRST-LAST")
    parser.add_argument("--per", type=int, default=40, help="scenes per seed")
    parser.add_argument("--list", default="CUT INTO,CROPPED", help="the verdicts whose scenes are listed (of this library)")
    parser.add_argument("--family", default="mixed", choices=sorted(FAMILIES),
                        help="mixed: every kind of scene (the default); striped-cards: cards with a dark stripe across them; "
                             "headed-sheets: pages with a coloured band along their top, nearly filling the photo; "
                             "barred-sheets: pages with a dark bar across them below their middle; "
                             "held-sheets: a pen across a side or a thumb over one")
    args = parser.parse_args()
    if not os.path.exists(args.library):
        sys.exit(f"scenes: {args.library} is missing (make {os.path.relpath(args.library, REPO)})")
    first, _, last = args.seeds.partition("-")
    scenes = [s for seed in range(int(first), int(last or first) + 1) for s in FAMILIES[args.family](seed, args.per)]
    finders = [("this", sheets.finder_alone(args.library, outline=True))]
    if args.against:
        finders.append(("against", sheets.finder_alone(args.against, outline=True)))

    with tempfile.TemporaryDirectory() as folder:
        def draw(scene):
            name, extra, spec = scene
            path = os.path.join(folder, name.replace("/", "-") + ".jpg")
            made = json.loads(subprocess.run(["python3", SCENE, path, json.dumps(spec)], check=True,
                                             capture_output=True, text=True).stdout)
            return path, made["corners"], made.get("middles", [])
        with ThreadPoolExecutor(2) as pool:  # ImageMagick draws; two cores
            drawings = list(pool.map(draw, scenes))
        counts = {label: {} for label, _ in finders}
        differ, listed = [], []
        for (name, extra, spec), (path, drawn, middles) in zip(scenes, drawings):
            size = cv2.imread(path).shape[1::-1]
            judged = []
            for label, find in finders:
                cut, _, polygon = find(path)
                v = verdict(spec, drawn, size, cut, polygon, middles)
                counts[label][v] = counts[label].get(v, 0) + 1
                judged.append(v)
            if judged[0] in args.list.split(","):
                listed.append(f"  {name:6s} {extra:11s} {spec['table']:5s} {str(spec['paper']):12s} {judged[0]}")
            if len(set(judged)) > 1:
                differ.append(f"  {name:6s} {extra:11s} {spec['table']:5s} {str(spec['paper']):12s} " +
                              "  ".join(f"{label} {v}" for (label, _), v in zip(finders, judged)))
    order = ["right", "whole", "partial", "none", "CUT INTO", "alone", "CROPPED"]
    for label, _ in finders:
        tally = ", ".join(f"{counts[label].get(k, 0)} {k}" for k in order)
        print(f"scenes ({label}, {len(scenes)} drawn, seeds {args.seeds}): {tally}")
    if listed:
        print(f"{len(listed)} scenes {args.list.replace(',', ' or ')}:")
        print("\n".join(listed))
    if args.against:
        print(f"{len(differ)} scenes judged differently:")
        print("\n".join(differ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
