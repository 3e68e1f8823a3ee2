// draw.js — the markup tools: pointer gestures on the canvas over the page image, and the
// drawing of the unsaved marks (and of saved annotations about to be erased).
//
// Everything here is in page points, y down from the top-left corner of the page image: the
// space the server takes (web/README.md). A pointer position becomes points in ONE function,
// toPagePoint(); the canvas draws in points through a transform set in draw().
//
// The document itself (the list of unsaved edits, undo, saving) belongs to app.js; it hands us
// a `host` object with what we need (see initMarkup).

import { signatureData, drawSignature } from './signatures.js';
import { chose, keptToolColours, showSwatches } from './colors.js';
import { HOLD_MS, recognize } from './shapes.js';
import { NOTE_SIZE, boxOf, editBox } from './geometry.js';
import { initRuler, layoutRuler, snapPoint, snapStart } from './ruler.js';
import {
  initSelect, clearSelection, selectDown, selectMove, selectUp, restyle, drawChange, drawSelection, showBar, isDragged,
} from './select.js';

// Per-tool settings; the width/colour/opacity controls edit those of the chosen tool.
// A missing key means the control does not apply to that tool.
const DEFAULTS = {
  pen: { width: 2, color: '#000000', opacity: 1 },
  marker: { width: 12, color: '#ffe619', opacity: 0.4 },
  pencil: { width: 1, color: '#4d4d4d', opacity: 0.8 },
  highlight: { color: '#ffe619' },
  underline: { color: '#e61919' },
  strikeout: { color: '#e61919' },
  rect: { width: 2, color: '#e61919' },
  oval: { width: 2, color: '#e61919' },
  line: { width: 2, color: '#e61919' },
  arrow: { width: 2, color: '#e61919' },
  textbox: { width: 12, color: '#000000' },   // "width" is the font size here
  note: {},
  signature: {},
  eraser: {},
  lasso: { width: 2, color: '#000000', opacity: 1 },   // applied to what is selected
  loupe: { width: 2 },                                  // "width" is the magnification here
};
const settings = structuredClone(DEFAULTS);
// Each tool's last colour, as this browser kept it (colors.js).
for (const [name, colour] of Object.entries(keptToolColours())) {
  if (settings[name] && 'color' in settings[name]) settings[name].color = colour;
}

const INK_TOOLS = ['pen', 'marker', 'pencil'];
const TEXT_TOOLS = ['highlight', 'underline', 'strikeout'];
const TAP = 2;                 // a drag shorter than this (points) is a tap
const NAMES = {
  ink: 'Ink', highlight: 'Highlight', underline: 'Underline', strikeout: 'Strikeout',
  rect: 'Rectangle', oval: 'Oval', line: 'Line', arrow: 'Arrow', textbox: 'Text box',
  note: 'Note', signature: 'Signature', erase: 'Erase', change: 'Change', polygon: 'Shape', loupe: 'Loupe',
};

let host = null;               // set by initMarkup
let tool = '';                 // '' = no tool: the canvas lets pointers through
let signatureName = null;      // the signature the signature tool places
let gesture = null;            // the drag in progress
let textEdit = null;           // the text box or note being typed
let frameRequested = false;

const $ = (id) => document.getElementById(id);
let img, canvas, ctx, textInput;

// ---------------------------------------------------------------------------------------------
// Set-up and the public face

/**
 * host: {
 *   page()                 the shown page: {number, width, height} in points, or null
 *   items()                the unsaved edits: [{edit, label}]
 *   commit(items)          replace them (app.js keeps the undo stack)
 *   readOnly()             true while a past revision is shown or a save is in flight
 *   showMarks()            false while a past revision is shown (the marks belong to the current one)
 *   words(page)            Promise of /api/words' words
 *   annotations(page)      Promise of /api/annotations' annotations
 *   cachedAnnotations(page) the same if already fetched, else null
 *   message(text)          tell the user
 * }
 */
