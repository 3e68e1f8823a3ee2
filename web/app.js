// app.js — the workspace's entry: routing (#/, #/status, #/doc/PATH[?page=N&q=WORDS]), the
// keyboard, Log out, and wiring the modules together at start. The views are library.js and
// document.js (with strip.js), the unsaved edits and saving unsaved.js, live updates live.js, the
// shared state store.js; drawing is draw.js (with select.js, ruler.js, shapes.js), the arithmetic
// the Node tests cover geometry.js, shapes.js and edits.js. The contract with the server is web/README.md.
//
// Tests wait on document.body.dataset.state ("loading", "ready", "saving", "error", "logged-out") and read
// document.body.dataset.end (the open document's end) and document.body.dataset.zoom (the page's zoom).

import * as kept from './keep.js';
import { api, query } from './api.js';
import { initMarkup, setTool, chooseSignature, dropGesture, render } from './draw.js';
import { initPinch } from './pinch.js';
import { initSignatures } from './signatures.js';
import { initReframe } from './reframe.js';
import { initUpload } from './upload.js';
import { initFind } from './find.js';
import { initTakeout } from './takeout.js';
import { initZoom, step as zoomStep, fit as zoomFit } from './zoom.js';
import { state, subscribe } from './store.js';
import { $, setState, showMessage, hideMessage } from './ui.js';
import { showLibrary, showStatus } from './library.js';
import { openDocument, showPage, pageFit, layoutPage, setZoom, keepPageNavInView, onPageImageLoad, onPageImageError, backToCurrent, startReframe, wordsOf } from './document.js';
import { shownPageTurned, stripOrder, stepPage, queuePageOp, initStripEvents, previewStrip } from './strip.js';
import { hasUnsaved, editable, commit, clearEdits, undo, redo, save, reloadDiscarding } from './unsaved.js';
import { events, connectEvents } from './live.js';

// ---------------------------------------------------------------------------------------------
// Routing: #/ (library), #/status, #/doc/FOLDER/NAME.pdf[?page=N&q=WORDS] (a search's hit: that
// page, the words found marked)

export let currentHash = '';

