// shapes.js — what a rough stroke was meant to be, as Notes' shape recognition has it: draw a
// line, a rectangle or an oval with the pen, marker or pencil and hold still at the end, and it
// becomes that shape (draw.js; one undo turns it back into the stroke). Pure: points in, a shape
// or null out, so it is tested without a browser (web/tests/shapes.test.mjs).

/** How long the pointer rests at the end of a stroke before it becomes a shape. */
export const HOLD_MS = 600;

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/**
 * The shape the points (page points, y down) were drawn as: {op: 'line', from, to},
 * {op: 'rect', box} or {op: 'oval', box} (box [x0, y0, x1, y1]), or null when none is near.
 */
export function recognize(points) {
  if (points.length < 5) return null;
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const box = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  const width = box[2] - box[0], height = box[3] - box[1], diagonal = Math.hypot(width, height);
  if (diagonal < 12) return null;
  let length = 0;
  for (let i = 1; i < points.length; i++) length += dist(points[i - 1], points[i]);
  const first = points[0], last = points[points.length - 1], chord = dist(first, last);

  // A line: it goes nearly straight from its start to its end.
  if (chord > 0.9 * length) {
    const deviation = Math.max(...points.map((p) => Math.abs((last[0] - first[0]) * (first[1] - p[1]) - (first[0] - p[0]) * (last[1] - first[1])) / chord));
    if (deviation < 0.08 * chord) return { op: 'line', from: first, to: last };
  }
  // A closed shape ends near where it began, and goes round once.
  if (chord > 0.25 * diagonal || length < 1.5 * diagonal || length > 4.5 * diagonal) return null;
  if (Math.min(width, height) < 0.15 * Math.max(width, height)) return null;
  const cx = (box[0] + box[2]) / 2, cy = (box[1] + box[3]) / 2, rx = width / 2, ry = height / 2;
  // How far the points lie from an oval in the box, and from the box's edges, as shares.
  const ovalError = points.reduce((sum, [x, y]) => sum + Math.abs(Math.hypot((x - cx) / rx, (y - cy) / ry) - 1), 0) / points.length;
  const rectError = points.reduce((sum, [x, y]) => sum + Math.min(Math.abs(x - box[0]) / rx, Math.abs(x - box[2]) / rx,
    Math.abs(y - box[1]) / ry, Math.abs(y - box[3]) / ry), 0) / points.length;
  if (rectError < ovalError && rectError < 0.08) return { op: 'rect', box };
  if (ovalError < 0.1) return { op: 'oval', box };
  return null;
}