export function initMarkup(theHost) {
  host = theHost;
  img = $('page-image');
  canvas = $('page-canvas');
  ctx = canvas.getContext('2d');
  textInput = $('text-input');

  canvas.addEventListener('pointerdown', onPointerDown);
  canvas.addEventListener('pointermove', onPointerMove);
  canvas.addEventListener('pointerup', onPointerUp);
  canvas.addEventListener('pointercancel', () => { gesture = null; render(); });

  for (const button of document.querySelectorAll('#tools [data-tool]')) {
    if (button.id !== 'tool-signature') button.addEventListener('click', () => setTool(button.dataset.tool));
  }
  $('width').addEventListener('input', onSettingInput);
  $('color').addEventListener('input', onSettingInput);
  // Chosen (the picker closed, or a swatch): the tool's colour from now on, and a recent one.
  $('color').addEventListener('change', () => { if (settings[tool] && 'color' in settings[tool]) chose(tool, settings[tool].color); });
  showSwatches();
  $('opacity').addEventListener('input', onSettingInput);

  for (const id of ['width', 'color', 'opacity']) $(id).addEventListener('change', onSettingChosen);

  textInput.addEventListener('keydown', onTextKey);
  textInput.addEventListener('blur', () => commitText());
  initRuler({ page: () => host.page(), pixelsPerPoint: cssPerPoint, toPagePoint });
  initSelect(host, { editText: openTextFor, pixelsPerPoint: cssPerPoint, redraw: render, drawEdit, currentTool: () => tool });
  setTool('');
}

export function currentTool() { return tool; }

export function setTool(name) {
  commitText();
  if (name !== tool) clearSelection();
  tool = name || '';
  for (const button of document.querySelectorAll('#tools [data-tool]')) {
    button.setAttribute('aria-pressed', String(button.dataset.tool === tool));
  }
  refreshCanvasMode();
  showSettings();
  if (tool === 'eraser' || tool === 'lasso') prefetchAnnotations();
  render();
}

/** The signature tool places this one from now on. */
export function chooseSignature(name) {
  signatureName = name;
  setTool('signature');
}

/** Called when the shown page or the read-only state changes. */
export function refreshCanvasMode() {
  const active = Boolean(tool) && !host.readOnly();
  canvas.classList.toggle('active', active);
  canvas.classList.toggle('eraser', active && tool === 'eraser');
  canvas.classList.toggle('lasso', active && tool === 'lasso');
  if (tool === 'eraser' || tool === 'lasso') prefetchAnnotations();
}

const MAX_CANVAS_PIXELS = 16e6;   // a page zoomed 4× on a 3× phone would be 60 MB of canvas

/**
 * Size the canvas to exactly the page image's CSS box (toPagePoint relies on it), at device
 * resolution up to MAX_CANVAS_PIXELS. `stretch` (while a pinch zooms) only sets the CSS size:
 * the marks stretch with the page until the pinch ends and the canvas is drawn again.
 */
export function layoutCanvas({ stretch = false } = {}) {
  const w = img.clientWidth, h = img.clientHeight;
  canvas.style.width = `${w}px`;
  canvas.style.height = `${h}px`;
  if (stretch) return;
  const dpr = Math.min(window.devicePixelRatio || 1, Math.sqrt(MAX_CANVAS_PIXELS / Math.max(1, w * h)));
  canvas.width = Math.max(1, Math.round(w * dpr));
  canvas.height = Math.max(1, Math.round(h * dpr));
  layoutRuler();
  draw();
}

/** Redraw at the next frame (many calls in one frame draw once). */
export function render() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(() => { frameRequested = false; draw(); });
}

/** Drop the stroke in progress, committing nothing (a second finger landed: it pans or zooms). */
export function dropGesture() {
  if (!gesture) return;
  if (canvas.hasPointerCapture(gesture.pointerId)) canvas.releasePointerCapture(gesture.pointerId);
  gesture = null;
  render();
}

/** Cancel a gesture or a half-typed text box (when the page changes under it). */
export function cancelGesture() {
  gesture = null;
  closeText();
  clearSelection();
}

/** Finish the text being typed, if any (before saving, undoing, changing page). */
export function commitText() {
  if (!textEdit) return;
  const edit = textEdit;
  const text = textInput.value;
  closeText();
  if (!text.trim()) return;
  if (edit.kind === 'edit') {
    edit.done(text);
  } else if (edit.kind === 'note') {
    add({ op: 'note', page: edit.page, at: edit.at, contents: text });
  } else {
    add({ op: 'textbox', page: edit.page, box: edit.box, text, size: edit.size, color: edit.color });
  }
}

