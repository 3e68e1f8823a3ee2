// select.js — the lasso tool: pick up what is drawn and change it, as Notes does. A tap takes the
// mark under it, a loop drawn round marks takes them all; then drag the selection to move it, a
// corner to resize it, the round handle to turn a signature or stamp; the colour, width and
// opacity controls, Delete, Duplicate and Edit text act on it.
//
// Two kinds of marks can be picked up. Unsaved ones (the edit list app.js keeps) are changed in
// the list itself. Saved annotations (/api/annotations) get one {"op":"change"} edit each, which
// the server applies in place (same object, same id; pdftrapper-edit(5)); later changes of the
// same annotation fold into that one edit, so one undo steps back one change. Until saved, a
// changed annotation is previewed from the page's own picture: veiled where it was, its pixels
// drawn where it goes.
//
// Coordinates are page points, y down (draw.js's toPagePoint); the arithmetic is geometry.js.

import {
  area, centre, editBox, handleAt, handles, inside, keepOn, lassoed, mapBox, mergeChanges, resize,
  snapAngle, angleFrom, transformEdit, union,
} from './geometry.js';

let host = null;     // draw.js's host (see initMarkup), and draw.js's own helpers
let selection = [];  // [{saved: id} | {item}]: what is picked up, on host.page()
let drag = null;     // the gesture in progress
let bar;

const $ = (id) => document.getElementById(id);
const DUPLICATE_OFFSET = 12;   // points: a duplicate lands down and to the right of its original

/** ui: { editText({box, text, size, color, kind}, done(text)), pixelsPerPoint(), redraw() } */
export function initSelect(theHost, ui) {
  host = { ...theHost, ...ui };
  bar = $('selection-bar');
  $('sel-delete').addEventListener('click', deleteSelection);
  $('sel-duplicate').addEventListener('click', duplicateSelection);
  $('sel-text').addEventListener('click', editSelectedText);
  document.addEventListener('keydown', (event) => {
    const typing = ['INPUT', 'TEXTAREA'].includes(event.target.tagName);
    if (host.currentTool() !== 'lasso' || typing || !selection.length) return;
    if (event.key === 'Delete' || event.key === 'Backspace') { event.preventDefault(); deleteSelection(); }
    if (event.key === 'Escape') { clearSelection(); host.redraw(); }
  });
}

export function clearSelection() {
  selection = [];
  drag = null;
  showBar();
}

/** Is this unsaved item being dragged? (Then drawSelection draws it where the drag has it.) */
export function isDragged(item) {
  if (!drag || drag.mode === 'lasso') return false;
  const { edit } = item;
  return selection.some((ref) => ref.item === item || (edit.op === 'change' && !edit.copy && ref.saved === edit.id));
}

// ---------------------------------------------------------------------------------------------
// What can be picked up on the page, each with the box it stands in now

/** The saved annotations as they are listed, less those erased, with their pending change. */
function savedMarks(page) {
  const list = host.cachedAnnotations(page) || [];
  const items = host.items();
  const erased = new Set(items.filter(({ edit }) => edit.op === 'erase' && edit.page === page).flatMap(({ edit }) => edit.ids));
  return list.filter((a) => !erased.has(a.id)).map((a) => {
    const pending = items.find(({ edit }) => edit.op === 'change' && !edit.copy && edit.page === page && edit.id === a.id);
    return { ref: { saved: a.id }, annotation: a, change: pending, box: (pending && pending.edit.box) || a.box };
  });
}

/** Unsaved marks (and copies of saved ones) on the page. */
function unsavedMarks(page) {
  const list = host.cachedAnnotations(page) || [];
  return host.items().filter(({ edit }) => edit.page === page && edit.op !== 'erase' && !(edit.op === 'change' && !edit.copy))
    .map((item) => {
      const annotation = item.edit.op === 'change' ? list.find((a) => a.id === item.edit.id) : null;
      return { ref: { item }, annotation, box: item.edit.op === 'change' ? item.edit.box || annotation?.box : editBox(item.edit) };
    })
    .filter((mark) => mark.box);
}

