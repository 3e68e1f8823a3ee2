// unsaved.js — the unsaved edits (kept in IndexedDB by keep.js) with their undo and redo, the
// controls that follow them, and saving: one script to the server, its own undo and redo, a 409
// reloaded with the edits kept. The list arithmetic is edits.js's.

import * as kept from './keep.js';
import { api } from './api.js';
import { refreshCanvasMode, commitText } from './draw.js';
import { state, publish } from './store.js';
import { $, setState, showMessage, hideMessage, reportFailure } from './ui.js';
import { loadDocument, setReady, updateReframe } from './document.js';
import { positionOf } from './strip.js';
import { PAGE_OPS, difference, replayed, wireEdit } from './edits.js';

// ---------------------------------------------------------------------------------------------
// Unsaved edits: a list of {id, edit, label}, kept in IndexedDB as it changes (keep.js). Undo and
// redo step through the changes made to it, each {at, removed, added}: what a change took away
// and added at `at`, so that ten thousand strokes cost ten thousand small steps, not ten thousand
// copies of the list.

export function hasUnsaved() {
  return state.items.length > 0;
}

export function editable() {
  return Boolean(state.doc) && !state.revision && !state.busy;
}

/** `items` becomes the unsaved list; what changed is written to the browser's store unless `keep` is false. */
export function setEdits(items, { keep = true } = {}) {
  for (const item of items) if (item.id === undefined) item.id = kept.newId();
  const change = difference(state.items, items);
  state.items = items;
  if (keep && state.path) {
    kept.record(state.path, change.removed, change.added)
      .catch((err) => showMessage(`Unsaved changes cannot be kept in this browser (${err && err.message}); save them soon.`));
  }
  return change;
}

/** Replace the unsaved edits (every change goes through here, so Undo can step back). */
export function commit(items) {
  state.undoStack.push(setEdits(items));
  state.redoStack = [];
  changed();
}

/** `change` undone (or, with `forward`, done again) on the list. */
export function replay(change, forward) {
  setEdits(replayed(state.items, change, forward));
}

/** Forget the unsaved edits: `saved` (answered 200) or thrown away by the person; gone from the store too. */
export function clearEdits() {
  if (state.path && state.items.length) kept.forget(state.path, state.items).catch(() => {});
  setEdits([], { keep: false });
  state.undoStack = [];
  state.redoStack = [];
  changed();
}

/** The unsaved list changed: its controls follow, and every module subscribed to 'edits' (the strip, the canvas). */
export function changed() {
  updateControls();
  publish('edits');
}

export function updateControls() {
  const can = editable();
  const n = state.items.length;
  for (const button of document.querySelectorAll('#tools [data-tool], #page-ops button')) {
    if (button.id !== 'tool-none') button.disabled = !can;
  }
  if (!can && state.revision) $('signature-menu').hidden = true;
  const localUndo = state.undoStack.length > 0, localRedo = state.redoStack.length > 0;
  $('undo').disabled = !can || !(localUndo || state.doc.can_undo);
  $('redo').disabled = !can || !(localRedo || (!n && state.doc.can_redo));
  $('save').disabled = !can || !n;
  updateReframe();
  const count = $('unsaved-count');
  count.dataset.count = String(n);
  count.textContent = n ? `${n} unsaved change${n > 1 ? 's' : ''}` : '';
  count.title = state.items.map((item) => item.label).join('\n');
  refreshCanvasMode();
}

export function undo() {
  commitText();
  if (!editable()) return;
  if (state.undoStack.length) {
    const change = state.undoStack.pop();
    replay(change, false);
    state.redoStack.push(change);
    changed();
  } else if (state.doc.can_undo) {
    serverStep('undo');
  }
}

export function redo() {
  commitText();
  if (!editable()) return;
  if (state.redoStack.length) {
    const change = state.redoStack.pop();
    replay(change, true);
    state.undoStack.push(change);
    changed();
  } else if (!hasUnsaved() && state.doc.can_redo) {
    serverStep('redo');
  }
}

// ---------------------------------------------------------------------------------------------
// Saving, and the server's own undo and redo

export async function save() {
  commitText();
  if (!editable() || !hasUnsaved()) return;
  const marks = state.items.filter(({ edit }) => !PAGE_OPS.includes(edit.op));
  const pageOps = state.items.filter(({ edit }) => PAGE_OPS.includes(edit.op));
  const body = { ...base(), edits: [...marks, ...pageOps].map((item) => wireEdit(item.edit)) };
  const landing = positionOf(state.page);   // the page shown, where Save puts it (0: deleted)
  await write('/api/save', body, () => {
    if (landing) state.page = landing;
    showMessage('Saved.', { kind: 'info' });
  });
}

export function serverStep(kind) {
  return write(`/api/${kind}`, base(), () => {});
}

/**
 * What every change names of the document it was made on: its end, and its revision id when the
 * server gives one (two revisions of one length are told apart by it; a stale one gets 409).
 */
export function base() {
  return { path: state.path, base_end: state.doc.end, ...(state.doc.revision ? { base_revision: state.doc.revision } : {}) };
}

/**
 * POST a change; on success forget the unsaved edits and reload. Busy (and "saving") until then.
 * When the document moved on meanwhile (409: another tab or a scan), it is loaded as it is now
 * with the unsaved edits kept, and a line says so: Save again puts them on the new revision.
 */
export async function write(url, body, onDone) {
  state.busy = true;
  setState('saving');
  updateControls();
  try {
    await api(url, body);
  } catch (err) {
    state.busy = false;
    if (err.status === 409) {
      const n = state.items.length;
      await loadDocument();
      showMessage(n ? `The document changed meanwhile (another tab or a scan): reloaded, your ${n} unsaved change${n > 1 ? 's are' : ' is'} kept — Save again to add ${n > 1 ? 'them' : 'it'}.`
        : 'The document changed meanwhile (another tab or a scan): reloaded as it is now; nothing was changed.', { kind: 'notice' });
      return;
    }
    reportFailure(err);   // on 422 and other failures the unsaved edits stay, kept in the browser
    updateControls();
    setState('ready');
    return;
  }
  clearEdits();
  hideMessage();
  onDone();
  // Still busy while reloading, so the live event of our own revision does not load it twice.
  await loadDocument();
  state.busy = false;
  updateControls();
  if ($('page-image').complete || !state.shown.pages.length) setReady();
}

/** The Reload button: forget the unsaved edits and show the document as it is now. */
export function reloadDiscarding() {
  hideMessage();
  clearEdits();
  if (state.view === 'doc') loadDocument(); else location.reload();
}