/** The page an edit marks, or null for a page operation. */
export function editPage(edit) {
  return typeof edit.page === 'number' ? edit.page : null;
}

export function describe(edit) {
  return `${NAMES[edit.op] || edit.op} on page ${edit.page}`;
}

// ---------------------------------------------------------------------------------------------
// Coordinates

const round = (v) => Math.round(v * 100) / 100;
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/** THE conversion: a pointer's client position → page points (as shown, y down), on the page. */
export function toPagePoint(clientX, clientY, { clamp: onPage = true } = {}) {
  const page = host.page();
  const r = img.getBoundingClientRect();
  const x = (clientX - r.left) * page.width / img.clientWidth;
  const y = (clientY - r.top) * page.height / img.clientHeight;
  if (!onPage) return [round(x), round(y)];
  return [round(clamp(x, 0, page.width)), round(clamp(y, 0, page.height))];
}

/** A pointer's page point, carried onto the ruler's edge when the stroke follows it. */
function strokePoint(g, clientX, clientY) {
  const p = toPagePoint(clientX, clientY);
  if (!g.edge) return p;
  const page = host.page(), [x, y] = snapPoint(g.edge, p);
  return [round(clamp(x, 0, page.width)), round(clamp(y, 0, page.height))];
}

/** CSS pixels per point of the shown page (to place the text input over a box). */
function cssPerPoint() {
  return img.clientWidth / host.page().width;
}

function isTap(g) {
  return Math.hypot(g.end[0] - g.start[0], g.end[1] - g.start[1]) < TAP;
}

/** A box of the given size with its top-left at p, moved to lie on the page. */
function boxAt(p, w, h) {
  const page = host.page();
  w = Math.min(w, page.width); h = Math.min(h, page.height);
  const x = clamp(p[0], 0, page.width - w), y = clamp(p[1], 0, page.height - h);
  return [x, y, x + w, y + h].map(round);
}

// ---------------------------------------------------------------------------------------------
// Settings controls

function showSettings() {
  const s = settings[tool] || {};
  const isSize = tool === 'textbox', isZoom = tool === 'loupe';
  const width = $('width');
  width.min = isSize ? 4 : isZoom ? 1.25 : 0.5;
  width.max = isSize ? 72 : isZoom ? 8 : 48;
  width.step = isSize ? 1 : isZoom ? 0.25 : 0.5;
  $('width-name').textContent = isSize ? 'Size' : isZoom ? 'Zoom' : 'Width';
  setControl('width', s.width, 2);
  setControl('color', s.color, '#000000');
  setControl('opacity', s.opacity, 1);
  $('width-value').textContent = s.width ?? '';
}

function setControl(id, value, fallback) {
  const input = $(id);
  input.value = value ?? fallback;
  input.disabled = value === undefined;
  input.closest('label').classList.toggle('disabled', input.disabled);
}

/** A control let go while marks are selected: they take its value (one change, one undo step). */
function onSettingChosen(event) {
  if (tool !== 'lasso') return;
  const input = event.target;
  restyle(input.id, input.type === 'color' ? input.value : Number(input.value));
}

function onSettingInput(event) {
  const s = settings[tool];
  if (!s) return;
  const input = event.target;
  s[input.id] = input.type === 'color' ? input.value : Number(input.value);
  $('width-value').textContent = s.width ?? '';
  render();
}

// ---------------------------------------------------------------------------------------------
// Gestures

function onPointerDown(event) {
  if (!tool || host.readOnly() || !host.page() || event.button !== 0 || gesture) return;
  event.preventDefault();
  if (textEdit) { commitText(); return; }            // a tap elsewhere ends the typing
  if (tool === 'signature' && !signatureName) {
    host.message('Choose a signature from the menu first.');
    return;
  }
  canvas.setPointerCapture(event.pointerId);
  const p = toPagePoint(event.clientX, event.clientY);
  gesture = { tool, page: host.page().number, pointerId: event.pointerId, start: p, end: p, points: [p], pressures: [] };
  if (tool === 'lasso') selectDown(p, gesture.page);
  // Begun just beside the ruler's edge: the stroke follows the edge.
  if (INK_TOOLS.includes(tool)) {
    gesture.edge = snapStart(p);
    if (gesture.edge) gesture.start = gesture.end = gesture.points[0] = strokePoint(gesture, event.clientX, event.clientY);
  }
  if (event.pointerType === 'pen') gesture.pressures.push(event.pressure);
  awaitHold(gesture);
  render();
}

