// reframe.js — cropping a photographed page again: the photo find_page cut the page from (the file
// keeps it), shown upright with the four corners the page was cut along, each dragged with a
// pointer (mouse, finger or pen). Crop sends them as fractions of the photo; the server cuts the
// page again from the photo, never from the page as it stands (web/README.md, op "reframe").
//
// When find_page found no sheet (the page is the whole photo), the corners start at the best
// candidate it saw (`photo.suggested`), so that a person only nudges them; Reset ("Best guess"
// then, "As cut now" otherwise) goes back there.
//
// Tests wait on #reframe-dialog's data-ready="true" (the photo loaded and the corners placed) and
// read each .reframe-corner's cx/cy (pixels of the photo as shown).

import { query } from './api.js';

const $ = (id) => document.getElementById(id);
const WHOLE = [[0, 0], [1, 0], [1, 1], [0, 1]];

let current = null;   // {page, photo, corners: [[fx, fy] × 4], onCrop}
let dragging = null;  // {corner, pointerId}

/** Wire the dialog's photo, corners and buttons, once. */
export function initReframe() {
  const dialog = $('reframe-dialog');
  $('reframe-photo').addEventListener('load', () => { place(); dialog.dataset.ready = 'true'; });
  $('reframe-photo').addEventListener('error', () => showError('The photo could not be loaded.'));
  for (const handle of document.querySelectorAll('.reframe-corner')) {
    handle.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      handle.setPointerCapture(event.pointerId);
      dragging = { corner: Number(handle.dataset.corner), pointerId: event.pointerId };
    });
    handle.addEventListener('pointermove', (event) => {
      if (!dragging || dragging.pointerId !== event.pointerId) return;
      const box = $('reframe-photo').getBoundingClientRect();
      const x = Math.min(1, Math.max(0, (event.clientX - box.left) / box.width));
      const y = Math.min(1, Math.max(0, (event.clientY - box.top) / box.height));
      current.corners[dragging.corner] = [x, y];
      draw();
    });
    const stop = (event) => { if (dragging && dragging.pointerId === event.pointerId) dragging = null; };
    handle.addEventListener('pointerup', stop);
    handle.addEventListener('pointercancel', stop);
  }
  $('reframe-whole').addEventListener('click', () => { current.corners = WHOLE.map((p) => [...p]); draw(); });
  $('reframe-reset').addEventListener('click', () => { current.corners = startingCorners(current.photo); draw(); });
  $('reframe-cancel').addEventListener('click', () => dialog.close());
  $('reframe-save').addEventListener('click', () => {
    if (!isConvex(current.corners)) { showError('The corners must make a four-sided shape without crossing.'); return; }
    const { page, corners, onCrop } = current;
    dialog.close();
    onCrop(page, corners.map(([x, y]) => [round(x), round(y)]));
  });
  new ResizeObserver(() => { if (dialog.open && current) place(); }).observe($('reframe-stage'));
}

/** Where the corners start: along the cut, or at the best candidate when no sheet was found. */
function startingCorners(photo) {
  return (photo.suggested || photo.corners).map((p) => [...p]);
}

/** Open the dialog for `page` (1-based) of the document at `path`, whose photo is `photo`
 * ({width, height, corners, suggested?} as /api/document gives it); Crop calls `onCrop(page, corners)`, the
 * corners as fractions of the photo, clockwise from the top left. */
export function openReframe({ path, end, page, photo, onCrop }) {
  const dialog = $('reframe-dialog');
  current = { page, photo, corners: startingCorners(photo), onCrop };
  // Reset goes back to where the corners started: the cut, or find_page's best candidate.
  $('reframe-reset').textContent = photo.suggested ? 'Best guess' : 'As cut now';
  delete dialog.dataset.ready;
  $('reframe-error').hidden = true;
  $('reframe-page').textContent = String(page);
  // As wide as the dialog shows it, in device pixels, rounded so that nearby sizes share the server's cache.
  const across = Math.min(860, window.innerWidth * 0.88) * (window.devicePixelRatio || 1);
  const width = Math.max(100, Math.min(photo.width, 2400, Math.round(across / 100) * 100));
  $('reframe-photo').src = query('/api/photo', { path, page, width, end });
  dialog.showModal();
  if ($('reframe-photo').complete && $('reframe-photo').naturalWidth) { place(); dialog.dataset.ready = 'true'; }
}

/** The overlay measures the photo as shown; the corners follow. */
function place() {
  const img = $('reframe-photo');
  $('reframe-overlay').setAttribute('viewBox', `0 0 ${img.clientWidth} ${img.clientHeight}`);
  draw();
}

function draw() {
  const img = $('reframe-photo');
  const points = current.corners.map(([x, y]) => [x * img.clientWidth, y * img.clientHeight]);
  $('reframe-outline').setAttribute('points', points.map((p) => p.join(',')).join(' '));
  for (const handle of document.querySelectorAll('.reframe-corner')) {
    const [x, y] = points[Number(handle.dataset.corner)];
    handle.setAttribute('cx', String(x));
    handle.setAttribute('cy', String(y));
  }
  $('reframe-save').disabled = !isConvex(current.corners);
}

/** Whether the corners, in order, turn the same way at every corner (the server checks too). */
function isConvex(corners) {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const [a, b, c] = [corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4]];
    const cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
    if (cross === 0 || (sign && Math.sign(cross) !== sign)) return false;
    sign = Math.sign(cross);
  }
  return true;
}

function showError(text) {
  $('reframe-error').textContent = text;
  $('reframe-error').hidden = false;
}

const round = (value) => Math.round(value * 1e6) / 1e6;