function marks(page) { return [...savedMarks(page), ...unsavedMarks(page)]; }

const same = (a, b) => (a.saved !== undefined ? a.saved === b.saved : a.item === b.item);

function selected(page) {
  const all = marks(page);
  return selection.map((ref) => all.find((m) => same(m.ref, ref))).filter(Boolean);
}

const isStamp = (m) => (m.annotation?.kind === 'Stamp') || m.ref.item?.edit.op === 'signature';

// ---------------------------------------------------------------------------------------------
// Gestures (draw.js hands them over while the lasso tool is chosen)

function reach() { return 10 / host.pixelsPerPoint(); }   // a handle is 10 CSS px round

export function selectDown(p, page) {
  // Saved annotations are listed once per page; picking starts when they are here.
  if (!host.cachedAnnotations(page)) host.annotations(page).then(host.redraw, () => {});
  const chosen = selected(page);
  const bounds = union(chosen.map((m) => m.box));
  if (bounds) {
    if (chosen.length === 1 && isStamp(chosen[0]) && chosen[0].ref.saved !== undefined) {
      const knob = rotationKnob(bounds);
      if (Math.hypot(p[0] - knob[0], p[1] - knob[1]) <= reach()) {
        drag = { mode: 'rotate', page, start: p, bounds, angle: 0 };
        return;
      }
    }
    const handle = handleAt(p, bounds, reach());
    if (handle) { drag = { mode: 'resize', page, handle, start: p, bounds, to: bounds }; return; }
    if (inside(p, bounds, reach() / 2)) { drag = { mode: 'move', page, start: p, bounds, to: bounds }; return; }
  }
  drag = { mode: 'lasso', page, start: p, points: [p] };
}

export function selectMove(p) {
  if (!drag) return;
  const page = host.page();
  const limit = [0, 0, page.width, page.height];
  if (drag.mode === 'lasso') {
    drag.points.push(p);
  } else if (drag.mode === 'move') {
    const [dx, dy] = [p[0] - drag.start[0], p[1] - drag.start[1]];
    const b = drag.bounds;
    drag.to = keepOn([b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy], limit);
  } else if (drag.mode === 'resize') {
    const keepAspect = selected(drag.page).some(isStamp);
    drag.to = keepOn(resize(drag.bounds, drag.handle, p, { keepAspect }), limit);
  } else if (drag.mode === 'rotate') {
    drag.angle = snapAngle(angleFrom(centre(drag.bounds), p));
  }
}

export function selectUp(p) {
  const g = drag;
  drag = null;
  if (!g) return;
  selectMove(p);
  const tapped = Math.hypot(p[0] - g.start[0], p[1] - g.start[1]) < 2;
  if (g.mode === 'lasso') {
    const all = marks(g.page);
    if (tapped) {
      // The smallest mark under the tap: a note on a highlight, a word's mark on a page-wide box.
      const under = all.filter((m) => inside(p, m.box, 2)).sort((a, b) => area(a.box) - area(b.box));
      selection = under.length ? [under[0].ref] : [];
    } else {
      selection = lassoed(g.points, all.map((m) => m.box)).map((i) => all[i].ref);
    }
    showBar();
    return;
  }
  if (tapped && g.mode !== 'rotate') return;
  if (g.mode === 'rotate') {
    if (g.angle) changeSaved(selected(g.page), () => ({ rotate: g.angle }));
    return;
  }
  carry(g.page, g.bounds, g.to);
}