/**
 * An ink stroke held still at its end for HOLD_MS becomes the line, rectangle or oval it was
 * drawn as (shapes.js), shown at once; moving on makes it a stroke again.
 */
function awaitHold(g) {
  if (!INK_TOOLS.includes(g.tool) || g.edge) return;
  clearTimeout(g.holdTimer);
  g.shape = null;
  g.holdTimer = setTimeout(() => {
    if (gesture !== g) return;
    g.shape = recognize(g.points);
    if (g.shape) render();
  }, HOLD_MS);
}

/** The shape a held stroke became, as an edit with the stroke's width and colour (and the shape's name apart). */
function shapeEdit(g) {
  const s = settings[g.tool];
  const { name, ...shape } = g.shape;
  return { ...shape, page: g.page, width: inkWidth(g), color: s.color };
}

function onPointerMove(event) {
  if (!gesture || event.pointerId !== gesture.pointerId) return;
  // Coalesced events give the full resolution of a fast stroke.
  if (gesture.tool === 'lasso') { selectMove(toPagePoint(event.clientX, event.clientY)); render(); return; }
  const events = event.getCoalescedEvents ? event.getCoalescedEvents() : [];
  for (const e of events.length ? events : [event]) {
    const p = strokePoint(gesture, e.clientX, e.clientY);
    const last = gesture.points[gesture.points.length - 1];
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) >= 0.5) gesture.points.push(p);
    // Moving on (more than a hand's tremor): the hold starts again.
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) >= 2) awaitHold(gesture);
    gesture.end = p;
    if (e.pointerType === 'pen') gesture.pressures.push(e.pressure);
  }
  render();
}

function onPointerUp(event) {
  if (!gesture || event.pointerId !== gesture.pointerId) return;
  const g = gesture;
  g.end = strokePoint(g, event.clientX, event.clientY);
  gesture = null;
  clearTimeout(g.holdTimer);
  if (g.tool === 'lasso') selectUp(g.end); else finish(g);
  render();
}

/**
 * A pen's pressure as a factor on the chosen width: its mean over the stroke, 0..1 → 0.5..1.5.
 * The engine takes one width per ink stroke, so pressure varies the width stroke by stroke (a
 * firm stroke is wider than a light one), not along a stroke. 1 for a mouse or a finger, and for
 * a pen that reports no pressure (0, or the 0.5 a browser gives for "unknown" while down).
 */
function pressureFactor(g) {
  const reported = g.pressures.filter((p) => p > 0);
  if (!reported.length || reported.every((p) => p === 0.5)) return 1;
  const mean = reported.reduce((sum, p) => sum + p, 0) / reported.length;
  return 0.5 + clamp(mean, 0, 1);
}

/** The width an ink gesture draws with: the tool's, times the pen's pressure. */
function inkWidth(g) {
  return round(settings[g.tool].width * pressureFactor(g));
}

function finish(g) {
  if (INK_TOOLS.includes(g.tool)) return addInk(g);
  if (TEXT_TOOLS.includes(g.tool)) return addTextMarkup(g);
  switch (g.tool) {
    case 'rect': case 'oval': return addShape(g);
    case 'line': case 'arrow': return addLine(g);
    case 'textbox': case 'note': return openText(g);
    case 'signature': return addSignature(g);
    case 'eraser': return erase(g);
    case 'loupe': return add(loupeEdit(g));
  }
}

function add(edit) {
  host.commit([...host.items(), { edit, label: describe(edit) }]);
}

function addInk(g) {
  const s = settings[g.tool];
  const stroke = g.points.length > 1 ? g.points : [g.start, g.start];   // a tap is a dot
  add({ op: 'ink', page: g.page, strokes: [stroke], width: inkWidth(g), color: s.color, opacity: s.opacity });
  // Held into a shape: the stroke, then the shape in its place, so that one undo gives the stroke back.
  if (g.shape) {
    const shape = shapeEdit(g);
    const label = g.shape.name ? `${g.shape.name[0].toUpperCase()}${g.shape.name.slice(1)} on page ${g.page}` : describe(shape);
    host.commit([...host.items().slice(0, -1), { edit: shape, label }]);
  }
}

