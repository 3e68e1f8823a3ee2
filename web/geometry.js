// geometry.js — the arithmetic of picking up and changing what is drawn: boxes, the lasso,
// handles, and an unsaved mark or a saved annotation's change moved from one box into another.
// Pure: page points (as shown, y down) in and out, tested without a browser
// (web/tests/geometry.test.mjs).

export const NOTE_SIZE = 20;   // the server draws a note as a 20 pt icon, top-left at `at`

const round = (v) => Math.round(v * 100) / 100;

/** The box [x0, y0, x1, y1] two corners span. */
export function boxOf(a, b) {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
}

export function union(boxes) {
  if (!boxes.length) return null;
  return boxes.reduce((u, b) => [Math.min(u[0], b[0]), Math.min(u[1], b[1]), Math.max(u[2], b[2]), Math.max(u[3], b[3])]);
}

export const centre = (b) => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];
export const area = (b) => (b[2] - b[0]) * (b[3] - b[1]);
export const inside = (p, b, pad = 0) => p[0] >= b[0] - pad && p[0] <= b[2] + pad && p[1] >= b[1] - pad && p[1] <= b[3] + pad;

/** The box an unsaved mark covers (its stroke's half width around its points). */
export function editBox(e) {
  const pad = (e.width || 0) / 2;
  const around = (points) => {
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    return [Math.min(...xs) - pad, Math.min(...ys) - pad, Math.max(...xs) + pad, Math.max(...ys) + pad];
  };
  switch (e.op) {
    case 'ink': return around(e.strokes.flat());
    case 'highlight': case 'underline': case 'strikeout':
      return around(e.rects.flatMap((r) => [[r[0], r[1]], [r[2], r[3]]]));
    case 'line': case 'arrow': return around([e.from, e.to]);
    case 'polygon': return around(e.points);
    case 'loupe': return [e.at[0] - e.radius, e.at[1] - e.radius, e.at[0] + e.radius, e.at[1] + e.radius];
    case 'note': return [e.at[0], e.at[1], e.at[0] + NOTE_SIZE, e.at[1] + NOTE_SIZE];
    default: return e.box;
  }
}

/** Is the point inside the polygon (the lasso)? Even-odd rule. */
export function inPolygon([x, y], polygon) {
  let within = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i], [xj, yj] = polygon[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) within = !within;
  }
  return within;
}

/** What the lasso takes: each box whose centre it encloses. Returns their indexes. */
export function lassoed(polygon, boxes) {
  if (polygon.length < 3) return [];
  return boxes.flatMap((box, index) => (inPolygon(centre(box), polygon) ? [index] : []));
}

/** A point of `from` carried into `to` (moved and scaled with the box). */
export function mapPoint(p, from, to) {
  const sx = from[2] > from[0] ? (to[2] - to[0]) / (from[2] - from[0]) : 1;
  const sy = from[3] > from[1] ? (to[3] - to[1]) / (from[3] - from[1]) : 1;
  return [round(to[0] + (p[0] - from[0]) * sx), round(to[1] + (p[1] - from[1]) * sy)];
}

export function mapBox(b, from, to) {
  return boxOf(mapPoint([b[0], b[1]], from, to), mapPoint([b[2], b[3]], from, to));
}

/** An unsaved mark moved and scaled from `from` into `to`: a new edit, the old one untouched. */
export function transformEdit(e, from, to) {
  const p = (q) => mapPoint(q, from, to);
  const b = (box) => mapBox(box, from, to);
  switch (e.op) {
    case 'ink': return { ...e, strokes: e.strokes.map((s) => s.map(p)) };
    case 'highlight': case 'underline': case 'strikeout': return { ...e, rects: e.rects.map(b) };
    case 'line': case 'arrow': return { ...e, from: p(e.from), to: p(e.to) };
    case 'note': return { ...e, at: p(e.at) };
    case 'polygon': return { ...e, points: e.points.map(p) };
    case 'loupe': {
      const [x0, , x1] = b(editBox(e));
      return { ...e, at: p(e.at), radius: round((x1 - x0) / 2) };
    }
    case 'change': return { ...e, box: b(e.box) };
    default: return e.box ? { ...e, box: b(e.box) } : e;
  }
}

/** The box within `limit` (the page) nearest to `box`, the same size where it fits. */
export function keepOn(box, limit) {
  const w = Math.min(box[2] - box[0], limit[2] - limit[0]), h = Math.min(box[3] - box[1], limit[3] - limit[1]);
  const x = Math.min(Math.max(box[0], limit[0]), limit[2] - w), y = Math.min(Math.max(box[1], limit[1]), limit[3] - h);
  return [x, y, x + w, y + h].map(round);
}