/** Everything selected moved and scaled from `from` into `to`, as one undo step. */
function carry(page, from, to) {
  const chosen = selected(page);
  let items = host.items();
  const replaced = new Map();
  for (const m of chosen) {
    if (m.ref.item) {
      const edit = transformEdit(m.ref.item.edit.op === 'change' ? { ...m.ref.item.edit, box: m.box } : m.ref.item.edit, from, to);
      const item = { edit, label: m.ref.item.label };
      replaced.set(m.ref.item, item);
      items = items.map((it) => (it === m.ref.item ? item : it));
    } else {
      items = withChange(items, page, m, { box: mapBox(m.box, from, to) });
    }
  }
  selection = selection.map((ref) => (ref.item && replaced.has(ref.item) ? { item: replaced.get(ref.item) } : ref));
  host.commit(items);
  showBar();
}

/** `items` with the saved mark's change folded in (its pending change replaced, or one added). */
function withChange(items, page, m, change) {
  if (m.change) {
    const merged = { edit: mergeChanges(m.change.edit, change), label: m.change.label };
    return items.map((it) => (it === m.change ? merged : it));
  }
  const label = `Change ${m.annotation.kind === 'FreeText' ? 'text box' : m.annotation.kind.toLowerCase()} on page ${page}`;
  return [...items, { edit: { op: 'change', page, id: m.annotation.id, ...change }, label }];
}

function changeSaved(chosen, change) {
  let items = host.items();
  for (const m of chosen) if (m.ref.saved !== undefined) items = withChange(items, host.page().number, m, change(m));
  host.commit(items);
}

// ---------------------------------------------------------------------------------------------
// The bar's actions and the style controls

/** The colour, width or opacity control moved while marks are selected: they take it. */
export function restyle(key, value) {
  const page = host.page();
  if (!page || !selection.length) return false;
  let items = host.items();
  const replaced = new Map();
  for (const m of selected(page.number)) {
    if (isStamp(m) && key !== 'opacity') continue;
    const textual = m.annotation?.kind === 'FreeText' || m.ref.item?.edit.op === 'textbox';
    const field = key === 'width' && textual ? 'size' : key;
    if (m.ref.item) {
      const item = { edit: { ...m.ref.item.edit, [field]: value }, label: m.ref.item.label };
      replaced.set(m.ref.item, item);
      items = items.map((it) => (it === m.ref.item ? item : it));
    } else if (!(m.annotation.kind === 'Text' && key !== 'color')) {
      items = withChange(items, page.number, m, { [field]: value });
    }
  }
  selection = selection.map((ref) => (ref.item && replaced.has(ref.item) ? { item: replaced.get(ref.item) } : ref));
  host.commit(items);
  return true;
}

function deleteSelection() {
  const page = host.page();
  if (!page) return;
  const chosen = selected(page.number);
  const gone = new Set(chosen.filter((m) => m.ref.item).map((m) => m.ref.item));
  const ids = chosen.filter((m) => m.ref.saved !== undefined).map((m) => m.ref.saved);
  // A saved annotation's pending change goes with it: erased, there is nothing to change.
  let items = host.items().filter((it) => !gone.has(it) && !(it.edit.op === 'change' && !it.edit.copy && ids.includes(it.edit.id)));
  if (ids.length) {
    items = [...items, { edit: { op: 'erase', page: page.number, ids }, label: `Erase ${ids.length} annotation${ids.length > 1 ? 's' : ''} on page ${page.number}` }];
  }
  selection = [];
  host.commit(items);
  showBar();
}

function duplicateSelection() {
  const page = host.page();
  if (!page) return;
  const limit = [0, 0, page.width, page.height];
  const copies = selected(page.number).map((m) => {
    const to = keepOn(m.box.map((v) => v + DUPLICATE_OFFSET), limit);
    if (m.ref.item) return { edit: transformEdit(m.ref.item.edit.op === 'change' ? { ...m.ref.item.edit, box: m.box } : m.ref.item.edit, m.box, to), label: m.ref.item.label };
    const pending = m.change ? { ...m.change.edit } : {};
    delete pending.op; delete pending.page; delete pending.id;
    return { edit: { op: 'change', page: page.number, id: m.annotation.id, ...pending, copy: true, box: to }, label: `Duplicate on page ${page.number}` };
  });
  if (!copies.length) return;
  selection = copies.map((item) => ({ item }));
  host.commit([...host.items(), ...copies]);
  showBar();
}

