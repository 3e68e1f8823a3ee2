// store.js — the workspace's one state: the view, the open document, the page shown, the unsaved
// edits and their undo stack, the zoom. Modules read and write `state`; what others must follow
// goes through publish(topic), and they subscribe(topic, listener) to it ('edits': the unsaved list
// changed, and the strip's preview and the canvas follow).

export const state = {
  view: null,        // 'library' | 'status' | 'doc'
  path: null,        // the open document's path
  doc: null,         // its /api/document: the current revision; doc.end is the base_end we save on
  shown: null,       // what the strip and the page show: `doc`, or a past revision's document
  revision: null,    // the history entry shown read-only, or null for the current document
  page: 1,           // the page shown, 1-based, in `shown`
  items: [],         // unsaved edits, in the order made: [{id, edit, label}], kept in IndexedDB (keep.js)
  undoStack: [],     // the changes made to `items`, each {at, removed, added} (local undo)
  redoStack: [],     // the changes undone (local redo)
  words: new Map(),        // page → Promise of its words
  annotations: new Map(),  // page → {promise, list}
  fitWidth: false,   // the page fills the area's width (and scrolls) instead of showing whole
  zoom: 1,           // times the fitted width: two fingers pinch it (pinch.js), 1 to 4
  busy: false,       // a save, undo or redo is in flight
  loadSeq: 0,        // bumps with every document load; an older answer is dropped
};

const listeners = new Map();   // topic → [listener]

/** `listener` is called whenever `topic` is published. */
export function subscribe(topic, listener) {
  if (!listeners.has(topic)) listeners.set(topic, []);
  listeners.get(topic).push(listener);
}

export function publish(topic) {
  for (const listener of listeners.get(topic) || []) listener();
}
