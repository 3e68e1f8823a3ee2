// live.js — live updates: the daemon's Server-Sent Events refresh the lists and the open document
// (or, with unsaved edits, say that it changed).

import { state } from './store.js';
import { $, showMessage } from './ui.js';
import { refreshListsSoon } from './library.js';
import { refreshDocument } from './document.js';
import { hasUnsaved } from './unsaved.js';

export const CHANGED_NOTICE = 'The document changed (a scan or another tab); Save will be refused — reload';

// ---------------------------------------------------------------------------------------------
// Live updates from the daemon

export let events = null;   // the EventSource, closed at Log out

export function connectEvents() {
  const source = new EventSource('/api/events');
  events = source;
  const live = (on) => { $('live').classList.toggle('on', on); $('live').textContent = on ? 'live' : 'offline'; };
  source.addEventListener('open', () => live(true));
  source.addEventListener('error', () => live(false));   // EventSource reconnects by itself
  source.addEventListener('status', refreshListsSoon);
  source.addEventListener('library', refreshListsSoon);   // documents the list showed as pending are read
  // Reconnected after missing more than the server keeps: look at the open document again.
  source.addEventListener('reset', () => {
    refreshListsSoon();
    // With unsaved marks nothing is reloaded: a save against a document that moved on is refused anyway.
    if (state.view === 'doc' && state.doc && !state.revision && !hasUnsaved()) refreshDocument();
  });
  source.addEventListener('revision', (event) => {
    refreshListsSoon();
    let revision;
    try { revision = JSON.parse(event.data); } catch { return; }
    onRevision(revision);
  });
}

export function onRevision({ path, end }) {
  if (state.view !== 'doc' || path !== state.path || !state.doc) return;
  if (state.busy || end === state.doc.end) return;   // our own save: loaded when it returns
  if (hasUnsaved()) {
    // Keep the marks and base_end: a Save now is refused with 409, which is what we want.
    showMessage(CHANGED_NOTICE, { kind: 'notice', reload: true });
    return;
  }
  refreshDocument();
}