/** The four corner handles of a box, by name. */
export function handles(b) {
  return { nw: [b[0], b[1]], ne: [b[2], b[1]], se: [b[2], b[3]], sw: [b[0], b[3]] };
}

/** The handle within `reach` of the point, or null. */
export function handleAt(p, b, reach) {
  for (const [name, q] of Object.entries(handles(b))) if (Math.hypot(p[0] - q[0], p[1] - q[1]) <= reach) return name;
  return null;
}

/**
 * The box a corner handle dragged to `p` makes: the opposite corner stays, and the box is at
 * least `min` points each way. With `keepAspect`, its proportions stay (as a signature's do).
 */
export function resize(b, handle, p, { min = 4, keepAspect = false } = {}) {
  const fixed = { nw: [b[2], b[3]], ne: [b[0], b[3]], se: [b[0], b[1]], sw: [b[2], b[1]] }[handle];
  const signX = handle === 'ne' || handle === 'se' ? 1 : -1, signY = handle === 'sw' || handle === 'se' ? 1 : -1;
  let w = Math.max(min, (p[0] - fixed[0]) * signX), h = Math.max(min, (p[1] - fixed[1]) * signY);
  if (keepAspect && b[2] > b[0] && b[3] > b[1]) {
    const k = Math.max(w / (b[2] - b[0]), h / (b[3] - b[1]));
    w = (b[2] - b[0]) * k; h = (b[3] - b[1]) * k;
  }
  return boxOf(fixed, [fixed[0] + w * signX, fixed[1] + h * signY]).map(round);
}

/** Degrees, clockwise on the page as shown (y down), from straight up at the centre to `p`. */
export function angleFrom(c, p) {
  return (Math.atan2(p[0] - c[0], -(p[1] - c[1])) * 180) / Math.PI;
}

/** An angle snapped to the nearest multiple of `step` when within `within` degrees of it. */
export function snapAngle(degrees, step = 45, within = 4) {
  const nearest = Math.round(degrees / step) * step;
  return Math.abs(degrees - nearest) <= within ? nearest : Math.round(degrees * 10) / 10;
}

/**
 * Two changes of one saved annotation, made one after the other, as one: the later box, text,
 * colour, width, opacity and size win; turns add up. (A save sends one change per annotation.)
 */
export function mergeChanges(first, later) {
  const merged = { ...first, ...later };
  const turn = (first.rotate || 0) + (later.rotate || 0);
  if (turn) merged.rotate = Math.round(((turn + 540) % 360 - 180) * 10) / 10; else delete merged.rotate;
  return merged;
}

// ---------------------------------------------------------------------------------------------
// The ruler: a straight edge of `length` × `width` points about its centre `c`, turned `angle`
// degrees clockwise (as shown, y down). Pen strokes begun beside one of its long edges follow it.

const unit = (angle) => [Math.cos((angle * Math.PI) / 180), Math.sin((angle * Math.PI) / 180)];

/** A point in the ruler's own terms: `along` its length from the centre, `across` it (+ is its lower edge at 0°). */
export function rulerLocal(ruler, p) {
  const [ux, uy] = unit(ruler.angle), d = [p[0] - ruler.c[0], p[1] - ruler.c[1]];
  return { along: d[0] * ux + d[1] * uy, across: -d[0] * uy + d[1] * ux };
}

/** Which long edge (+1, -1) a point just outside it lies by, within `reach` points; 0 for neither. */
export function rulerEdgeNear(ruler, p, reach) {
  const { along, across } = rulerLocal(ruler, p);
  if (Math.abs(along) > ruler.length / 2 + reach) return 0;
  const beyond = Math.abs(across) - ruler.width / 2;
  return beyond >= -1 && beyond <= reach ? Math.sign(across) || 1 : 0;
}

/** Is the point on the ruler itself? */
export function onRuler(ruler, p) {
  const { along, across } = rulerLocal(ruler, p);
  return Math.abs(along) <= ruler.length / 2 && Math.abs(across) <= ruler.width / 2;
}

/** The point carried straight onto the ruler's `edge` (+1 or -1), where a pen drawing along it lands. */
export function snapToRuler(ruler, edge, p) {
  const [ux, uy] = unit(ruler.angle), { along } = rulerLocal(ruler, p), off = (edge * ruler.width) / 2;
  return [round(ruler.c[0] + along * ux - off * uy), round(ruler.c[1] + along * uy + off * ux)];
}

/** The ruler's angle as shown on it: 0 to 179 degrees, a straight edge having no direction. */
export function rulerDegrees(angle) {
  return ((Math.round(angle) % 180) + 180) % 180;
}