function editSelectedText() {
  const page = host.page();
  const [m] = page ? selected(page.number) : [];
  if (!m) return;
  const edit = m.ref.item?.edit;
  const kind = m.annotation ? (m.annotation.kind === 'Text' ? 'note' : 'textbox') : edit.op;
  const text = edit && edit.op !== 'change' ? (edit.op === 'note' ? edit.contents : edit.text) : (m.change?.edit.text ?? edit?.text ?? m.annotation.contents ?? '');
  host.editText({ kind, box: m.box, text, size: edit?.size || m.change?.edit.size || 12 }, (words) => {
    if (!words.trim() || words === text) return;
    if (m.ref.item) {
      const key = edit.op === 'note' ? 'contents' : 'text';
      const item = { edit: { ...edit, [key]: words }, label: m.ref.item.label };
      selection = [{ item }];
      host.commit(host.items().map((it) => (it === m.ref.item ? item : it)));
    } else {
      host.commit(withChange(host.items(), page.number, m, { text: words }));
    }
  });
}

/** The bar shows while something is selected; Edit text only for one text box or note. */
export function showBar() {
  if (!bar) return;
  const page = host.page();
  const chosen = page ? selected(page.number) : [];
  bar.hidden = !chosen.length;
  $('sel-count').textContent = chosen.length ? `${chosen.length} selected` : '';
  const one = chosen.length === 1 ? chosen[0] : null;
  const textual = one && (['FreeText', 'Text'].includes(one.annotation?.kind) || ['textbox', 'note'].includes(one.ref.item?.edit.op));
  $('sel-text').hidden = !textual;
}

// ---------------------------------------------------------------------------------------------
// Drawing (inside draw.js's draw(), in page points)

function rotationKnob(b) { return [(b[0] + b[2]) / 2, b[1] - 3 * reach()]; }

/**
 * A saved annotation as an unsaved mark of the same shape, when the server said how it is drawn
 * (ink, lines, rectangles, ovals): its preview is then drawn, not copied from the picture.
 */
function vectorOf(a) {
  const style = { color: a.color || '#000000', width: a.width || 1, opacity: a.opacity ?? 1 };
  if (a.kind === 'Ink' && a.strokes) return { op: 'ink', strokes: a.strokes, ...style };
  if (a.kind === 'Line' && a.strokes && a.strokes[0]?.length === 2) return { op: 'line', from: a.strokes[0][0], to: a.strokes[0][1], ...style };
  if (a.kind === 'Polygon' && a.strokes && a.color) return { op: 'polygon', points: a.strokes[0], ...style };
  if (a.kind === 'Square' && a.color) return { op: 'rect', box: a.box, ...style };
  if (a.kind === 'Circle' && a.color) return { op: 'oval', box: a.box, ...style };
  return null;
}

/** A saved annotation as `change` leaves it, over the page: veiled where it was (unless a copy), drawn where it goes. */
function drawMoved(ctx, img, page, annotation, to, change = {}, extraTurn = 0) {
  const from = annotation.box;
  if (!change.copy) {
    ctx.save();
    ctx.fillStyle = 'rgba(255,255,255,0.8)';
    ctx.fillRect(from[0], from[1], from[2] - from[0], from[3] - from[1]);
    ctx.restore();
  }
  const vector = vectorOf(annotation);
  if (vector) {
    const styled = { ...vector };
    for (const key of ['color', 'width', 'opacity']) if (change[key] !== undefined) styled[key] = change[key];
    host.drawEdit(transformEdit(styled, from, to));
  } else {
    drawPixels(ctx, img, page, from, to, (change.rotate || 0) + extraTurn, change.opacity);
  }
}

