// shapes.js — what a rough stroke was meant to be, as Notes' shape recognition has it: draw a
// line, an arrow, a rectangle, an oval, a star or a speech bubble with the pen, marker or pencil
// and hold still at the end, and it becomes that shape (draw.js; one undo turns it back into the
// stroke). Pure: points in, a shape or null out, so it is tested without a browser
// (web/tests/shapes.test.mjs).

/** How long the pointer rests at the end of a stroke before it becomes a shape. */
export const HOLD_MS = 600;

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const round = (v) => Math.round(v * 100) / 100;

/** How far `p` lies from the line through a and b. */
function offLine(p, a, b) {
  const length = dist(a, b) || 1;
  return Math.abs((b[0] - a[0]) * (a[1] - p[1]) - (a[0] - p[0]) * (b[1] - a[1])) / length;
}

function pathLength(points) {
  let length = 0;
  for (let i = 1; i < points.length; i++) length += dist(points[i - 1], points[i]);
  return length;
}

function boundsOf(points) {
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * The shape the points (page points, y down) were drawn as, or null when none is near:
 * {op: 'line', from, to}, {op: 'arrow', from, to}, {op: 'rect', box}, {op: 'oval', box}
 * (box [x0, y0, x1, y1]), or {op: 'polygon', points, name: 'star' | 'speech bubble'}.
 */
export function recognize(points) {
  if (points.length < 5) return null;
  const box = boundsOf(points);
  const width = box[2] - box[0], height = box[3] - box[1], diagonal = Math.hypot(width, height);
  if (diagonal < 12) return null;
  const length = pathLength(points);
  const first = points[0], last = points[points.length - 1], chord = dist(first, last);

  // A line: it goes nearly straight from its start to its end.
  if (chord > 0.9 * length) {
    const deviation = Math.max(...points.map((p) => offLine(p, first, last)));
    if (deviation < 0.08 * chord) return { op: 'line', from: first, to: last };
  }
  const pointed = arrow(points);
  if (pointed) return pointed;
  // A closed shape ends near where it began, and goes round once.
  if (chord > 0.25 * diagonal || length < 1.5 * diagonal || length > 4.5 * diagonal) return null;
  if (Math.min(width, height) < 0.15 * Math.max(width, height)) return null;
  const body = closedShape(points, box);
  if (body) return body;
  return star(points) || bubble(points);
}

/** How far the points lie from an oval in the box, and from the box's edges, as shares. */
function closedShape(points, box) {
  const cx = (box[0] + box[2]) / 2, cy = (box[1] + box[3]) / 2, rx = (box[2] - box[0]) / 2, ry = (box[3] - box[1]) / 2;
  const ovalError = points.reduce((sum, [x, y]) => sum + Math.abs(Math.hypot((x - cx) / rx, (y - cy) / ry) - 1), 0) / points.length;
  const rectError = points.reduce((sum, [x, y]) => sum + Math.min(Math.abs(x - box[0]) / rx, Math.abs(x - box[2]) / rx,
    Math.abs(y - box[1]) / ry, Math.abs(y - box[3]) / ry), 0) / points.length;
  if (rectError < ovalError && rectError < 0.08) return { op: 'rect', box };
  if (ovalError < 0.1) return { op: 'oval', box };
  return null;
}

/**
 * An arrow drawn in one stroke: straight out to its tip (the point farthest from the start), then
 * a short head that turns back from the tip towards the start's side.
 */
function arrow(points) {
  const first = points[0];
  let tip = 0;
  points.forEach((p, i) => { if (dist(first, p) > dist(first, points[tip])) tip = i; });
  const reach = dist(first, points[tip]);
  const shaft = points.slice(0, tip + 1), head = points.slice(tip);
  if (reach < 30 || head.length < 3) return null;
  if (Math.max(...shaft.map((p) => offLine(p, first, points[tip]))) > 0.08 * reach) return null;
  if (pathLength(shaft) > 1.15 * reach) return null;
  const headLength = pathLength(head);
  if (headLength < 0.12 * reach || headLength > 1.2 * reach) return null;
  if (head.some((p) => dist(p, points[tip]) > 0.45 * reach)) return null;
  // The head's far end lies back towards the start, within 75° of the shaft.
  const wing = head.reduce((far, p) => (dist(p, points[tip]) > dist(far, points[tip]) ? p : far), head[0]);
  const back = [first[0] - points[tip][0], first[1] - points[tip][1]], out = [wing[0] - points[tip][0], wing[1] - points[tip][1]];
  const cosine = (back[0] * out[0] + back[1] * out[1]) / (Math.hypot(...back) * Math.hypot(...out) || 1);
  if (cosine < Math.cos((75 * Math.PI) / 180)) return null;
  return { op: 'arrow', from: first, to: points[tip] };
}

/** Each point's distance from the points' centre of mass, and that centre. */
function radii(points) {
  const c = [points.reduce((s, p) => s + p[0], 0) / points.length, points.reduce((s, p) => s + p[1], 0) / points.length];
  return { c, r: points.map((p) => dist(p, c)) };
}

/** The runs of points farther than `high` from the centre (with a hysteresis down to `low`), round the loop. */
function excursions(r, high, low) {
  const runs = [];
  let run = null;
  // Start where the path is near the centre, so that no run is cut in two by the loop's ends.
  const start = r.findIndex((v) => v < low);
  if (start < 0) return runs;
  for (let k = 0; k < r.length; k++) {
    const i = (start + k) % r.length;
    if (!run && r[i] > high) run = [i];
    else if (run && r[i] > low) run.push(i);
    else if (run) { runs.push(run); run = null; }
  }
  if (run) runs.push(run);
  return runs;
}

/** A star of five points: five excursions out from its centre, with deep notches between. */
function star(points) {
  const { c, r } = radii(points);
  const max = Math.max(...r), min = Math.min(...r);
  if (min > 0.62 * max) return null;
  const mid = (max + min) / 2, swing = max - min;
  const runs = excursions(r, mid + 0.2 * swing, mid - 0.05 * swing);
  if (runs.length !== 5) return null;
  const tips = runs.map((run) => run.reduce((best, i) => (r[i] > r[best] ? i : best), run[0]));
  const outer = tips.reduce((s, i) => s + r[i], 0) / 5;
  if (tips.some((i) => r[i] < 0.75 * outer)) return null;
  // Upright as drawn: the regular star through the first tip's angle.
  const a0 = Math.atan2(points[tips[0]][1] - c[1], points[tips[0]][0] - c[0]);
  const corners = [];
  for (let k = 0; k < 10; k++) {
    const radius = k % 2 ? outer * 0.382 : outer, a = a0 + (k * Math.PI) / 5;
    corners.push([round(c[0] + radius * Math.cos(a)), round(c[1] + radius * Math.sin(a))]);
  }
  return { op: 'polygon', points: corners, name: 'star' };
}

/** The angle (degrees) the path turns through at point i, seen `k` points either side: 180 is straight on. */
function openingAt(points, i, k) {
  const a = points[i - k], p = points[i], b = points[i + k];
  const u = [a[0] - p[0], a[1] - p[1]], v = [b[0] - p[0], b[1] - p[1]];
  const cosine = (u[0] * v[0] + u[1] * v[1]) / ((Math.hypot(...u) * Math.hypot(...v)) || 1);
  return (Math.acos(Math.max(-1, Math.min(1, cosine))) * 180) / Math.PI;
}

/** From the tip, the points that go straight out along the tail (stepping by `step`), until the path turns. */
function tailSide(points, tip, step) {
  let i = tip + step;
  if (i < 0 || i >= points.length) return [];
  const out = [points[i][0] - points[tip][0], points[i][1] - points[tip][1]];
  const taken = [];
  for (; i >= 0 && i < points.length; i += step) {
    const previous = points[i - step];
    const d = [points[i][0] - previous[0], points[i][1] - previous[1]];
    const cosine = (d[0] * out[0] + d[1] * out[1]) / ((Math.hypot(...d) * Math.hypot(...out)) || 1);
    if (cosine < Math.cos((40 * Math.PI) / 180)) break;
    taken.push(i);
  }
  return taken;
}

/**
 * A speech bubble: an oval or a rectangle with one tail out of it. The tail is the one place
 * where the path turns sharply back on itself; without it the rest must be an oval or a rectangle.
 */
function bubble(points) {
  const k = Math.max(2, Math.round(points.length / 40));
  const spikes = [];
  for (let i = k; i < points.length - k; i++) if (openingAt(points, i, k) < 60) spikes.push(i);
  if (!spikes.length) return null;
  const tipIndex = spikes.reduce((best, i) => (openingAt(points, i, k) < openingAt(points, best, k) ? i : best), spikes[0]);
  const tail = new Set([tipIndex, ...tailSide(points, tipIndex, -1), ...tailSide(points, tipIndex, 1)]);
  if (tail.size > 0.35 * points.length) return null;
  // One tail: every other sharp turn is where it meets the body.
  const [from, to] = [Math.min(...tail), Math.max(...tail)];
  if (spikes.some((i) => i < from - k || i > to + k)) return null;
  const rest = points.filter((_, i) => !tail.has(i));
  const box = boundsOf(rest);
  const body = closedShape(rest, box);
  if (!body) return null;
  const tip = points[tipIndex];
  const cx = (box[0] + box[2]) / 2, cy = (box[1] + box[3]) / 2, rx = (box[2] - box[0]) / 2, ry = (box[3] - box[1]) / 2;
  if (Math.hypot((tip[0] - cx) / rx, (tip[1] - cy) / ry) < 1.3) return null;   // the tail must reach out of the body
  // The body's outline, a point every 7.5°, with the tail's tip in the gap nearest to it.
  const outline = [];
  const tipAngle = Math.atan2((tip[1] - cy) / ry, (tip[0] - cx) / rx);
  const gap = (12 * Math.PI) / 180;
  for (let k = 0; k < 48; k++) {
    const a = tipAngle + gap + (k * (2 * Math.PI - 2 * gap)) / 47;
    const [ux, uy] = [Math.cos(a), Math.sin(a)];
    // An oval's point at that angle, or where the ray meets the rectangle.
    const s = body.op === 'oval' ? 1 : 1 / Math.max(Math.abs(ux), Math.abs(uy));
    outline.push([round(cx + rx * ux * s), round(cy + ry * uy * s)]);
  }
  outline.push([round(tip[0]), round(tip[1])]);
  return { op: 'polygon', points: outline, name: 'speech bubble' };
}