function addShape(g) {
  if (isTap(g)) return;
  const s = settings[g.tool];
  add({ op: g.tool, page: g.page, box: boxOf(g.start, g.end), width: s.width, color: s.color });
}

function addLine(g) {
  if (isTap(g)) return;
  const s = settings[g.tool];
  add({ op: g.tool, page: g.page, from: g.start, to: g.end, width: s.width, color: s.color });
}

/** A loupe centred where the drag began, as wide as the drag (a tap: 40 points round). */
function loupeEdit(g) {
  const radius = isTap(g) ? 40 : Math.max(10, round(Math.hypot(g.end[0] - g.start[0], g.end[1] - g.start[1])));
  return { op: 'loupe', page: g.page, at: g.start, radius, zoom: settings.loupe.width };
}

function addSignature(g) {
  const page = host.page();
  const box = isTap(g) ? boxAt(g.start, Math.min(150, page.width * 0.4), 50) : boxOf(g.start, g.end);
  add({ op: 'signature', page: g.page, name: signatureName, box });
}

// Highlight, underline, strikeout: as in a text selection, every word from the one the drag
// starts at to the one it ends at, in reading order (poppler gives the words in that order), one
// rect per line. The words come from the server (poppler's text layer, or OCR's).
const NEAR_TEXT = 20;   // points: a drag that starts or ends farther from every word marks nothing

async function addTextMarkup(g) {
  let words;
  try {
    words = await host.words(g.page);
  } catch (err) {
    host.message(`Could not read the page's words: ${err.message}`);
    return;
  }
  const first = nearestWord(words, g.start), last = nearestWord(words, g.end);
  if (first < 0 || last < 0) {
    host.message('No text there to mark (is the page searchable yet?).');
    return;
  }
  const hit = words.slice(Math.min(first, last), Math.max(first, last) + 1);
  add({ op: g.tool, page: g.page, rects: lineRects(hit), color: settings[g.tool].color });
}

/** The index of the word under `point`, or of the nearest within NEAR_TEXT points; -1 for none. */
function nearestWord(words, [x, y]) {
  let best = -1, bestDistance = NEAR_TEXT + Number.EPSILON;
  words.forEach(({ box }, index) => {
    const dx = Math.max(box[0] - x, 0, x - box[2]), dy = Math.max(box[1] - y, 0, y - box[3]);
    const distance = Math.hypot(dx, dy);
    if (distance < bestDistance) { best = index; bestDistance = distance; }
  });
  return best;
}

/** Words → one box per line: words whose middles share a line join; a wide gap (columns) splits. */
function lineRects(words) {
  const byMiddle = [...words].sort((a, b) => (a.box[1] + a.box[3]) - (b.box[1] + b.box[3]));
  const lines = [];
  for (const word of byMiddle) {
    const mid = (word.box[1] + word.box[3]) / 2;
    const line = lines.find((l) => mid >= l.y0 && mid <= l.y1);
    if (line) line.words.push(word);
    else lines.push({ y0: word.box[1], y1: word.box[3], words: [word] });
  }
  const rects = [];
  for (const line of lines) {
    const row = line.words.sort((a, b) => a.box[0] - b.box[0]);
    let rect = null;
    for (const { box } of row) {
      const gapTooWide = rect && box[0] - rect[2] > 2 * (rect[3] - rect[1]);
      if (!rect || gapTooWide) { rect = [...box]; rects.push(rect); continue; }
      rect[1] = Math.min(rect[1], box[1]); rect[2] = Math.max(rect[2], box[2]); rect[3] = Math.max(rect[3], box[3]);
    }
  }
  return rects.map((r) => r.map(round));
}

// ---------------------------------------------------------------------------------------------
// Text boxes and notes: a textarea over the page; Ctrl+Enter or a tap elsewhere commits.

