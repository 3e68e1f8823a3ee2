#!/usr/bin/env python3
"""Phone photos of a page, made at test time: a rendered page (text, rules, a logo) warped in
perspective by ImageMagick (`-distort Perspective`) onto a textured table, with a shadow across it.

  scene.py OUT.jpg JSON   JSON: {"paper": [w_mm, h_mm], "angle": degrees, "tilt": degrees,
                          "size": [w, h] of the photo, "table": "wood" | "cloth" | "white" (a smooth
                          light table, a step of about 7 in Lab from the paper), "shadow": bool,
                          "sheet": false for a photo with no sheet in it, "flat": true for the page alone,
                          "white_right": true for the table right of the sheet as white as the paper,
                          so that the sheet's right side shows no edge, "band": [from, to] a dark band
                          across the page between these shares of its height, "band_colour": its RGB,
                          "white_below": the share of the bottom side with white table below it,
                          "cloth_below": true for a dark cloth from the sheet's bottom side down,
                          "blur" and "grain": a soft focus and sensor noise, "quality": JPEG's,
                          "torn": the share of the page's height its torn top dips by in the middle,
                          rising to the corners (most of the top edge lies below the corners),
                          "facing": true for an open book or notepad: a facing page, the same
                          paper in its shade, joined to the sheet's left side at a creased fold,
                          its top and bottom edges fanning out from the fold, "crease": a letter
                          folded across at this share of its height and opened again: a grey crease
                          across the page, between paragraphs, "bow": each side bulging out in
                          its middle by this share of its length (a sheet lifted at its corners, a
                          page off a roll); the corners stay where they were, "sag": the bottom side
                          alone bulging down so (a thick book's page sagging below its corners;
                          with "shift", past the bottom of the frame), "block": a book's
                          page block beside the sheet's right side, this many pages' edges lit
                          white (each 2.5 mm wide, a grey line between), the page itself in the
                          shade of the open book, "curl": the top edge dipping by this share of
                          the height at the left side, as a book's page curls into its binding
                          (the top left corner given is the bottom of the dip), "drop": this share
                          of the dip a last drop straight down along the binding, the table beside
                          it and the facing page (if any) beginning at its foot, "pen": [side, at,
                          turn] a pen (140 x 9 mm, dark blue, its shadow beside it) lying across
                          side `side` (0 top, 1 right, 2 bottom, 3 left) at share `at` along it,
                          turned `turn` degrees from square across it, "thumb": [side, at] a thumb
                          (20 mm wide, its tip 15 mm inside the sheet) reaching over that side from
                          beyond the frame, as a hand holds a sheet up to the camera, "fore_band":
                          a book's page block beside the sheet's right side seen as a plain band
                          this many mm wide, darker than the page and lighter than wood, the whole
                          open book in the shade}

Writes OUT.jpg, OUT.page.png (the page as drawn, upright) and prints the sheet's corners in the
photo as JSON ("corners"; a bowed sheet's sides' middles too, "middles"). Everything is drawn here;
nothing is downloaded.
"""
import json, math, os, random, subprocess, sys
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

