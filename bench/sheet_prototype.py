#!/usr/bin/env python3
"""Research prototype of issue 42's sheet finder (not the product): find the sheet of paper in a
phone photo by gathering candidate quadrilaterals several ways and choosing by evidence.

    bench/sheet_prototype.py PHOTO [--debug OUT.png]

Prints the corners (upright photo pixels, clockwise from the top left), the proportions and the
evidence, or why no sheet was taken. Measured against the other finders by bench/sheets.py.

1. Decode at a reduced size (libjpeg's DCT scaling: 1/2, 1/4 or 1/8), turned upright, and shrink
   to a working image of WORK pixels on the long side; Lab colour.
2. Candidates, all as quadrilaterals in working pixels:
   - edges: Canny at three scales (each with thresholds from the image's own gradients), closed,
     contours, each contour's convex hull reduced to four corners;
   - lines: LSD line segments, merged into long lines, combined two nearly-parallel pairs at a time
     into quadrilaterals, ranked by how much of each side the segments cover;
   - regions: the bright, unsaturated region (Otsu on a "paper-likeness" channel) and its outline.
3. Evidence for each (shape first: convex, at least MIN_AREA of the photo, angles 35-145 degrees,
   corners at most 2 % of the diagonal outside the photo): along each side, the colour just inside
   against just outside (4-10 px away), counted where that step is at least STEP, an edge of at
   least EDGE runs along the side within 2 px, and the colour on the side is not off the midway
   by more than the step (that is a printed or drawn line, with paper on both sides); also whether
   the step keeps one direction along the side. Score: half the mean, half the least of the four
   sides' shares.
4. The best REFINED candidates are refined: each side refitted to the strongest edge of its own
   polarity within REACH (a robust line fit), corners where the fitted sides meet, so rounded or
   covered corners sit where the straight edges meet, as the marks do.
5. Choice: the best-scoring candidate of at least ACCEPT, or none. Then, while a larger convincing
   candidate holds it, with a score no more than HOLD lower, and the ring between the two does not
   look like the table just outside the larger one, the largest such (a card around its magnetic
   stripe, a sheet around a drawn box; not a quadrilateral of wood grain around a sheet). The cut
   is widened by MARGIN of the diagonal: a sliver of table rather than a sliver less sheet.
6. Proportions: the focal-length method (a rectangle seen in perspective fixes the camera's focal
   length and then its own width over height); when the view is too frontal for that, the EXIF
   35 mm-equivalent focal length, else a phone's typical 27 mm. Snapped to a known paper within 2 %.
   Not yet used as evidence for choosing.
"""
import argparse, math, os, sys

import cv2
import numpy as np

WORK = 768  # long side of the working image, pixels
MIN_AREA = 0.05  # a sheet covers at least this share of the photo
STEP = 10.0  # colour difference across a side (Lab, OpenCV's 8-bit scale) that counts as an edge
DEFAULT_F35 = 27.0  # a phone's main camera, 35 mm-equivalent focal length, when EXIF has none
PAPERS = {"A4/A5": math.sqrt(2), "Letter": 11 / 8.5, "Legal": 14 / 8.5, "ID-1 card": 85.6 / 53.98,
          "business card (US)": 3.5 / 2, "business card (EU)": 85 / 55}


# --- decoding ----------------------------------------------------------------------------------------

def exif_facts(path):
    """(upright width, upright height, 35 mm-equivalent focal length or None), from the header only."""
    try:
        from PIL import Image
    except ImportError:
        return None, None, None
    with Image.open(path) as image:
        width, height = image.size
        exif = image.getexif()
        orientation = exif.get(0x0112, 1)
        f35 = exif.get_ifd(0x8769).get(0xA405) or None
    if orientation in (5, 6, 7, 8):
        width, height = height, width
    return width, height, (float(f35) if f35 else None)


def load(path):
    """The working image (BGR, upright, long side at most WORK), the scale from it to the upright
    photo, the photo's size and its EXIF 35 mm focal length."""
    width, height, f35 = exif_facts(path)
    flag, factor = cv2.IMREAD_COLOR, 1
    if width:
        for f, reduced in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                           (2, cv2.IMREAD_REDUCED_COLOR_2)):
            if max(width, height) / f >= WORK:
                flag, factor = reduced, f
                break
    image = cv2.imread(path, flag)
    if not width:
        height, width = image.shape[:2]
    long_side = max(image.shape[:2])
    if long_side > WORK:
        s = WORK / long_side
        image = cv2.resize(image, (round(image.shape[1] * s), round(image.shape[0] * s)),
                           interpolation=cv2.INTER_AREA)
    scale = width / image.shape[1]
    return image, scale, (width, height), f35