/** A saved annotation's pending change. */
export function drawChange(ctx, img, page, annotation, edit) {
  if (annotation) drawMoved(ctx, img, page, annotation, edit.box || annotation.box, edit);
}

/** The page picture's pixels of box `from` drawn into `to`, turned `degrees` about its centre. */
function drawPixels(ctx, img, page, from, to, degrees, opacity) {
  if (!img.naturalWidth || from[2] <= from[0] || from[3] <= from[1]) return;
  const kx = img.naturalWidth / page.width, ky = img.naturalHeight / page.height;
  const [cx, cy] = centre(to), w = to[2] - to[0], h = to[3] - to[1];
  ctx.save();
  ctx.globalAlpha = opacity ?? 1;
  ctx.translate(cx, cy);
  ctx.rotate((degrees * Math.PI) / 180);
  ctx.drawImage(img, from[0] * kx, from[1] * ky, (from[2] - from[0]) * kx, (from[3] - from[1]) * ky, -w / 2, -h / 2, w, h);
  ctx.restore();
}

/** The selection's frame and handles, and the drag in progress. */
export function drawSelection(ctx, img, page) {
  const px = 1 / host.pixelsPerPoint();
  if (drag && drag.mode === 'lasso') {
    ctx.save();
    ctx.strokeStyle = '#2762c9'; ctx.lineWidth = 1.5 * px; ctx.setLineDash([5 * px, 4 * px]);
    ctx.beginPath();
    drag.points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.stroke();
    ctx.restore();
  }
  const chosen = selected(page.number);
  let bounds = union(chosen.map((m) => m.box));
  if (!bounds) return;
  let angle = 0;
  if (drag && (drag.mode === 'move' || drag.mode === 'resize')) {
    // The marks follow the drag: their pixels (saved) or the marks themselves (unsaved).
    for (const m of chosen) {
      const to = mapBox(m.box, drag.bounds, drag.to);
      if (m.ref.item && m.ref.item.edit.op !== 'change') host.drawEdit(transformEdit(m.ref.item.edit, drag.bounds, drag.to));
      else drawMoved(ctx, img, page, m.annotation, to, { ...(m.change?.edit || {}), copy: m.ref.item !== undefined });
    }
    bounds = drag.to;
  } else if (drag && drag.mode === 'rotate') {
    angle = drag.angle;
    const m = chosen[0];
    drawMoved(ctx, img, page, m.annotation, m.box, m.change?.edit || {}, angle);
  }
  ctx.save();
  const [cx, cy] = centre(bounds);
  ctx.translate(cx, cy); ctx.rotate((angle * Math.PI) / 180); ctx.translate(-cx, -cy);
  ctx.strokeStyle = '#2762c9'; ctx.lineWidth = 1.5 * px; ctx.setLineDash([6 * px, 4 * px]);
  ctx.strokeRect(bounds[0], bounds[1], bounds[2] - bounds[0], bounds[3] - bounds[1]);
  ctx.setLineDash([]);
  ctx.fillStyle = '#ffffff';
  const size = 8 * px;
  for (const [x, y] of Object.values(handles(bounds))) {
    ctx.fillRect(x - size / 2, y - size / 2, size, size);
    ctx.strokeRect(x - size / 2, y - size / 2, size, size);
  }
  if (chosen.length === 1 && isStamp(chosen[0]) && chosen[0].ref.saved !== undefined) {
    const knob = rotationKnob(bounds);
    ctx.beginPath(); ctx.moveTo(cx, bounds[1]); ctx.lineTo(knob[0], knob[1]); ctx.stroke();
    ctx.beginPath(); ctx.arc(knob[0], knob[1], size * 0.7, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
  }
  if (angle) {
    ctx.fillStyle = '#2762c9'; ctx.font = `${12 * px}px sans-serif`;
    ctx.fillText(`${angle}°`, bounds[2] + 4 * px, bounds[1]);
  }
  ctx.restore();
}