function openText(g) {
  const s = settings.textbox;
  const k = cssPerPoint();
  if (g.tool === 'note') {
    const at = boxAt(g.start, NOTE_SIZE, NOTE_SIZE).slice(0, 2);
    textEdit = { kind: 'note', page: g.page, at };
    placeTextInput([at[0], at[1] + NOTE_SIZE], 220 / k, 90 / k, 13, '#000000');
  } else {
    const box = isTap(g) ? boxAt(g.start, 200, s.width * 3) : boxOf(g.start, g.end);
    textEdit = { kind: 'textbox', page: g.page, box, size: s.width, color: s.color };
    placeTextInput(box, box[2] - box[0], box[3] - box[1], s.width * k, s.color);
  }
  textInput.classList.toggle('note', g.tool === 'note');
}

/** The text input over a selected text box or note, holding its words; `done` gets the new ones. */
function openTextFor({ kind, box, text, size }, done) {
  const k = cssPerPoint();
  textEdit = { kind: 'edit', done };
  if (kind === 'note') placeTextInput([box[0], box[1] + NOTE_SIZE], 220 / k, 90 / k, 13, '#000000', text);
  else placeTextInput(box, Math.max(box[2] - box[0], 120), Math.max(box[3] - box[1], 40), size * k, '#000000', text);
  textInput.classList.toggle('note', kind === 'note');
}

function placeTextInput(topLeft, widthPt, heightPt, fontPx, color, text = '') {
  const k = cssPerPoint();
  Object.assign(textInput.style, {
    left: `${topLeft[0] * k}px`, top: `${topLeft[1] * k}px`,
    width: `${widthPt * k}px`, height: `${heightPt * k}px`,
    fontSize: `${fontPx}px`, color,
  });
  textInput.value = text;
  textInput.hidden = false;
  // Focus after this pointerup, or the browser's own focus handling blurs it again at once.
  setTimeout(() => textInput.focus(), 0);
}

function onTextKey(event) {
  // Other keys reach app.js's shortcuts, which leave typing alone (Ctrl+S still saves).
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); commitText(); }
  if (event.key === 'Escape') closeText();
}

function closeText() {
  textEdit = null;
  textInput.hidden = true;
}

// ---------------------------------------------------------------------------------------------
// The eraser. A tap erases the topmost mark under it, a drag every mark whose box it crosses.
// Unsaved marks just go; saved annotations become one {"op":"erase"} edit.

async function erase(g) {
  const tap = g.points.length < 3 && isTap(g);
  const hits = (box) => (tap ? g.points.slice(0, 1) : g.points).some((p, i, pts) =>
    segmentMeetsBox(pts[Math.max(0, i - 1)], p, box, 2));
  const items = host.items();
  let local = items.filter(({ edit }) => editPage(edit) === g.page && !['erase', 'change'].includes(edit.op) && hits(editBox(edit)));
  if (tap) local = local.slice(-1);

  let saved = [];
  if (!tap || !local.length) {
    try {
      saved = (await host.annotations(g.page)).filter((a) => !erasedIds(g.page).has(a.id) && hits(a.box));
    } catch (err) {
      host.message(`Could not list the page's annotations: ${err.message}`);
    }
    if (tap) saved = saved.sort((a, b) => area(a.box) - area(b.box)).slice(0, 1);
  }
  if (!local.length && !saved.length) return;

  const next = host.items().filter((item) => !local.includes(item));
  if (saved.length) {
    const edit = { op: 'erase', page: g.page, ids: saved.map((a) => a.id) };
    next.push({ edit, label: `Erase ${saved.length} annotation${saved.length > 1 ? 's' : ''} on page ${g.page}` });
  }
  host.commit(next);
}

function erasedIds(page) {
  const ids = new Set();
  for (const { edit } of host.items()) if (edit.op === 'erase' && edit.page === page) edit.ids.forEach((id) => ids.add(id));
  return ids;
}

const area = (b) => (b[2] - b[0]) * (b[3] - b[1]);

/** Does the segment a→b come within `pad` points of the box? (Sampled: marks are not tiny.) */
function segmentMeetsBox(a, b, box, pad) {
  const steps = Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1])));
  for (let i = 0; i <= steps; i++) {
    const x = a[0] + (b[0] - a[0]) * i / steps, y = a[1] + (b[1] - a[1]) * i / steps;
    if (x >= box[0] - pad && x <= box[2] + pad && y >= box[1] - pad && y <= box[3] + pad) return true;
  }
  return false;
}