# --- geometry ----------------------------------------------------------------------------------------

def order(quad):
    """Clockwise (y down) from the corner nearest the top left."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    q = q[np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))]
    first = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -first, axis=0)


def intersect(l1, l2):
    """Point where two lines (a, b, c with a x + b y = c, (a, b) unit) meet, or None if parallel."""
    a1, b1, c1 = l1
    a2, b2, c2 = l2
    det = a1 * b2 - a2 * b1
    if abs(det) < 1e-9:
        return None
    return np.array([(c1 * b2 - c2 * b1) / det, (a1 * c2 - a2 * c1) / det])


def line_through(p, q):
    d = np.asarray(q, float) - np.asarray(p, float)
    n = np.array([-d[1], d[0]]) / (np.hypot(*d) or 1)
    return (n[0], n[1], float(n @ np.asarray(p, float)))


def angles(q):
    out = []
    for i in range(4):
        a, b, c = q[i - 1], q[i], q[(i + 1) % 4]
        u, v = a - b, c - b
        cos = float(u @ v) / ((np.hypot(*u) * np.hypot(*v)) or 1)
        out.append(math.degrees(math.acos(max(-1, min(1, cos)))))
    return out


def convex(q):
    signs = []
    for i in range(4):
        a, b, c = q[i], q[(i + 1) % 4], q[(i + 2) % 4]
        signs.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    return all(s > 0 for s in signs) or all(s < 0 for s in signs)


def area(q):
    return abs(cv2.contourArea(np.asarray(q, np.float32)))


def plausible(q, shape):
    """Shape tests every candidate must pass: convex, big enough, no corner far outside the photo,
    no angle a sheet in perspective would not show."""
    h, w = shape[:2]
    if not convex(q) or area(q) < MIN_AREA * w * h:
        return False
    margin = 0.02 * math.hypot(w, h)
    if np.any(q[:, 0] < -margin) or np.any(q[:, 0] > w - 1 + margin) or \
       np.any(q[:, 1] < -margin) or np.any(q[:, 1] > h - 1 + margin):
        return False
    if min(np.hypot(*(q[i] - q[(i + 1) % 4])) for i in range(4)) < 0.05 * math.hypot(w, h):
        return False
    return all(35 <= a <= 145 for a in angles(q))


# --- proportions under perspective --------------------------------------------------------------------

def perspective_proportions(quad, size, f35):
    """Width over height of the rectangle seen as `quad` (upright photo pixels, clockwise from the
    top left), and how it was found: ('focal', f) when the quad itself fixes the focal length
    (Zhang and He's whiteboard method), else ('exif' | 'prior', f) from a 35 mm-equivalent focal
    length. Returns (long over short, width over height, method, focal length in pixels)."""
    w, h = size
    centre = np.array([w / 2, h / 2])
    tl, tr, br, bl = [np.append(np.asarray(p, float) - centre, 1.0) for p in quad]
    m1, m2, m3, m4 = tl, tr, bl, br
    k2 = np.dot(np.cross(m1, m4), m3) / np.dot(np.cross(m2, m4), m3)
    k3 = np.dot(np.cross(m1, m4), m2) / np.dot(np.cross(m3, m4), m2)
    n2 = k2 * m2 - m1
    n3 = k3 * m3 - m1
    diagonal = math.hypot(w, h)
    method, f = None, None
    denominator = n2[2] * n3[2]
    # Only trusted when both vanishing points are finite enough for f to be measured: a frontal
    # view makes n2[2] or n3[2] vanish and f anything.
    if abs(n2[2]) * diagonal > 0.05 * np.hypot(n2[0], n2[1]) and abs(n3[2]) * diagonal > 0.05 * np.hypot(n3[0], n3[1]):
        f2 = -(n2[0] * n3[0] + n2[1] * n3[1]) / denominator
        if f2 > 0 and 0.3 * diagonal < math.sqrt(f2) < 3 * diagonal:
            method, f = "focal", math.sqrt(f2)
    if f is None:
        method = "exif" if f35 else "prior"
        f = (f35 or DEFAULT_F35) / 43.27 * diagonal  # 43.27 mm: a 35 mm frame's diagonal
    width = math.sqrt(n2[0] ** 2 + n2[1] ** 2 + f * f * n2[2] ** 2)
    height = math.sqrt(n3[0] ** 2 + n3[1] ** 2 + f * f * n3[2] ** 2)
    ratio = width / height
    return max(ratio, 1 / ratio), ratio, method, f


def proportions_at(quad, size, f35):
    """Long over short of the rectangle seen as `quad`, with the focal length given (35 mm
    equivalent) instead of measured."""
    w, h = size
    centre = np.array([w / 2, h / 2])
    tl, tr, br, bl = [np.append(np.asarray(p, float) - centre, 1.0) for p in quad]
    k2 = np.dot(np.cross(tl, br), bl) / np.dot(np.cross(tr, br), bl)
    k3 = np.dot(np.cross(tl, br), tr) / np.dot(np.cross(bl, br), tr)
    n2, n3 = k2 * tr - tl, k3 * bl - tl
    f = f35 / 43.27 * math.hypot(w, h)
    ratio = math.sqrt(n2[0] ** 2 + n2[1] ** 2 + f * f * n2[2] ** 2) / math.sqrt(n3[0] ** 2 + n3[1] ** 2 + f * f * n3[2] ** 2)
    return max(ratio, 1 / ratio)


def snap(proportions):
    """The known paper within 2 %, if any: (name, its proportions) or (None, proportions)."""
    best = min(PAPERS.items(), key=lambda kv: abs(proportions / kv[1] - 1))
    if abs(proportions / best[1] - 1) <= 0.02:
        return best
    return None, proportions


# --- evidence ----------------------------------------------------------------------------------------

class Photo:
    """The working image and what every candidate's evidence is read from."""

    def __init__(self, image):
        self.bgr = image
        self.h, self.w = image.shape[:2]
        self.diagonal = math.hypot(self.w, self.h)
        smooth = cv2.GaussianBlur(image, (3, 3), 0)
        self.lab = cv2.cvtColor(smooth, cv2.COLOR_BGR2Lab).astype(np.float32)
        self.grey = cv2.cvtColor(smooth, cv2.COLOR_BGR2GRAY)
        gx = cv2.Sobel(self.grey, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(self.grey, cv2.CV_32F, 0, 1, ksize=3)
        self.gx, self.gy = gx, gy
        quarter = (max(1, self.w // 4), max(1, self.h // 4))
        self.small_lab = cv2.resize(self.lab, quarter, interpolation=cv2.INTER_AREA)
        # texture: how much the grey level moves pixel to pixel (wood grain, cloth, print), at 1/4
        self.small_texture = cv2.resize(np.abs(cv2.Laplacian(self.grey, cv2.CV_32F)), quarter,
                                        interpolation=cv2.INTER_AREA)


def side_samples(p, q, centre, spacing=4.0, trim=0.1):
    """Points along the side p-q (its ends trimmed: corners are rounded, curled or covered) and the
    outward unit normal."""
    d = q - p
    length = float(np.hypot(*d))
    n = np.array([-d[1], d[0]]) / (length or 1)
    if n @ ((p + q) / 2 - centre) < 0:
        n = -n
    count = max(8, int(length * (1 - 2 * trim) / spacing))
    t = np.linspace(trim, 1 - trim, count)
    return p[None, :] + t[:, None] * d[None, :], n


EDGE = 12.0  # the least grey gradient (Sobel 3x3 on 0-255) across a side where it is an edge
NEAR, FAR = 4, 10  # the strips each side of an edge, in working pixels from it


def evidence(photo, q):
    """Per side: the share of it with a colour step across it (inside against outside, STEP or
    more), the median step, how consistently the step keeps one direction (1: always the same
    colour inside; a textured table gives about 0), and the share of it inside the photo."""
    centre = q.mean(axis=0)
    offsets = np.arange(NEAR, FAR + 1, 2, dtype=np.float32)
    k = len(offsets)
    close = np.arange(-2, 3, dtype=np.float32)  # where the edge itself must be
    middle = np.array([-1, 0, 1], dtype=np.float32)
    blocks, counts, probes, normals = [], [], [], []
    for i in range(4):
        points, n = side_samples(q[i], q[(i + 1) % 4], centre)
        inner = points[:, None, :] - offsets[None, :, None] * n
        outer = points[:, None, :] + offsets[None, :, None] * n
        on = points[:, None, :] + middle[None, :, None] * n
        blocks.append(np.concatenate([inner, outer, on], axis=1))
        probes.append(points[:, None, :] + close[None, :, None] * n)
        normals.append(np.repeat(n[None, :], len(points), axis=0))
        counts.append(len(points))
    both = np.concatenate(blocks).astype(np.float32)  # (points, 2k, 2)
    probe = np.concatenate(probes).astype(np.float32)
    normal = np.concatenate(normals).astype(np.float32)
    gx = cv2.remap(photo.gx, probe[..., 0], probe[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    gy = cv2.remap(photo.gy, probe[..., 0], probe[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    across = np.abs(gx * normal[:, None, 0] + gy * normal[:, None, 1])
    along = np.abs(gx * normal[:, None, 1] - gy * normal[:, None, 0])
    # an edge here: somewhere within 2 px of the side the gradient runs across it (within 30
    # degrees) and is strong; wood grain or a shadow crossing at an angle fails one or the other
    aligned = ((across > 2 * along) & (across >= EDGE)).any(axis=1)
    within = ((both[..., 0] >= 0) & (both[..., 0] <= photo.w - 1) &
              (both[..., 1] >= 0) & (both[..., 1] <= photo.h - 1))
    # near the frame only part of the outer strip is in the photo: its nearest sample will do
    visible = within[:, :k].all(axis=1) & within[:, k] & within[:, 2 * k:].all(axis=1)
    values = cv2.remap(photo.lab, both[..., 0], both[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    weight = within[:, k:2 * k, None].astype(np.float32)
    inside = values[:, :k].mean(axis=1)
    outside = (values[:, k:2 * k] * weight).sum(axis=1) / np.maximum(1, weight.sum(axis=1))
    diff = inside - outside  # Lab
    step = np.sqrt((diff * diff).sum(axis=1))
    # a printed or drawn line has paper on both sides and ink on it: on the side the colour leaves
    # the midway between inside and outside by more than the step itself
    off = values[:, 2 * k:].mean(axis=1) - (inside + outside) / 2
    ridge = np.sqrt((off * off).sum(axis=1))
    sides = []
    start = 0
    for count in counts:
        v, st, df = visible[start:start + count], step[start:start + count], diff[start:start + count]
        al = aligned[start:start + count] & (ridge[start:start + count] < st)
        start += count
        support = float(np.count_nonzero(v & (st >= STEP) & al)) / count
        if v.any():
            mean = df[v].mean(axis=0)
            coherence = float(np.sqrt((mean * mean).sum()) / (st[v].mean() or 1))
            median = float(np.median(st[v]))
        else:
            coherence, median = 0.0, 0.0
        sides.append({"support": support, "step": median, "coherence": coherence, "visible": float(v.mean())})
    return sides


def judge(photo, q, source):
    """A candidate with its evidence and a score in 0-1; None when its shape rules it out."""
    q = order(q)
    if not plausible(q, photo.bgr.shape):
        return None
    sides = evidence(photo, q)
    support = [s["support"] * min(1.0, s["coherence"] / 0.7) for s in sides]
    score = 0.5 * float(np.mean(support)) + 0.5 * min(support)
    return {"quad": q, "source": source, "sides": sides, "support": support, "score": score,
            "area": area(q) / (photo.w * photo.h)}


# --- candidates --------------------------------------------------------------------------------------

def hull_to_quad(points):
    """The quadrilateral around a convex polygon that adds the least area: repeatedly drop the side
    whose two neighbours, extended until they meet, add the smallest triangle. Its corners are where
    straight sides meet, as for a sheet with rounded or dog-eared corners."""
    hull = cv2.convexHull(np.asarray(points, np.float32).reshape(-1, 1, 2)).reshape(-1, 2).astype(np.float64)
    if len(hull) < 4:
        return None
    perimeter = cv2.arcLength(hull.astype(np.float32).reshape(-1, 1, 2), True)
    hull = cv2.approxPolyDP(hull.astype(np.float32).reshape(-1, 1, 2), 0.005 * perimeter, True)
    hull = [p.astype(np.float64) for p in hull.reshape(-1, 2)]
    if len(hull) < 4:
        return None
    while len(hull) > 4:
        n = len(hull)
        best, best_i, best_point = math.inf, None, None
        for i in range(n):
            # side i runs from hull[i] to hull[i + 1]; its neighbours are sides i - 1 and i + 1
            a, b, c, d = hull[i - 1], hull[i], hull[(i + 1) % n], hull[(i + 2) % n]
            point = intersect(line_through(a, b), line_through(c, d))
            if point is None:
                continue
            # the new corner must lie beyond side i, on the far side from the polygon
            added = 0.5 * abs((c[0] - b[0]) * (point[1] - b[1]) - (c[1] - b[1]) * (point[0] - b[0]))
            if np.dot(point - b, b - a) < 0 or np.dot(point - c, c - d) < 0:
                continue
            if added < best:
                best, best_i, best_point = added, i, point
        if best_i is None:
            return None
        i = best_i
        hull[i] = best_point
        del hull[(i + 1) % n]
    return np.array(hull)


def auto_canny(grey):
    """Canny with thresholds from the image's own gradients: the strongest tenth of them are
    edges, half that continues one."""
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.abs(gx) + np.abs(gy)  # Canny's own L1 gradient
    high = max(20.0, float(np.percentile(magnitude, 90)))
    return cv2.Canny(grey, high / 2, high)


def edge_candidates(photo):
    quads = []
    for level in (1, 2, 4):
        grey = photo.grey if level == 1 else cv2.resize(
            photo.grey, (photo.w // level, photo.h // level), interpolation=cv2.INTER_AREA)
        edges = auto_canny(cv2.GaussianBlur(grey, (5, 5), 0))
        edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        minimum = MIN_AREA * grey.shape[0] * grey.shape[1]
        for contour in contours:
            if len(contour) < 8:
                continue
            x, y, cw, ch = cv2.boundingRect(contour)
            if cw * ch < minimum:
                continue
            quad = hull_to_quad(contour.reshape(-1, 2))
            if quad is not None:
                quads.append(("edges/%d" % level, quad * level + (level - 1) / 2))
    return quads


def merged_lines(photo, level=1):
    """LSD segments merged into lines: each (a, b, c, strength, intervals) with a x + b y = c and the
    merged stretches along the line that segments cover."""
    grey = photo.grey if level == 1 else cv2.resize(
        photo.grey, (photo.w // level, photo.h // level), interpolation=cv2.INTER_AREA)
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    segments = lsd.detect(grey)[0]
    if segments is None:
        return []
    segments = segments.reshape(-1, 4) * level
    lengths = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    keep = lengths >= 0.02 * photo.diagonal
    segments, lengths = segments[keep], lengths[keep]
    lines = []  # [normal angle, c, sum of lengths, list of segments]
    for i in np.argsort(-lengths):
        x1, y1, x2, y2 = segments[i]
        theta = math.atan2(x2 - x1, -(y2 - y1))  # direction of the normal
        a, b = math.cos(theta), math.sin(theta)
        for line in lines:
            la, lb, lc = line[0]
            # same line: nearly the same direction, both ends close to it
            if abs(la * b - lb * a) < math.sin(math.radians(2)) and \
               abs(la * x1 + lb * y1 - lc) < 0.006 * photo.diagonal and \
               abs(la * x2 + lb * y2 - lc) < 0.006 * photo.diagonal:
                line[1].append(segments[i])
                line[2] += lengths[i]
                break
        else:
            lines.append([(a, b, a * x1 + b * y1), [segments[i]], lengths[i]])
    out = []
    for (a, b, c), members, strength in lines:
        if len(members) == 1:
            x1, y1, x2, y2 = members[0]
            length = math.hypot(x2 - x1, y2 - y1)
            direction = np.array([(x2 - x1) / length, (y2 - y1) / length])
            s0, s1 = sorted((float(direction @ members[0][:2]), float(direction @ members[0][2:])))
            out.append({"line": line_through((x1, y1), (x2, y2)), "direction": direction,
                        "strength": float(strength), "spans": [[s0, s1]]})
            continue
        points = np.array([[s[0], s[1]] for s in members] + [[s[2], s[3]] for s in members], np.float32)
        vx, vy, x0, y0 = cv2.fitLine(points, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        a, b = -vy, vx
        c = a * x0 + b * y0
        direction = np.array([vx, vy])
        spans = sorted(tuple(sorted((float(direction @ s[:2]), float(direction @ s[2:])))) for s in members)
        union = []
        for s0, s1 in spans:
            if union and s0 <= union[-1][1] + 0.01 * photo.diagonal:
                union[-1][1] = max(union[-1][1], s1)
            else:
                union.append([s0, s1])
        out.append({"line": (float(a), float(b), float(c)), "direction": direction, "strength": float(strength),
                    "spans": union})
    out.sort(key=lambda l: -l["strength"])
    return out


def line_candidates(photo, keep=30, best=24):
    """Quadrilaterals from the strongest merged lines, two nearly-parallel pairs crossing each
    other, ranked by how much of each of the four sides line segments cover; all in numpy."""
    lines = merged_lines(photo)[:keep]
    if len(lines) < 4:
        return []
    abc = np.array([l["line"] for l in lines])
    direction = np.array([l["direction"] for l in lines])
    # coverage of each line on a grid along it: cumulative sums make any stretch's share cheap
    cell = 0.005 * photo.diagonal
    bins = int(2 * photo.diagonal / cell) + 2
    covered = np.zeros((len(lines), bins))
    for n, l in enumerate(lines):
        for a, b in l["spans"]:
            i0 = int((a + photo.diagonal) / cell)
            i1 = int((b + photo.diagonal) / cell)
            covered[n, max(0, i0):min(bins, i1 + 1)] = 1
    cumulative = np.concatenate([np.zeros((len(lines), 1)), np.cumsum(covered, axis=1)], axis=1)

    sin = np.abs(abc[:, None, 0] * abc[None, :, 1] - abc[None, :, 0] * abc[:, None, 1])
    i, j = np.nonzero(np.triu(sin < math.sin(math.radians(30)), 1))  # near-parallel pairs
    if len(i) < 2:
        return []
    x, y = np.nonzero(np.triu(np.ones((len(i), len(i)), bool), 1))
    a, b, c, d = i[x], j[x], i[y], j[y]  # a, b opposite; c, d opposite
    ok = (a != c) & (a != d) & (b != c) & (b != d) & (sin[a, c] > math.sin(math.radians(30)))
    a, b, c, d = a[ok], b[ok], c[ok], d[ok]

    def meet(p, q):
        det = abc[p, 0] * abc[q, 1] - abc[q, 0] * abc[p, 1]
        det = np.where(np.abs(det) < 1e-9, 1e-9, det)
        return np.stack([(abc[p, 2] * abc[q, 1] - abc[q, 2] * abc[p, 1]) / det,
                         (abc[p, 0] * abc[q, 2] - abc[q, 0] * abc[p, 2]) / det], axis=-1)

    # corners in order around the quadrilateral: sides a, c, b, d
    corners = np.stack([meet(d, a), meet(a, c), meet(c, b), meet(b, d)], axis=1)  # (n, 4, 2)
    sides = [a, c, b, d]
    edge = np.roll(corners, -1, axis=1) - corners
    nxt = np.roll(edge, -1, axis=1)
    cross = edge[..., 0] * nxt[..., 1] - edge[..., 1] * nxt[..., 0]
    convex_ok = np.all(cross > 0, axis=1) | np.all(cross < 0, axis=1)
    area = 0.5 * np.abs(np.sum(corners[..., 0] * np.roll(corners[..., 1], -1, axis=1)
                                - np.roll(corners[..., 0], -1, axis=1) * corners[..., 1], axis=1))
    margin = 0.02 * photo.diagonal
    inside = np.all((corners[..., 0] > -margin) & (corners[..., 0] < photo.w + margin) &
                    (corners[..., 1] > -margin) & (corners[..., 1] < photo.h + margin), axis=1)
    ok = convex_ok & inside & (area >= MIN_AREA * photo.w * photo.h)
    if not ok.any():
        return []
    corners = corners[ok]
    sides = [s[ok] for s in sides]
    cover = []
    for k in range(4):
        line = sides[k]
        p, q = corners[:, k], corners[:, (k + 1) % 4]
        s0 = np.einsum("ij,ij->i", direction[line], p)
        s1 = np.einsum("ij,ij->i", direction[line], q)
        lo = np.clip(((np.minimum(s0, s1) + photo.diagonal) / cell).astype(int), 0, bins)
        hi = np.clip(((np.maximum(s0, s1) + photo.diagonal) / cell).astype(int), 0, bins)
        total = cumulative[line, hi] - cumulative[line, lo]
        cover.append(total / np.maximum(1, hi - lo))
    cover = np.stack(cover, axis=1)
    rank = cover.min(axis=1) + cover.mean(axis=1)
    top = np.argsort(-rank)[:best * 3]
    out = []
    for t in top:
        q = order(corners[t])
        if plausible(q, photo.bgr.shape):
            out.append(("lines", q))
            if len(out) == best:
                break
    return out


def region_candidates(photo):
    """The outline of the bright, colourless region: paper is lighter and greyer than most tables."""
    small = cv2.resize(photo.lab, (photo.w // 4, photo.h // 4), interpolation=cv2.INTER_AREA)
    chroma = np.hypot(small[..., 1] - 128, small[..., 2] - 128)
    quads = []
    for name, channel in (("bright", small[..., 0]), ("paper", small[..., 0] - 2 * chroma)):
        channel = cv2.normalize(channel, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
        _, mask = cv2.threshold(channel, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
            if cv2.contourArea(contour) < MIN_AREA * small.shape[0] * small.shape[1]:
                break
            quad = hull_to_quad(contour.reshape(-1, 2))
            if quad is not None:
                quads.append(("region/" + name, quad * 4 + 1.5))
    return quads


# --- refinement --------------------------------------------------------------------------------------

REACH = 0.012  # how far (share of the diagonal) a side may move when refitted to the edge


def refine(photo, q):
    """Each side refitted to the strongest edge across it nearby (of the side's own polarity),
    by a robust line fit; the corners are where the fitted sides meet."""
    centre = q.mean(axis=0)
    reach = max(4, int(REACH * photo.diagonal))
    offsets = np.arange(-reach, reach + 1, dtype=np.float32)
    lines = []
    for i in range(4):
        points, n = side_samples(q[i], q[(i + 1) % 4], centre, spacing=2.0, trim=0.12)
        probe = (points[:, None, :] + offsets[None, :, None] * n).astype(np.float32)
        gx = cv2.remap(photo.gx, probe[..., 0], probe[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        gy = cv2.remap(photo.gy, probe[..., 0], probe[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        across = gx * n[0] + gy * n[1]  # positive: brighter outside
        # the side's polarity: which sign the strongest responses take along most of it
        sign = 1.0 if np.sum(np.max(across, axis=1)) >= np.sum(np.max(-across, axis=1)) else -1.0
        across = across * sign
        # a mild preference for staying close, so that a text line further in does not win
        across = across * (1 - 0.3 * np.abs(offsets) / reach)[None, :]
        best = np.argmax(across, axis=1)
        strength = across[np.arange(len(best)), best]
        good = strength > max(8.0, 0.5 * float(np.median(strength)))
        if good.sum() < 6:
            lines.append(line_through(q[i], q[(i + 1) % 4]))
            continue
        found = points[good] + offsets[best[good]][:, None] * n
        vx, vy, x0, y0 = cv2.fitLine(found.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append(line_through((x0, y0), (x0 + vx, y0 + vy)))
    corners = [intersect(lines[i - 1], lines[i]) for i in range(4)]
    if any(c is None for c in corners):
        return q
    return np.array(corners)


# --- the finder --------------------------------------------------------------------------------------

def same(a, b, tolerance):
    return float(np.max(np.hypot(*(a - b).T))) < tolerance


def candidates(photo):
    raw = edge_candidates(photo) + line_candidates(photo) + region_candidates(photo)
    judged = []
    for source, quad in raw:
        quad = order(quad)
        if any(same(quad, j["raw"], 0.01 * photo.diagonal) for j in judged):
            continue
        j = judge(photo, quad, source)
        if j is None:
            continue
        j["raw"] = quad
        judged.append(j)
    judged.sort(key=lambda j: -j["score"])
    # refine the leaders: their corners then sit where the edges really are
    out = []
    for j in judged[:REFINED]:
        refined = judge(photo, refine(photo, j["quad"]), j["source"] + "+refined")
        out.append(refined if refined is not None and refined["score"] >= j["score"] - 0.02 else j)
    return out + judged[REFINED:]


REFINED = 8  # how many of the best candidates are refined
ACCEPT = 0.7  # the least score taken as a sheet


def contains(outer, inner, slack):
    """Every corner of `inner` lies inside the convex `outer`, or outside it by no more than `slack`."""
    centre = outer.mean(axis=0)
    for i in range(4):
        p, q = outer[i], outer[(i + 1) % 4]
        d = q - p
        n = np.array([-d[1], d[0]]) / (np.hypot(*d) or 1)
        if n @ (centre - p) < 0:
            n = -n
        if np.any((inner - p) @ n < -slack):
            return False
    return True


def ring_is_sheet(photo, outer, inner):
    """Whether the ring between `inner` and a larger `outer` holding it looks unlike what lies
    just outside `outer` (colour and texture): then it is more sheet, and `outer` the sheet's edge;
    wood or cloth like the table around it would make `outer` a quadrilateral of table."""
    small = photo.small_lab
    f = small.shape[1] / photo.w
    big = np.zeros(small.shape[:2], np.uint8)
    cv2.fillConvexPoly(big, np.round(outer * f).astype(np.int32), 255)
    hole = np.zeros_like(big)
    cv2.fillConvexPoly(hole, np.round(inner * f).astype(np.int32), 255)
    ring = cv2.subtract(big, cv2.dilate(hole, np.ones((3, 3), np.uint8)))
    width = max(3, int(0.03 * max(small.shape[:2])))
    around = cv2.subtract(cv2.dilate(big, np.ones((width, width), np.uint8)), cv2.dilate(big, np.ones((3, 3), np.uint8)))
    if cv2.countNonZero(ring) < 20 or cv2.countNonZero(around) < 20:
        return True
    features = []
    for mask in (ring, around):
        pixels = small[mask > 0]
        features.append(np.concatenate([np.median(pixels, axis=0), [photo.small_texture[mask > 0].mean()]]))
    return float(np.linalg.norm(features[0] - features[1])) >= STEP


HOLD = 0.15  # how much weaker the evidence of a larger candidate holding the best one may be


def choose(found, photo):
    """The best-supported convincing candidate; then, as long as a larger convincing one holds it
    with evidence nearly as good and the ring between them is not like the table around the larger
    one (a sheet holds printed boxes, pictures and stripes; a quadrilateral of wood grain around a
    sheet holds more wood), the largest of those instead."""
    convincing = [j for j in found if j["score"] >= ACCEPT]
    if not convincing:
        return None
    best = max(convincing, key=lambda j: j["score"])
    floor = best["score"] - HOLD
    while True:
        outer = [j for j in convincing if j["area"] > 1.15 * best["area"] and j["score"] >= floor
                 and contains(j["quad"], best["quad"], 0.01 * photo.diagonal)
                 and ring_is_sheet(photo, j["quad"], best["quad"])]
        if not outer:
            return best
        best = max(outer, key=lambda j: j["area"])


MARGIN = 0.003  # the cut is widened by this share of the diagonal: a sliver of table over a sliver of sheet


def widen(q, by):
    """Each side moved outward by `by` pixels; the corners where the moved sides meet."""
    centre = q.mean(axis=0)
    lines = []
    for i in range(4):
        a, b, c = line_through(q[i], q[(i + 1) % 4])
        if a * centre[0] + b * centre[1] < c:
            lines.append((a, b, c + by))
        else:
            lines.append((a, b, c - by))
    corners = [intersect(lines[i - 1], lines[i]) for i in range(4)]
    return q if any(p is None for p in corners) else np.array(corners)


def find_sheet(path, debug=None):
    image, scale, size, f35 = load(path)
    photo = Photo(image)
    found = candidates(photo)
    best = choose(found, photo)
    if best is not None and "refined" not in best["source"]:
        refined = judge(photo, refine(photo, best["quad"]), best["source"] + "+refined")
        if refined is not None and refined["score"] >= min(ACCEPT, best["score"] - 0.02):
            best = refined
    if debug is not None:
        draw(photo, found, best, debug)
    if best is None:
        return None
    quad = widen(best["quad"], MARGIN * photo.diagonal)
    corners = [(float(x * scale + (scale - 1) / 2), float(y * scale + (scale - 1) / 2)) for x, y in quad]
    proportions, _, method, f = perspective_proportions(corners, size, f35)
    paper, snapped = snap(proportions)
    return {"corners": corners, "proportions": snapped, "measured": proportions, "paper": paper,
            "focal": method, "score": best["score"], "source": best["source"],
            "support": best["support"]}


def draw(photo, found, best, out):
    canvas = photo.bgr.copy()
    for j in found[:12][::-1]:
        cv2.polylines(canvas, [j["quad"].astype(np.int32).reshape(-1, 1, 2)], True, (0, 200, 255), 1)
    if best is not None:
        cv2.polylines(canvas, [best["quad"].astype(np.int32).reshape(-1, 1, 2)], True, (0, 255, 0), 2)
    cv2.imwrite(out, canvas)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("photo")
    parser.add_argument("--debug")
    args = parser.parse_args()
    image, scale, size, f35 = load(args.photo)
    photo = Photo(image)
    found = candidates(photo)
    for j in found[:12]:
        print(f"{j['score']:.2f} area {j['area']:.2f} {j['source']:22} support "
              + " ".join(f"{s:.2f}" for s in j["support"]) + "  steps "
              + " ".join(f"{s['step']:.0f}/{s['coherence']:.2f}" for s in j["sides"]))
    result = find_sheet(args.photo, args.debug)
    print(result if result else "no sheet")


if __name__ == "__main__":
    sys.exit(main())
