#!/usr/bin/env python3
"""Draw the hand-marked sheet corners onto the real photos, for a reviewer to check by eye.

    python3 Tests/Photos/show_corners.py ../shared/photos Tests/Fixtures/photo-corners.json /tmp/corners-review

For every entry of the JSON, the photo is turned upright (EXIF orientation, as the corners are
given), scaled down to at most --size pixels, padded where a corner lies outside the frame, and
saved as a PNG with the quadrilateral drawn on it: corners 0-3 are top-left, top-right,
bottom-right, bottom-left as the page reads. A green dot is a paper corner, orange is a point on the
frame border ("on_frame"), red is a corner outside the frame ("outside"). The kind, paper and note
are written above the photo. Add --zoom to also save a full-resolution crop around every corner.
Needs only Pillow.
"""
import argparse
import json
import os
import textwrap

from PIL import Image, ImageDraw, ImageFont, ImageOps

COLOURS = {"corner": (0, 230, 0), "on_frame": (255, 150, 0), "outside": (255, 0, 0)}


def font(size):
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            pass
    return ImageFont.load_default()


def corner_kinds(entry):
    kinds = ["corner"] * 4
    for key in ("on_frame", "outside"):
        for i in entry.get(key) or []:
            kinds[i] = key
    return kinds


def draw(photo, entry, size):
    """The upright photo scaled to fit `size`, padded to show outside corners, with the marks drawn."""
    width, height = photo.size
    corners = entry.get("corners") or []
    xs = [0, width] + [x for x, _ in corners]
    ys = [0, height] + [y for _, y in corners]
    pad_left, pad_top = -min(xs), -min(ys)
    canvas_w, canvas_h = max(xs) + pad_left, max(ys) + pad_top
    scale = min(1.0, size / max(canvas_w, canvas_h))

    def at(x, y):
        return ((x + pad_left) * scale, (y + pad_top) * scale)

    canvas = Image.new("RGB", (round(canvas_w * scale), round(canvas_h * scale)), (60, 0, 60))
    canvas.paste(photo.resize((round(width * scale), round(height * scale)), Image.LANCZOS),
                 tuple(round(v) for v in at(0, 0)))
    pen = ImageDraw.Draw(canvas)
    line = max(2, round(size / 400))
    if corners:
        points = [at(x, y) for x, y in corners]
        pen.line(points + [points[0]], fill=(255, 0, 255), width=line)
        radius = 3 * line
        for i, ((x, y), kind) in enumerate(zip(points, corner_kinds(entry))):
            pen.ellipse([x - radius, y - radius, x + radius, y + radius], outline=COLOURS[kind], width=line)
            pen.text((x + radius + 2, y + radius), str(i), fill=COLOURS[kind], font=font(6 * line))
    label = f'{entry["kind"]}  paper={entry.get("paper")}  proportions={entry.get("proportions")}'
    text = font(max(12, size // 60))
    lines = [label] + textwrap.wrap(entry.get("note", ""), width=max(40, int(canvas.size[0] / (0.55 * text.size))))
    step = round(1.3 * text.size)
    framed = Image.new("RGB", (canvas.size[0], canvas.size[1] + step * len(lines) + 8), (0, 0, 0))
    framed.paste(canvas, (0, step * len(lines) + 8))
    pen = ImageDraw.Draw(framed)
    for i, words in enumerate(lines):
        pen.text((4, 4 + i * step), words, fill=(255, 255, 0) if i == 0 else (255, 255, 255), font=text)
    canvas = framed
    return canvas


def zoom(photo, entry, half=120, out=360):
    """A row of full-resolution crops, one around each corner, with the marked point crossed."""
    corners = entry.get("corners") or []
    row = Image.new("RGB", (len(corners) * (out + 4), out), (0, 0, 0))
    for i, (x, y) in enumerate(corners):
        box = (round(x) - half, round(y) - half, round(x) + half, round(y) + half)
        tile = Image.new("RGB", (2 * half, 2 * half), (60, 0, 60))
        tile.paste(photo.crop(box), (0, 0))  # crop() pads outside the photo with black
        tile = tile.resize((out, out), Image.LANCZOS)
        pen = ImageDraw.Draw(tile)
        c = out / 2
        pen.line([(c - 15, c), (c + 15, c)], fill=(255, 0, 0), width=2)
        pen.line([(c, c - 15), (c, c + 15)], fill=(255, 0, 0), width=2)
        pen.text((4, 4), str(i), fill=(255, 255, 0), font=font(18))
        row.paste(tile, (i * (out + 4), 0))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("photos", help="the shared photos folder (../shared/photos)")
    parser.add_argument("corners", help="Tests/Fixtures/photo-corners.json")
    parser.add_argument("out", help="folder for the drawings")
    parser.add_argument("--size", type=int, default=1200, help="longest side of a drawing (default 1200)")
    parser.add_argument("--zoom", action="store_true", help="also save full-resolution crops of the corners")
    args = parser.parse_args()
    if not os.path.isdir(args.photos):
        print(f"show_corners: skipped, {args.photos} is missing (the real photos are not part of a clone)")
        return 0

    with open(args.corners) as f:
        entries = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    for key, entry in sorted(entries.items()):
        path = os.path.join(args.photos, key)
        if not os.path.exists(path):
            print(f"missing: {path}")
            continue
        photo = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
        if list(photo.size) != entry["size"]:
            print(f"{key}: upright size {photo.size} differs from the marked {entry['size']}")
        stem = key.replace("/", "__").rsplit(".", 1)[0]
        draw(photo, entry, args.size).save(os.path.join(args.out, stem + ".png"))
        if args.zoom and entry.get("corners"):
            zoom(photo, entry).save(os.path.join(args.out, stem + "_corners.png"))
        print(f'{entry["kind"]:8} {key}')


if __name__ == "__main__":
    main()