function prefetchAnnotations() {
  const page = host.page();
  if (!page || host.readOnly() || host.cachedAnnotations(page.number)) return;
  host.annotations(page.number).then(render, () => {});
}

// ---------------------------------------------------------------------------------------------
// Drawing, in page points

function draw() {
  const page = host && host.page();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!page || !host.showMarks()) return;
  ctx.setTransform(canvas.width / page.width, 0, 0, canvas.height / page.height, 0, 0);

  const annotations = host.cachedAnnotations(page.number) || [];
  if (tool === 'eraser') annotations.forEach((a) => outline(a.box, '#8a94a6'));
  for (const item of host.items()) {
    const { edit } = item;
    if (editPage(edit) !== page.number || isDragged(item)) continue;
    if (edit.op === 'erase') annotations.filter((a) => edit.ids.includes(a.id)).forEach((a) => drawErased(a.box));
    else if (edit.op === 'change') drawChange(ctx, img, page, annotations.find((a) => a.id === edit.id), edit);
    else drawEdit(edit);
  }
  if (gesture && gesture.page === page.number && gesture.tool !== 'lasso') drawGesture(gesture);
  if (tool === 'lasso') drawSelection(ctx, img, page);
  showBar();
}

function drawGesture(g) {
  const s = settings[g.tool];
  if (INK_TOOLS.includes(g.tool) && g.shape) {
    drawEdit(shapeEdit(g));
  } else if (INK_TOOLS.includes(g.tool)) {
    drawEdit({ op: 'ink', strokes: [g.points], width: inkWidth(g), color: s.color, opacity: s.opacity });
  } else if (['rect', 'oval'].includes(g.tool)) {
    drawEdit({ op: g.tool, box: boxOf(g.start, g.end), width: s.width, color: s.color });
  } else if (['line', 'arrow'].includes(g.tool)) {
    drawEdit({ op: g.tool, from: g.start, to: g.end, width: s.width, color: s.color });
  } else if (g.tool === 'eraser') {
    drawEdit({ op: 'ink', strokes: [g.points], width: 6, color: '#e61919', opacity: 0.3 });
  } else if (g.tool === 'loupe') {
    drawEdit(loupeEdit(g));
  } else if (g.tool !== 'note') {
    outline(boxOf(g.start, g.end), '#2762c9');
  }
}

export function drawEdit(e) {
  ctx.save();
  ctx.strokeStyle = ctx.fillStyle = e.color || '#000000';
  ctx.lineWidth = e.width || 1;
  ctx.lineCap = ctx.lineJoin = 'round';
  switch (e.op) {
    case 'ink':
      ctx.globalAlpha = e.opacity ?? 1;
      ctx.beginPath();
      for (const stroke of e.strokes) {
        stroke.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
        if (stroke.length === 1 || (stroke.length === 2 && stroke[0] === stroke[1])) ctx.lineTo(stroke[0][0] + 0.01, stroke[0][1]);
      }
      ctx.stroke();
      break;
    case 'highlight':
      ctx.globalAlpha = 0.35;
      e.rects.forEach((r) => ctx.fillRect(r[0], r[1], r[2] - r[0], r[3] - r[1]));
      break;
    case 'underline': case 'strikeout':
      for (const r of e.rects) {
        const t = Math.max(0.75, (r[3] - r[1]) * 0.07);
        const y = e.op === 'underline' ? r[3] - t / 2 : (r[1] + r[3]) / 2;
        ctx.lineWidth = t;
        ctx.beginPath(); ctx.moveTo(r[0], y); ctx.lineTo(r[2], y); ctx.stroke();
      }
      break;
    case 'rect': case 'oval': {
      const [x0, y0, x1, y1] = e.box, inset = ctx.lineWidth / 2;   // the outline lies inside the box
      ctx.beginPath();
      if (e.op === 'rect') ctx.rect(x0 + inset, y0 + inset, Math.max(0, x1 - x0 - 2 * inset), Math.max(0, y1 - y0 - 2 * inset));
      else ctx.ellipse((x0 + x1) / 2, (y0 + y1) / 2, Math.max(0, (x1 - x0) / 2 - inset), Math.max(0, (y1 - y0) / 2 - inset), 0, 0, 2 * Math.PI);
      ctx.stroke();
      break;
    }
    case 'line': case 'arrow':
      ctx.beginPath(); ctx.moveTo(...e.from); ctx.lineTo(...e.to);
      if (e.op === 'arrow') arrowHead(e.from, e.to, Math.max(8, ctx.lineWidth * 4));
      ctx.stroke();
      break;
    case 'polygon':
      ctx.globalAlpha = e.opacity ?? 1;
      ctx.beginPath();
      e.points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.stroke();
      break;
    case 'loupe': drawLoupe(e); break;
    case 'textbox': drawTextbox(e); break;
    case 'note': drawNote(e.at); break;
    case 'signature': {
      const sig = signatureData(e.name, render);
      if (sig) drawSignature(ctx, sig, e.box); else outline(e.box, '#2762c9');
      break;
    }
  }
  ctx.restore();
}