out, spec = sys.argv[1], json.loads(sys.argv[2])
rng = random.Random(spec.get("seed", 7))
paper_w, paper_h = spec.get("paper", [210, 297])
# The page at 120 dpi: big enough to read once photographed, small enough to be quick.
pw, ph = round(paper_w / 25.4 * 120), round(paper_h / 25.4 * 120)
page = Image.new("RGB", (pw, ph), (250, 250, 246))
draw = ImageDraw.Draw(page)
font = ImageFont.load_default(size=max(14, pw // 34))
title = ImageFont.load_default(size=max(20, pw // 18))
margin = pw // 10
draw.ellipse((margin, margin, margin + pw // 7, margin + pw // 7), fill=(30, 90, 200))       # the logo
draw.text((margin + pw // 6, margin + pw // 40), "Invoice 2026-118", font=title, fill=(20, 20, 20))
draw.line((margin, margin + pw // 5, pw - margin, margin + pw // 5), fill=(20, 20, 20), width=3)
words = "the quick brown fox jumps over the lazy dog while the kitchen clock ticks".split()
y = margin + pw // 4
line = 0
while y < ph - margin - font.size:
    text = " ".join(words[(line + i) % len(words)] for i in range(5))
    draw.text((margin, y), text, font=font, fill=(25, 25, 25))
    y += int(font.size * 1.6)
    line += 1
draw.rectangle((pw - margin - pw // 4, ph - margin - pw // 10, pw - margin, ph - margin), outline=(20, 20, 20), width=2)
if spec.get("band"):
    # A dark band printed across the whole width (a notepad's glued binding, a form's header bar),
    # from and to these shares of the page's height: the paper above it is a quadrilateral too.
    top, bottom = spec["band"]
    draw.rectangle((0, round(top * ph), pw, round(bottom * ph)), fill=tuple(spec.get("band_colour", (30, 40, 90))))
if spec.get("crease"):
    at = round(spec["crease"] * ph)
    draw.rectangle((0, at - ph // 25, pw, at + ph // 25), fill=(250, 250, 246))  # between paragraphs
    draw.line((0, at, pw, at), fill=(150, 150, 144), width=3)
if spec.get("torn"):
    # Torn off along a curve: the corners where they were, the top edge lower over most of its
    # length and rising to them over its last tenths (as a till roll tears), so a line fitted to the
    # edge runs below the corners. Transparent above the tear: the table shows there.
    page = page.convert("RGBA")
    dip = spec["torn"] * ph
    tear = [(x, dip * (1 - abs(2 * x / pw - 1) ** 6)) for x in range(0, pw + 1, 2)]
    ImageDraw.Draw(page).polygon([(0, -1)] + tear + [(pw, -1)], fill=(0, 0, 0, 0))
if spec.get("curl"):
    # A book's page curling down into its binding at the top: the top edge dips by this share of the
    # page's height at the left side, rising to the straight top over the left fifth of the width.
    # Its top left corner is at the bottom of the dip (where the edge meets the binding).
    page = page.convert("RGBA")
    dip, reach = spec["curl"] * ph, 0.2 * pw
    curve = [(x, dip * (1 - x / reach) ** 2) for x in range(0, round(reach) + 1, 2)]
    if spec.get("drop"):
        # the curl reaching the binding higher, and running straight down along it to the bottom
        above = dip * (1 - spec["drop"])
        curve = [(0, dip)] + [(x, above * (1 - x / reach) ** 2) for x in range(2, round(reach) + 1, 2)]
    ImageDraw.Draw(page).polygon([(0, -1)] + curve + [(round(reach), -1)], fill=(0, 0, 0, 0))
page.save(out + ".page.png")
# what the camera sees of the page: the page itself, or bowed on a canvas with room for its bulges
seen, inset = page, 0
if spec.get("bow") or spec.get("sag"):
    bow, sag = spec.get("bow", 0), spec.get("sag", 0)
    inset = math.ceil(max(bow, sag) * max(pw, ph)) + 2
    cx, cy = inset + pw / 2, inset + ph / 2
    def bulge(t):  # 0 at a side's ends, 1 in its middle
        return max(0.0, 1 - (2 * t - 1) ** 2)
    def source(X, Y):
        # each row of the page stretched across so that its left and right ends lie on the bowed
        # sides, each column so for the top and bottom: the inverse, from the canvas to the page
        u, v = (X - inset) / pw, (Y - inset) / ph
        across = 1 + 2 * bow * ph / pw * bulge(v)
        down = 1 + 2 * (bow + (sag if Y > cy else 0)) * pw / ph * bulge(u)
        return pw / 2 + (X - cx) / across, ph / 2 + (Y - cy) / down
    cell, mesh = 16, []
    for Y in range(0, ph + 2 * inset, cell):
        for X in range(0, pw + 2 * inset, cell):
            box = (X, Y, X + cell, Y + cell)
            mesh.append((box, (*source(X, Y), *source(X, Y + cell), *source(X + cell, Y + cell), *source(X + cell, Y))))
    seen = page.convert("RGBA").transform((pw + 2 * inset, ph + 2 * inset), Image.MESH, mesh, Image.BILINEAR,
                                          fillcolor=(0, 0, 0, 0))
    seen.save(out + ".seen.png")

if spec.get("flat"):
    page.save(out, quality=92, dpi=(120, 120))
    print(json.dumps({"corners": [[0, 0], [pw, 0], [pw, ph], [0, ph]]}))
    sys.exit(0)

W, H = spec.get("size", [1600, 1200])
# The table's texture, drawn at a quarter of the size (pixel by pixel in Python is slow) and enlarged.
tw, th = W // 4, H // 4
table = Image.new("RGB", (tw, th))
px = table.load()
kind = spec.get("table", "wood")
for yy in range(th):
    for xx in range(tw):
        if kind == "wood":
            grain = 18 * math.sin(xx / 6.0 + 3 * math.sin(yy / 24.0)) + rng.randint(-10, 10)
            px[xx, yy] = (int(120 + grain), int(78 + grain * 0.7), int(45 + grain * 0.4))
        elif kind == "white":
            grey = 242 + rng.randint(-1, 1)
            px[xx, yy] = (grey, grey, grey - 4)
        else:
            check = ((xx // 10) + (yy // 10)) % 2
            noise = rng.randint(-8, 8)
            px[xx, yy] = (150 + 40 * check + noise, 60 + 20 * check + noise, 60 + noise)
table = table.resize((W, H), Image.BICUBIC)

corners = []
if spec.get("sheet", True):
    # A camera (focal length the photo's width, as a phone's 28 mm lens; its axis through the
    # photo's centre) looking at the sheet turned by `angle` on the table and tilted away by `tilt`
    # degrees: the sheet's photo is a true perspective view, whose proportions can be worked back.
    f = float(W)
    a, t = math.radians(spec.get("angle", 0)), math.radians(spec.get("tilt", 15))
    def view(x, y, distance):
        x, y = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)  # on the table
        y, z = y * math.cos(t), distance + y * math.sin(t)                          # tilted away
        return (W / 2 + f * x / z + spec.get("shift", [0, 0])[0], H / 2 + f * y / z + spec.get("shift", [0, 0])[1])
    outline = [(-pw / 2, -ph / 2), (pw / 2, -ph / 2), (pw / 2, ph / 2), (-pw / 2, ph / 2)]
    # The distance at which the sheet's outline spans `fill` of the photo's shorter side.
    fill, distance = spec.get("fill", 0.75), f
    for _ in range(40):
        xs, ys = zip(*(view(x, y, distance) for x, y in outline))
        span = max((max(xs) - min(xs)) / W, (max(ys) - min(ys)) / H)
        distance *= span / fill
    corners = [view(x, y, distance) for x, y in outline]
    if inset:
        # the tips of the bulges: each side's middle, out by its share of the side's length
        middles = [view(x, y, distance) for x, y in [(0, -ph / 2 - bow * pw), (pw / 2 + bow * ph, 0), (0, ph / 2 + (bow + sag) * pw),
                                                     (-pw / 2 - bow * ph, 0)]]
    points = " ".join(f"{sx + inset},{sy + inset} {dx:.2f},{dy:.2f}"
                      for (sx, sy), (dx, dy) in zip([(0, 0), (pw, 0), (pw, ph), (0, ph)], corners))
    subprocess.run(["convert", out + (".seen.png" if inset else ".page.png"), "-alpha", "set", "-virtual-pixel", "transparent",
                    "-define", f"distort:viewport={W}x{H}+0+0", "-distort", "Perspective", points, out + ".sheet.png"],
                   check=True)
    if spec.get("curl"):
        corners[0] = view(-pw / 2, -ph / 2 + spec["curl"] * ph, distance)  # where the page's edge meets the binding
    if spec.get("facing"):
        # The facing page, as wide again, its outer corners a quarter of the height higher and lower:
        # the pages of an open book fan out from the binding.
        top = -ph / 2 + (spec["curl"] * ph if spec.get("drop") else 0)  # at the foot of the page's drop
        facing = [(-pw / 2, top), (-1.5 * pw, -0.75 * ph), (-1.5 * pw, 0.75 * ph), (-pw / 2, ph / 2)]
        # (with a plain page block beside the page, the whole book lies in the shade)
        shade = (211, 211, 206) if spec.get("fore_band") else (248, 248, 242)
        ImageDraw.Draw(table).polygon([view(x, y, distance) for x, y in facing], fill=shade)
    if spec.get("block"):
        # The fore-edge of the pages beneath, facing the light: strips stepping out from the right
        # side, each a page's edge, the outermost first so that each nearer one covers its inner part.
        step = 2.5 / 25.4 * 120
        for k in range(spec["block"], 0, -1):
            edge = [(pw / 2, -ph / 2), (pw / 2 + k * step, -ph / 2), (pw / 2 + k * step, ph / 2), (pw / 2, ph / 2)]
            ImageDraw.Draw(table).polygon([view(x, y, distance) for x, y in edge], fill=(250, 250, 246))
            ImageDraw.Draw(table).line([view(x, y, distance) for x, y in edge[1:3]], fill=(190, 190, 184), width=max(3, W // 500))
    if spec.get("fore_band"):
        # The pages beneath seen edge-on beside the right side, in the shade: a plain band
        width = spec["fore_band"] / 25.4 * 120
        band = [(pw / 2, -ph / 2), (pw / 2 + width, -ph / 2), (pw / 2 + width, ph / 2), (pw / 2, ph / 2)]
        ImageDraw.Draw(table).polygon([view(x, y, distance) for x, y in band], fill=(176, 170, 158))
    sheet = Image.open(out + ".sheet.png").convert("RGBA")
    if spec.get("block") or spec.get("fore_band"):
        # the page turned from the light: a shade darker than its edges
        shaded = sheet.convert("RGB").point(lambda v: v * 85 // 100)
        sheet = Image.merge("RGBA", (*shaded.split(), sheet.getchannel("A")))
    table.paste(sheet, (0, 0), sheet)
    os.unlink(out + ".sheet.png")
    if inset:
        os.unlink(out + ".seen.png")
    if spec.get("facing"):
        # the fold: a shadowed crease where the pages meet
        ImageDraw.Draw(table).line([corners[0], corners[3]], fill=(140, 140, 134), width=max(3, W // 400))
    if spec.get("white_right"):
        # A white board beside the sheet: from its right side (top right to bottom right corner) to the frame.
        (_, _), (rx, ry), (bx, by), (_, _) = corners
        paper = Image.open(out + ".page.png").convert("RGB").getpixel((2, 2))
        ImageDraw.Draw(table).polygon([(rx, ry), (W, ry), (W, by), (bx, by)], fill=paper)

    if spec.get("cloth_below"):
        # A dark cloth from the sheet's bottom side down to the frame, its edge under the sheet's
        # (a receipt lying at the table's edge): the sheet's faint sides run into a strong edge.
        (_, _), (_, _), (bx, by), (lx, ly) = corners
        ImageDraw.Draw(table).polygon([(lx - W, ly + (ly - by)), (bx + W, by - (ly - by)), (W, H), (0, H)], fill=(40, 32, 30))
        table.paste(sheet, (0, 0), sheet)
    if spec.get("white_below"):
        # A white board below the sheet, under this share of its bottom side (from its left end) down
        # to the frame: there the bottom side shows no edge.
        (_, _), (_, _), (bx, by), (lx, ly) = corners
        share = spec["white_below"]
        mx, my = lx + share * (bx - lx), ly + share * (by - ly)
        paper = Image.open(out + ".page.png").convert("RGB").getpixel((2, 2))
        ImageDraw.Draw(table).polygon([(lx, ly), (mx, my), (mx, H), (lx, H)], fill=paper)

def capsule(x0, y0, x1, y1, radius):
    """A bar from (x0, y0) to (x1, y1) with rounded ends, on the table's plane (page pixels from the
    sheet's centre, as `view` takes them): its outline, 2 x 12 points on each end's half circle."""
    along = math.atan2(y1 - y0, x1 - x0)
    ends = [(x1, y1, along - math.pi / 2), (x0, y0, along + math.pi / 2)]
    return [(x + radius * math.cos(start + math.pi * k / 12), y + radius * math.sin(start + math.pi * k / 12))
            for x, y, start in ends for k in range(13)]

def lay_over(outline, colour, offset):
    """`outline` (on the table's plane) filled with `colour` over the photo as the camera sees it,
    after a soft shadow of it (a third darker) falling `offset` page pixels beside it."""
    global table
    shade = Image.new("L", (W, H), 255)
    ImageDraw.Draw(shade).polygon([view(x + offset, y + offset, distance) for x, y in outline], fill=170)
    shade = shade.filter(ImageFilter.GaussianBlur(max(2, W // 300)))
    table = Image.composite(table, Image.new("RGB", (W, H), (0, 0, 0)), shade)
    ImageDraw.Draw(table).polygon([view(x, y, distance) for x, y in outline], fill=colour)

if corners and (spec.get("pen") or spec.get("thumb")):
    mm = 120 / 25.4
    sheet_corners = [(-pw / 2, -ph / 2), (pw / 2, -ph / 2), (pw / 2, ph / 2), (-pw / 2, ph / 2)]
    def crossing(side, at):
        """The point `at` along side `side` of the sheet, and the unit normal out of it (the table's plane)."""
        (ax, ay), (bx, by) = sheet_corners[side], sheet_corners[(side + 1) % 4]
        nx, ny = [(0, -1), (1, 0), (0, 1), (-1, 0)][side]
        return ax + at * (bx - ax), ay + at * (by - ay), nx, ny
    if spec.get("pen"):
        # A pen across the side: its body dark blue, a lighter stripe along it where the light catches it.
        side, at, turn = spec["pen"]
        cx, cy, nx, ny = crossing(side, at)
        turn = math.radians(turn)
        dx, dy = nx * math.cos(turn) - ny * math.sin(turn), nx * math.sin(turn) + ny * math.cos(turn)
        inside, outside = 42 * mm, 98 * mm  # of its 140 mm, on the sheet and beyond the side
        x0, y0, x1, y1 = cx - dx * inside, cy - dy * inside, cx + dx * outside, cy + dy * outside
        lay_over(capsule(x0, y0, x1, y1, 4.5 * mm), (35, 45, 110), 3 * mm)
        ImageDraw.Draw(table).polygon([view(x, y, distance) for x, y in capsule(x0, y0, x1, y1, 1.2 * mm)], fill=(95, 110, 185))
    if spec.get("thumb"):
        # A thumb reaching in over the side from beyond the frame: skin, a darker rim, the nail's paler tip.
        side, at = spec["thumb"]
        cx, cy, nx, ny = crossing(side, at)
        tip = (cx - nx * 15 * mm, cy - ny * 15 * mm)
        far = (cx + nx * 2 * max(pw, ph), cy + ny * 2 * max(pw, ph))
        lay_over(capsule(*tip, *far, 10 * mm), (176, 122, 96), 4 * mm)
        ImageDraw.Draw(table).polygon([view(x, y, distance) for x, y in capsule(*tip, *far, 8.5 * mm)], fill=(214, 160, 128))
        nail = (tip[0] + nx * 6 * mm, tip[1] + ny * 6 * mm)
        ImageDraw.Draw(table).polygon([view(x, y, distance) for x, y in capsule(*tip, *nail, 5 * mm)], fill=(232, 190, 170))

if spec.get("shadow"):
    # The phone's shadow: a soft dark band across the middle, darkening sheet and table alike.
    shade = Image.new("L", (W, H), 255)
    ImageDraw.Draw(shade).polygon([(W * 0.25, 0), (W * 0.55, 0), (W * 0.75, H), (W * 0.45, H)], fill=150)
    shade = shade.filter(ImageFilter.GaussianBlur(W // 30))
    table = Image.composite(table, Image.new("RGB", (W, H), (0, 0, 0)), shade)
# Uneven light: bright at the top, a fifth darker at the bottom, as under a window.
light = Image.linear_gradient("L").resize((W, H)).point(lambda v: 255 - v // 5)
table = Image.composite(table, Image.new("RGB", (W, H), (0, 0, 0)), light)
if spec.get("blur"):
    # a phone's soft focus and its sensor's grain: a faint side breaks up into specks
    table = table.filter(ImageFilter.GaussianBlur(spec["blur"]))
    grain = Image.effect_noise((W, H), spec.get("grain", 4)).convert("RGB")
    table = ImageChops.add(table, grain, 1.0, -128)
table.save(out, quality=spec.get("quality", 90))
print(json.dumps({"corners": corners, **({"middles": middles} if inset and corners else {})}))
