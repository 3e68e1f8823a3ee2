// pinch.js — two fingers on the page pan it and pinch-zoom it; one finger is left alone (it
// draws with the chosen tool, in draw.js, or with no tool scrolls #page-area natively).
//
// The zoom itself belongs to app.js (a factor on the fitted width, applied in layoutPage, so the
// page image and the canvas grow together and draw.js's toPagePoint stays right). Here we only
// follow the fingers: the zoom is the start's times how far apart they are now over then, and
// #page-area scrolls so the point of the page that was under their centre stays under it (which
// also pans when they move together).

const MIN_ZOOM = 1;   // the page as fitted
const MAX_ZOOM = 4;

let host = null;
let area = null;
const touches = new Map();   // pointerId → [clientX, clientY], touch pointers down in the area
let pinch = null;            // {distance, zoom, fx, fy}: at the start; fx, fy are fractions of the frame
let frameRequested = false;

/**
 * host: {
 *   area, frame            #page-area (scrolls) and #page-frame (the page image with its canvas)
 *   zoom()                 the zoom factor now
 *   setZoom(zoom, final)   lay the page out at it; `final` when the fingers lift (sharp image)
 *   onStart()              two fingers: drop the stroke the first one began
 * }
 */
export function initPinch(theHost) {
  host = theHost;
  area = host.area;
  // The capture phase: we see a finger before the canvas does, and keep the second one from it.
  area.addEventListener('pointerdown', onDown, true);
  area.addEventListener('pointermove', onMove, true);
  area.addEventListener('pointerup', onUp, true);
  area.addEventListener('pointercancel', onUp, true);
}

function onDown(event) {
  if (event.pointerType !== 'touch') return;
  if (event.target.closest && event.target.closest('#ruler')) return;   // fingers on the ruler turn the ruler
  if (event.isPrimary) { touches.clear(); pinch = null; }   // a new touch: no finger of an old one is down
  touches.set(event.pointerId, [event.clientX, event.clientY]);
  if (touches.size < 2) return;
  event.stopPropagation();   // a second finger never draws
  event.preventDefault();
  if (!pinch) begin();
}

function begin() {
  host.onStart();
  // The fingers belong to the area now, wherever they go (the first was the canvas's).
  for (const id of touches.keys()) {
    try { area.setPointerCapture(id); } catch { /* already lifted */ }
  }
  const [centre, distance] = fingers();
  const r = host.frame.getBoundingClientRect();
  pinch = { distance: Math.max(distance, 1), zoom: host.zoom(), fx: (centre[0] - r.left) / r.width, fy: (centre[1] - r.top) / r.height };
}

function onMove(event) {
  if (!touches.has(event.pointerId)) return;
  touches.set(event.pointerId, [event.clientX, event.clientY]);
  if (!pinch) return;
  event.stopPropagation();
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(() => { frameRequested = false; if (pinch) follow(); });
}

function onUp(event) {
  if (!touches.has(event.pointerId)) return;
  if (pinch && frameRequested) follow();   // the last move, before the finger is forgotten
  touches.delete(event.pointerId);
  if (!pinch) return;
  event.stopPropagation();
  if (touches.size < 2) {
    pinch = null;
    host.setZoom(host.zoom(), true);   // the same size: only the sharp image is asked for
  }
}

/** Zoom to the fingers' spread, then scroll the page's point under their start centre under their centre now. */
function follow() {
  const [centre, distance] = fingers();
  host.setZoom(clamp(pinch.zoom * distance / pinch.distance, MIN_ZOOM, MAX_ZOOM), false);
  const r = host.frame.getBoundingClientRect();
  area.scrollLeft += r.left + pinch.fx * r.width - centre[0];
  area.scrollTop += r.top + pinch.fy * r.height - centre[1];
}

/** The first two fingers' centre and distance. */
function fingers() {
  const [a, b] = touches.values();
  return [[(a[0] + b[0]) / 2, (a[1] + b[1]) / 2], Math.hypot(b[0] - a[0], b[1] - a[1])];
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
