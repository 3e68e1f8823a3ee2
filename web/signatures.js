// signatures.js — saved signatures: the menu under the signature tool (GET /api/signatures),
// their pictures (GET /api/signature), and the pad that draws and saves a new one
// (POST /api/signatures). Placing one on the page is the signature tool's job (draw.js).

import { api, query } from './api.js';

const PAD_PEN_WIDTH = 2.5;                       // in pad pixels, sent as the signature's width
const NAME_RULE = /^[\p{L}\p{N} _-]{1,100}$/u;   // the server's rule for a signature's name

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------------
// Signature data, fetched once per name

const cache = new Map();   // name → {data, waiting: [callbacks]}; data stays null while loading or failed

/**
 * The signature to draw: {kind: 'png', image} or {kind: 'ink', strokes, width, color},
 * or null while it loads (then `onReady` is called once it has).
 */
export function signatureData(name, onReady) {
  let entry = cache.get(name);
  if (!entry) {
    entry = { data: null, waiting: [] };
    cache.set(name, entry);
    load(name, entry);
  }
  if (!entry.data && onReady && !entry.waiting.includes(onReady)) entry.waiting.push(onReady);
  return entry.data;
}

async function load(name, entry) {
  try {
    const response = await fetch(query('/api/signature', { name }), { credentials: 'same-origin' });
    if (!response.ok) throw new Error(String(response.status));
    if ((response.headers.get('Content-Type') || '').includes('json')) {
      const ink = await response.json();
      entry.data = { kind: 'ink', strokes: ink.strokes || [], width: ink.width ?? 2, color: cssColor(ink.color) };
    } else {
      entry.data = { kind: 'png', image: await createImageBitmap(await response.blob()) };
    }
  } catch {
    // Left as null: the placed box is drawn as an outline; the server will say what is wrong.
  }
  entry.waiting.splice(0).forEach((callback) => callback());
}

/** A colour as the signature file may give it ("#RGB", a name, [r, g, b] in 0…1) → CSS. */
function cssColor(color) {
  if (Array.isArray(color)) return `rgb(${color.map((c) => Math.round(c * 255)).join(',')})`;
  return color || '#000000';
}

/** Draw a signature fitted into box [x0, y0, x1, y1], keeping its aspect ratio, centred (as the server does). */
export function drawSignature(ctx, sig, [x0, y0, x1, y1]) {
  const boxW = x1 - x0, boxH = y1 - y0;
  if (sig.kind === 'png') {
    const k = Math.min(boxW / sig.image.width, boxH / sig.image.height);
    const w = sig.image.width * k, h = sig.image.height * k;
    ctx.drawImage(sig.image, x0 + (boxW - w) / 2, y0 + (boxH - h) / 2, w, h);
    return;
  }
  const points = sig.strokes.flat();
  if (!points.length) return;
  const pad = sig.width / 2;
  const minX = Math.min(...points.map((p) => p[0])) - pad, maxX = Math.max(...points.map((p) => p[0])) + pad;
  const minY = Math.min(...points.map((p) => p[1])) - pad, maxY = Math.max(...points.map((p) => p[1])) + pad;
  const k = Math.min(boxW / (maxX - minX), boxH / (maxY - minY));
  ctx.save();
  ctx.translate(x0 + (boxW - (maxX - minX) * k) / 2, y0 + (boxH - (maxY - minY) * k) / 2);
  ctx.scale(k, k);
  ctx.translate(-minX, -minY);
  ctx.strokeStyle = sig.color;
  ctx.lineWidth = sig.width;
  ctx.lineCap = ctx.lineJoin = 'round';
  ctx.beginPath();
  for (const stroke of sig.strokes) stroke.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.stroke();
  ctx.restore();
}

// ---------------------------------------------------------------------------------------------
// The menu

let pick = () => {};
let tell = () => {};
let chosen = null;
let shownKey = '';   // the list the menu shows, to leave it alone when it has not changed

/** onPick(name): the user chose a signature to place. message(text): report an error. */
export function initSignatures({ onPick, message }) {
  pick = onPick;
  tell = message;
  $('tool-signature').addEventListener('click', (event) => { event.stopPropagation(); toggleMenu(); });
  $('signature-menu').addEventListener('click', (event) => event.stopPropagation());
  document.addEventListener('click', () => toggleMenu(false));
  $('new-signature').addEventListener('click', () => { toggleMenu(false); openPad(); });
  initPad();
}

function toggleMenu(open = $('signature-menu').hidden) {
  $('signature-menu').hidden = !open;
  $('tool-signature').setAttribute('aria-expanded', String(open));
  if (open) refreshMenu();
}