export function parseHash() {
  const hash = location.hash.replace(/^#/, '') || '/';
  if (hash === '/status') return { view: 'status' };
  if (hash.startsWith('/doc/')) {
    const [where, search = ''] = hash.slice(5).split('?');
    const params = new URLSearchParams(search);
    try {
      return { view: 'doc', path: where.split('/').map(decodeURIComponent).join('/'),
        page: Number(params.get('page')) || null, find: params.get('q') || '' };
    } catch { /* a malformed escape: fall back to the library */ }
  }
  return { view: 'library' };
}

export function route() {
  const next = parseHash();
  // Leaving a document with unsaved edits loses nothing: they are kept, and back when it is opened again.
  currentHash = location.hash;
  state.view = next.view;
  for (const view of ['library', 'status', 'document']) $(`view-${view}`).hidden = view !== (next.view === 'doc' ? 'document' : next.view);
  $('nav-library').classList.toggle('active', next.view === 'library');
  $('nav-status').classList.toggle('active', next.view === 'status');
  $('doc-title').textContent = next.view === 'doc' ? next.path : '';
  document.title = next.view === 'doc' ? `${next.path} — PDFTrapper` : 'PDFTrapper';
  hideMessage();
  if (next.view === 'library') showLibrary();
  else if (next.view === 'status') showStatus();
  else openDocument(next.path, next);
}

// ---------------------------------------------------------------------------------------------
// Log out: the server ends the session for good (the cookie is refused even if replayed) and the
// browser forgets it; the login address starts a new one.

export async function logout() {
  if (hasUnsaved() && !confirm(`Log out? The ${state.items.length} unsaved changes to ${state.path} will be lost.`)) return;
  // The next person at this browser sees none of them, of this document or any other.
  kept.forgetAll().catch(() => {});
  try {
    await api('/logout', {});
  } catch (err) {
    // 401: the session had ended already (expired, or a new token), which is what was asked.
    if (err.status !== 401) { showMessage(err.message); return; }
  }
  clearEdits();
  if (events) events.close();
  $('live').classList.remove('on');
  $('live').textContent = 'offline';
  for (const view of ['library', 'status', 'document']) $(`view-${view}`).hidden = true;
  $('logout').hidden = true;
  document.querySelector('#topbar nav').hidden = true;
  $('doc-title').textContent = '';
  state.view = null;
  showMessage('Logged out. To log in again, open the address that "pdftrapper web-url" prints.', { kind: 'notice' });
  setState('logged-out');
}

// ---------------------------------------------------------------------------------------------
// Keyboard

export function onKey(event) {
  if (state.view !== 'doc' || document.querySelector('dialog[open]')) return;
  const key = event.key.toLowerCase();
  const mod = event.ctrlKey || event.metaKey;
  if (mod && key === 's') { event.preventDefault(); save(); return; }
  if (mod && key === 'f') { event.preventDefault(); $('find-input').focus(); $('find-input').select(); return; }
  if (event.target.closest('input, textarea, select')) return;
  if (mod && key === 'z' && !event.shiftKey) { event.preventDefault(); undo(); return; }
  if (mod && (key === 'y' || (key === 'z' && event.shiftKey))) { event.preventDefault(); redo(); return; }
  // Ctrl with + − 0 zooms the page, not the whole workspace, as a PDF viewer does.
  if (mod && ['+', '=', '-', '0'].includes(key)) {
    event.preventDefault();
    if (key === '0') zoomFit(); else zoomStep(key === '-' ? -1 : 1);
    return;
  }
  if (mod || event.altKey || !state.shown) return;
  const step = { arrowup: -1, arrowleft: -1, pageup: -1, arrowdown: 1, arrowright: 1, pagedown: 1 }[key];
  if (step) { event.preventDefault(); stepPage(step); }
  if (key === '+' || key === '=') { event.preventDefault(); zoomStep(1); }
  if (key === '-') { event.preventDefault(); zoomStep(-1); }
  if (key === '0') { event.preventDefault(); zoomFit(); }
  if (key === 'home') showPage(stripOrder()[0] || 1);
  if (key === 'end') showPage(stripOrder().at(-1) || state.shown.pages.length);
}


// ---------------------------------------------------------------------------------------------
// Start

export function start() {
  subscribe('edits', previewStrip);
  subscribe('edits', render);
  initMarkup({
    page: () => {
      if (state.view !== 'doc' || !state.shown || !state.shown.pages.length) return null;
      const page = state.shown.pages[state.page - 1];
      return { number: state.page, width: page.width, height: page.height };
    },
    items: () => state.items,
    commit,
    readOnly: () => !editable() || shownPageTurned(),
    showMarks: () => !state.revision,
    words: wordsOf,
    annotations: (page) => {
      if (!state.annotations.has(page)) {
        const entry = { list: null };
        entry.promise = api(query('/api/annotations', { path: state.path, page }))
          .then((r) => (entry.list = r.annotations || []));
        entry.promise.catch(() => state.annotations.delete(page));
        state.annotations.set(page, entry);
      }
      return state.annotations.get(page).promise;
    },
    cachedAnnotations: (page) => (state.annotations.get(page) || {}).list || null,
    message: (text) => showMessage(text, { kind: 'notice' }),
  });
  initSignatures({ onPick: chooseSignature, message: (text) => showMessage(text) });
  initStripEvents();
  initReframe();
  initFind({
    // Marks and hits are of the document as it is now, not of a past revision on screen.
    page: () => {
      if (state.view !== 'doc' || !state.shown || state.revision || !state.shown.pages.length) return null;
      const page = state.shown.pages[state.page - 1];
      return { number: state.page, width: page.width, height: page.height };
    },
    words: (page) => wordsOf(page),
    goTo: (page) => showPage(page),
    showLibrary: (searching) => { $('search-view').hidden = !searching; $('library').hidden = searching; },
  });
  initTakeout({
    document: () => {
      if (state.view !== 'doc' || !state.doc) return null;
      return { path: state.path, pages: state.doc.pages.length, end: state.revision ? state.revision.end : null,
        revision: state.revision ? state.revision.number : null };
    },
    message: (text) => showMessage(text),
  });
  initUpload({
    target: () => (state.view === 'doc' ? state.path : null),
    // Added to the open document: show its new pages as they land, as a scanner's.
    onStored: (files, forDocument) => { if (forDocument) state.followUpload = true; },
  });
  initPinch({
    area: $('page-area'),
    frame: $('page-frame'),
    zoom: () => state.zoom,
    setZoom,
    onStart: dropGesture,
  });
  initZoom({
    area: $('page-area'),
    frame: $('page-frame'),
    zoom: () => state.zoom,
    setZoom,
    fitted: () => (state.view === 'doc' && state.shown && state.shown.pages.length ? pageFit().across : 0),
    pageWidth: () => pageFit().shownWidth,
  });
  document.body.dataset.zoom = '1';
  // A phone shows the page's width and scrolls down it, as its own PDF viewers do.
  if (matchMedia('(max-width: 600px)').matches) {
    state.fitWidth = true;
    $('page-fit').setAttribute('aria-pressed', 'true');
  }

  $('page-image').addEventListener('load', onPageImageLoad);
  $('page-image').addEventListener('error', onPageImageError);
  $('page-area').addEventListener('scroll', keepPageNavInView, { passive: true });
  $('page-prev').addEventListener('click', () => stepPage(-1));
  $('page-next').addEventListener('click', () => stepPage(1));
  $('page-frame').addEventListener('pointerdown', () => {
    const tool = document.querySelector('#tools [data-tool][aria-pressed="true"]');
    if (tool && tool.dataset.tool && editable() && shownPageTurned()) {
      showMessage(`Page ${state.page} is rotated in the unsaved changes: mark it up after Save (or undo the rotation).`, { kind: 'notice' });
    }
  });
  $('page-fit').addEventListener('click', () => {
    state.fitWidth = !state.fitWidth;
    $('page-fit').setAttribute('aria-pressed', String(state.fitWidth));
    if (state.shown && state.shown.pages.length) layoutPage();
  });
  $('page-rotate').addEventListener('click', () => queuePageOp('rotate'));
  $('page-delete').addEventListener('click', () => queuePageOp('delete'));
  $('page-insert').addEventListener('click', () => queuePageOp('insert'));
  $('page-reframe').addEventListener('click', startReframe);
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('save').addEventListener('click', save);
  $('back-to-current').addEventListener('click', backToCurrent);
  $('reload').addEventListener('click', reloadDiscarding);
  $('message-close').addEventListener('click', hideMessage);
  $('logout').addEventListener('click', logout);
  document.addEventListener('keydown', onKey);

  // The page follows the area's width (window resizes, the history panel wrapping below).
  let resizeTimer = 0;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (state.view === 'doc' && state.shown && state.shown.pages.length) layoutPage(); }, 150);
  }).observe($('page-area'));

  // Unsaved edits are kept in the browser as they are made: only one not yet written would be lost.
  window.addEventListener('beforeunload', (event) => {
    if (kept.writing()) { event.preventDefault(); event.returnValue = ''; }
  });
  window.addEventListener('hashchange', route);
  setTool('');
  connectEvents();
  route();
}

start();