function arrowHead(from, to, size) {
  const angle = Math.atan2(to[1] - from[1], to[0] - from[0]);
  for (const side of [-1, 1]) {
    const a = angle + Math.PI + side * 0.5;
    ctx.moveTo(...to);
    ctx.lineTo(to[0] + size * Math.cos(a), to[1] + size * Math.sin(a));
  }
}

/** Helvetica wrapped at spaces inside the box, as the server sets it (near enough to preview). */
function drawTextbox(e) {
  const [x0, y0, x1, y1] = e.box;
  ctx.font = `${e.size}px Helvetica, Arial, sans-serif`;
  ctx.textBaseline = 'top';
  let y = y0 + 2;
  for (const paragraph of e.text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      const candidate = line ? `${line} ${word}` : word;
      if (line && ctx.measureText(candidate).width > x1 - x0 - 4) {
        ctx.fillText(line, x0 + 2, y); y += e.size * 1.2; line = word;
      } else line = candidate;
    }
    ctx.fillText(line, x0 + 2, y); y += e.size * 1.2;
  }
  if (y > y1) outline(e.box, '#e61919');        // the server will refuse: the text does not fit
}

/** The page picture's pixels under the loupe, magnified inside its circle (as the server draws it in the PDF). */
function drawLoupe({ at: [x, y], radius, zoom }) {
  const page = host.page();
  ctx.save();
  ctx.beginPath(); ctx.arc(x, y, radius, 0, 2 * Math.PI); ctx.clip();
  ctx.fillStyle = '#ffffff'; ctx.fillRect(x - radius, y - radius, 2 * radius, 2 * radius);
  if (img.naturalWidth) {
    const kx = img.naturalWidth / page.width, ky = img.naturalHeight / page.height, seen = radius / zoom;
    ctx.drawImage(img, (x - seen) * kx, (y - seen) * ky, 2 * seen * kx, 2 * seen * ky, x - radius, y - radius, 2 * radius, 2 * radius);
  }
  ctx.restore();
  ctx.strokeStyle = '#737a85'; ctx.lineWidth = 2;
  ctx.beginPath(); ctx.arc(x, y, radius - 1, 0, 2 * Math.PI); ctx.stroke();
}

function drawNote([x, y]) {
  ctx.fillStyle = '#ffe14d'; ctx.strokeStyle = '#9c7f00'; ctx.lineWidth = 1;
  ctx.fillRect(x, y, NOTE_SIZE, NOTE_SIZE); ctx.strokeRect(x + 0.5, y + 0.5, NOTE_SIZE - 1, NOTE_SIZE - 1);
  ctx.beginPath();
  for (const dy of [6, 10, 14]) { ctx.moveTo(x + 4, y + dy); ctx.lineTo(x + 16, y + dy); }
  ctx.stroke();
}

function drawErased(box) {
  const [x0, y0, x1, y1] = box;
  ctx.save();
  ctx.fillStyle = 'rgba(255,255,255,0.6)';
  ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
  ctx.strokeStyle = '#e61919'; ctx.lineWidth = 1.5;
  ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.moveTo(x1, y0); ctx.lineTo(x0, y1); ctx.stroke();
  ctx.restore();
  outline(box, '#e61919');
}

function outline(box, color) {
  ctx.save();
  ctx.strokeStyle = color; ctx.lineWidth = 1; ctx.setLineDash([4, 3]);
  ctx.strokeRect(box[0], box[1], box[2] - box[0], box[3] - box[1]);
  ctx.restore();
}