async function refreshMenu() {
  let list;
  try {
    list = (await api('/api/signatures')).signatures || [];
  } catch (err) {
    tell(`Could not list the signatures: ${err.message}`);
    return;
  }
  // Same list as shown: keep the elements (a click on one may be on its way).
  const key = JSON.stringify(list.map(({ name, kind }) => [name, kind]));
  if (key === shownKey) { markChosen(); return; }
  shownKey = key;
  const items = list.map(({ name, kind }) => {
    const item = document.createElement('button');
    item.type = 'button';
    item.className = 'signature-item';
    item.dataset.name = name;
    item.setAttribute('role', 'menuitem');
    item.append(preview(name, kind), document.createTextNode(name));
    item.addEventListener('click', () => choose(name));
    return item;
  });
  if (!items.length) {
    const none = document.createElement('p');
    none.className = 'muted';
    none.textContent = 'No saved signatures yet.';
    items.push(none);
  }
  $('signature-list').replaceChildren(...items);
  markChosen();
}

function markChosen() {
  for (const item of document.querySelectorAll('.signature-item')) item.classList.toggle('chosen', item.dataset.name === chosen);
}

function preview(name, kind) {
  if (kind === 'png') {
    const img = document.createElement('img');
    img.className = 'signature-preview';
    img.alt = '';
    img.src = query('/api/signature', { name });
    return img;
  }
  const canvas = document.createElement('canvas');
  canvas.className = 'signature-preview';
  canvas.width = 192;
  canvas.height = 64;
  const paint = () => {
    const sig = signatureData(name);
    if (sig) drawSignature(canvas.getContext('2d'), sig, [4, 4, 188, 60]);
  };
  signatureData(name, paint);
  paint();
  return canvas;
}

function choose(name) {
  chosen = name;
  markChosen();
  toggleMenu(false);
  pick(name);
}

// ---------------------------------------------------------------------------------------------
// The pad: strokes in the pad's own pixels, y down, as the server's signature files take them.

let strokes = [];
let drawing = null;   // {pointerId, stroke}

function initPad() {
  const pad = $('signature-pad');
  pad.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    pad.setPointerCapture(event.pointerId);
    drawing = { pointerId: event.pointerId, stroke: [padPoint(event)] };
    strokes.push(drawing.stroke);
    paintPad();
  });
  pad.addEventListener('pointermove', (event) => {
    if (!drawing || event.pointerId !== drawing.pointerId) return;
    drawing.stroke.push(padPoint(event));
    paintPad();
  });
  const end = () => {
    if (drawing && drawing.stroke.length === 1) drawing.stroke.push(drawing.stroke[0]);   // a dot
    drawing = null;
  };
  pad.addEventListener('pointerup', end);
  pad.addEventListener('pointercancel', end);
  $('signature-clear').addEventListener('click', () => { strokes = []; paintPad(); });
  $('signature-cancel').addEventListener('click', () => $('signature-dialog').close());
  $('signature-save').addEventListener('click', savePad);
}

function padPoint(event) {
  const pad = $('signature-pad');
  const r = pad.getBoundingClientRect();
  const x = (event.clientX - r.left - pad.clientLeft) * pad.width / pad.clientWidth;   // inside its border
  const y = (event.clientY - r.top - pad.clientTop) * pad.height / pad.clientHeight;
  return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
}

function paintPad() {
  const pad = $('signature-pad');
  const ctx = pad.getContext('2d');
  ctx.clearRect(0, 0, pad.width, pad.height);
  ctx.strokeStyle = '#000000';
  ctx.lineWidth = PAD_PEN_WIDTH;
  ctx.lineCap = ctx.lineJoin = 'round';
  ctx.beginPath();
  for (const stroke of strokes) stroke.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.stroke();
}

function openPad() {
  strokes = [];
  paintPad();
  $('signature-name').value = '';
  $('signature-error').hidden = true;
  $('signature-dialog').showModal();
}

async function savePad() {
  const name = $('signature-name').value.trim();
  const problem = !strokes.length ? 'Sign on the pad first.'
    : !NAME_RULE.test(name) ? 'Give it a name: letters, digits, spaces, - and _.' : null;
  if (problem) return showPadError(problem);
  try {
    await api('/api/signatures', { name, strokes, width: PAD_PEN_WIDTH });
  } catch (err) {
    return showPadError(err.message);
  }
  cache.delete(name);
  shownKey = '';   // its preview may have changed even if the names did not
  $('signature-dialog').close();
  choose(name);
  refreshMenu();
}

function showPadError(text) {
  $('signature-error').textContent = text;
  $('signature-error').hidden = false;
}
