// ruler.js — the ruler, as Notes has it: a straight edge over the page (`#tool-ruler` shows and
// hides it), moved with one finger or the mouse, turned with two fingers or by its knob, its angle
// written on it. A pen, marker or pencil stroke begun just beside one of its long edges follows
// that edge (draw.js asks `snapStart` and `snapPoint`). The ruler is a DOM element of its own
// over the page, so that with no tool chosen the page still scrolls everywhere else.
//
// Its place is in page points (y down), as everything the tools draw; geometry.js does the sums.

import { onRuler, rulerDegrees, rulerEdgeNear, snapToRuler, angleFrom } from './geometry.js';

const SNAP_REACH = 18;   // points beside an edge where a stroke starts to follow it

let host = null;         // { page(), pixelsPerPoint(), toPagePoint(x, y) }
let ruler = null;        // { c, angle, length, width } while shown
let element, label;
const pointers = new Map();   // pointerId → page point, on the ruler
let turning = false;          // the knob is held

const $ = (id) => document.getElementById(id);

export function initRuler(theHost) {
  host = theHost;
  element = $('ruler');
  label = $('ruler-angle');
  $('tool-ruler').addEventListener('click', () => toggle());
  element.addEventListener('pointerdown', onDown);
  element.addEventListener('pointermove', onMove);
  element.addEventListener('pointerup', onUp);
  element.addEventListener('pointercancel', onUp);
  $('ruler-turn').addEventListener('pointerdown', (event) => { turning = true; onDown(event); });
}

export function rulerShown() { return Boolean(ruler); }

function toggle() {
  const page = host.page();
  if (!ruler && page) {
    ruler = { c: [page.width / 2, page.height / 2], angle: 0, length: page.width * 0.85, width: 36 };
  } else {
    ruler = null;
  }
  $('tool-ruler').setAttribute('aria-pressed', String(Boolean(ruler)));
  layoutRuler();
}

/** Place the element over the page (after every zoom or page change). */
export function layoutRuler() {
  if (!element) return;
  element.hidden = !ruler || !host.page();
  if (element.hidden) return;
  const k = host.pixelsPerPoint();
  Object.assign(element.style, {
    left: `${ruler.c[0] * k}px`, top: `${ruler.c[1] * k}px`,
    width: `${ruler.length * k}px`, height: `${ruler.width * k}px`,
    transform: `translate(-50%, -50%) rotate(${ruler.angle}deg)`,
  });
  element.dataset.angle = String(rulerDegrees(ruler.angle));
  label.textContent = `${rulerDegrees(ruler.angle)}°`;
}

// ---------------------------------------------------------------------------------------------
// Moving and turning

function onDown(event) {
  event.preventDefault();
  event.stopPropagation();
  element.setPointerCapture(event.pointerId);
  pointers.set(event.pointerId, host.toPagePoint(event.clientX, event.clientY, { clamp: false }));
}

function onMove(event) {
  if (!pointers.has(event.pointerId)) return;
  const before = [...pointers.values()];
  pointers.set(event.pointerId, host.toPagePoint(event.clientX, event.clientY, { clamp: false }));
  const after = [...pointers.values()];
  if (turning) {
    // The knob sits at the ruler's right end: the angle is the pointer's about the centre.
    ruler.angle = Math.round((angleFrom(ruler.c, after[0]) - 90) * 10) / 10;
  } else if (after.length >= 2) {
    // Two fingers: the ruler turns as the line between them turns, and moves with their middle.
    const turn = (a, b) => (Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI;
    ruler.angle += turn(after[0], after[1]) - turn(before[0], before[1]);
    ruler.c = [ruler.c[0] + (after[0][0] + after[1][0] - before[0][0] - before[1][0]) / 2,
      ruler.c[1] + (after[0][1] + after[1][1] - before[0][1] - before[1][1]) / 2];
  } else {
    const i = [...pointers.keys()].indexOf(event.pointerId);
    ruler.c = [ruler.c[0] + after[i][0] - before[i][0], ruler.c[1] + after[i][1] - before[i][1]];
  }
  layoutRuler();
}

function onUp(event) {
  pointers.delete(event.pointerId);
  if (!pointers.size) turning = false;
}

// ---------------------------------------------------------------------------------------------
// Snapping, for draw.js

/** The edge (+1 or -1) a stroke starting at `p` follows, or 0. */
export function snapStart(p) {
  if (!ruler || onRuler(ruler, p)) return 0;
  return rulerEdgeNear(ruler, p, SNAP_REACH);
}

export function snapPoint(edge, p) {
  return edge && ruler ? snapToRuler(ruler, edge, p) : p;
}
