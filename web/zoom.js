// zoom.js — zoom on a desktop: Ctrl + the wheel (or a touchpad's pinch, which browsers send as
// Ctrl + wheel) zooms about the pointer, + and − step through the zoom menu's sizes about the
// middle of the view, 0 fits the page again, and the menu (#zoom) picks a size: Fit, or 50 % to
// 400 % of the page's actual size (a point is 1/72 inch, shown at 96 CSS pixels an inch).
//
// As with pinch.js, the zoom itself is app.js's (a factor on the fitted size, applied in
// layoutPage, so the canvas grows with the image and drawing stays exact); here the factor is
// chosen and #page-area scrolled so that the point of the page under the pointer stays under it.

const LEVELS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4];   // of the actual size, as the menu offers them
const CSS_PER_POINT = 96 / 72;
const MIN_ZOOM = 0.25;   // of the fitted size
const MAX_ZOOM = 8;

let host = null;
let wheelFrame = 0, pendingWheel = null;

/**
 * host: {
 *   area, frame            #page-area (scrolls) and #page-frame
 *   zoom()                 the factor on the fitted size now
 *   setZoom(zoom, final)   lay the page out at it
 *   fitted()               the page's width in CSS pixels at factor 1, or 0 without a page
 *   pageWidth()            the page's width in points, as shown
 * }
 */
export function initZoom(theHost) {
  host = theHost;
  host.area.addEventListener('wheel', onWheel, { passive: false });
  const menu = document.getElementById('zoom');
  menu.replaceChildren(new Option('Fit', 'fit'), ...LEVELS.map((level) => new Option(`${Math.round(level * 100)} %`, String(level))));
  menu.addEventListener('change', () => {
    if (menu.value === 'fit') fit();
    else zoomToSize(Number(menu.value), middle());
  });
}

/** The size shown, as a share of the page's actual size (1 = 100 %). */
export function actualSize() {
  const fitted = host.fitted(), width = fitted ? host.pageWidth() : 0;
  return fitted && width ? (fitted * host.zoom()) / (width * CSS_PER_POINT) : 0;
}

/** The menu shows the size now: Fit, one of its sizes, or the size between them. */
export function showZoom() {
  const menu = document.getElementById('zoom');
  if (!menu || !host) return;
  for (const option of [...menu.options]) if (option.dataset.between) option.remove();
  if (Math.abs(host.zoom() - 1) < 0.005) { menu.value = 'fit'; return; }
  const size = actualSize();
  const level = LEVELS.find((l) => Math.abs(l - size) < 0.005);
  if (level !== undefined) { menu.value = String(level); return; }
  const between = new Option(`${Math.round(size * 100)} %`, 'between');
  between.dataset.between = 'true';
  menu.add(between, 1);
  menu.value = 'between';
}

/** + (1) or − (−1): the next of the menu's sizes, about the middle of the view. */
export function step(direction) {
  const size = actualSize();
  if (!size) return;
  const next = direction > 0 ? LEVELS.find((l) => l > size + 0.005) : [...LEVELS].reverse().find((l) => l < size - 0.005);
  if (next !== undefined) zoomToSize(next, middle());
}

/**
 * The page at `size` of its actual size. The fit the factor counts from narrows once the zoomed
 * page brings scroll bars, so the size is measured after the layout and the factor set once more.
 */
function zoomToSize(size, at) {
  zoomAbout(factorFor(size), at);
  const off = actualSize() / size;
  if (Math.abs(off - 1) > 0.002) zoomAbout(host.zoom() / off, at);
}

/** The page fitted again. */
export function fit() {
  zoomAbout(1, middle());
}

function factorFor(size) {
  const fitted = host.fitted();
  return fitted ? (host.pageWidth() * CSS_PER_POINT * size) / fitted : 1;
}

function middle() {
  const r = host.area.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}

/** Zoom to `zoom`, keeping the page's point under `at` (client pixels) under it. */
function zoomAbout(zoom, at) {
  const before = host.frame.getBoundingClientRect();
  const fx = (at[0] - before.left) / Math.max(before.width, 1), fy = (at[1] - before.top) / Math.max(before.height, 1);
  host.setZoom(clamp(zoom, MIN_ZOOM, MAX_ZOOM), true);
  const after = host.frame.getBoundingClientRect();
  host.area.scrollLeft += after.left + fx * after.width - at[0];
  host.area.scrollTop += after.top + fy * after.height - at[1];
  showZoom();
}

/** Ctrl + wheel: a notch (100 px of delta) zooms by about a fifth; several in a frame are one step. */
function onWheel(event) {
  if (!event.ctrlKey || !host.fitted()) return;
  event.preventDefault();   // not the browser's own page zoom
  const delta = event.deltaMode === 1 ? event.deltaY * 33 : event.deltaY;
  pendingWheel = pendingWheel
    ? { factor: pendingWheel.factor * Math.exp(-delta / 500), at: [event.clientX, event.clientY] }
    : { factor: Math.exp(-delta / 500), at: [event.clientX, event.clientY] };
  if (wheelFrame) return;
  wheelFrame = requestAnimationFrame(() => {
    wheelFrame = 0;
    const { factor, at } = pendingWheel;
    pendingWheel = null;
    zoomAbout(host.zoom() * factor, at);
  });
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
