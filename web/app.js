// app.js — the workspace: routing, the library and status views, the document view (page strip,
// page, history), the unsaved edits with their undo stack, saving, and live updates.
//
// The contract with the server is web/README.md. Drawing on the page is draw.js; signatures are
// signatures.js; api.js does the HTTP.
//
// Tests wait on document.body.dataset.state ("loading", "ready", "saving", "error", "logged-out") and read
// document.body.dataset.end (the open document's end) and document.body.dataset.zoom (the page's zoom).

import { api, query } from './api.js';
import {
  initMarkup, setTool, chooseSignature, refreshCanvasMode, layoutCanvas, render,
  cancelGesture, commitText, dropGesture,
} from './draw.js';
import { initPinch } from './pinch.js';
import { initSignatures } from './signatures.js';
import { initReframe, openReframe } from './reframe.js';
import { initUpload } from './upload.js';
import * as kept from './keep.js';
import { initFind, openedDocument, pageShown } from './find.js';
import { initTakeout } from './takeout.js';
import { initZoom, showZoom, step as zoomStep, fit as zoomFit } from './zoom.js';

const THUMB_WIDTH = 160;        // pixels asked for a strip thumbnail
const HISTORY_THUMB_WIDTH = 80; // pixels asked for a history thumbnail
const MAX_PAGE_CSS_WIDTH = 1100;
const CHANGED_NOTICE = 'The document changed (a scan or another tab); Save will be refused — reload';

const $ = (id) => document.getElementById(id);

const state = {
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

// ---------------------------------------------------------------------------------------------
// Small helpers

/** el('a', {class: 'x', href: '#', 'data-path': p, onclick: f}, 'text', child) */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  node.append(...children.filter((c) => c !== undefined && c !== null));
  return node;
}

function setState(value) {
  document.body.dataset.state = value;
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

function formatDate(value) {
  if (value === undefined || value === null || value === '') return '';
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function formatSize(bytes) {
  if (typeof bytes !== 'number') return '';
  const units = ['B', 'kB', 'MB', 'GB'];
  let i = 0;
  while (bytes >= 1000 && i < units.length - 1) { bytes /= 1000; i++; }
  return `${i ? bytes.toFixed(bytes < 10 ? 1 : 0) : bytes} ${units[i]}`;
}

function docHash(path) {
  return `#/doc/${path.split('/').map(encodeURIComponent).join('/')}`;
}

// ---------------------------------------------------------------------------------------------
// The message bar: errors, notices, and a Reload button when the document moved on.

let messageTimer = 0;

/** kind: 'error' | 'notice' | 'info' (info goes away by itself). */
function showMessage(text, { kind = 'error', reload = false, details = [] } = {}) {
  clearTimeout(messageTimer);
  const box = $('message');
  box.className = kind;
  $('message-text').textContent = text;
  $('message-details').replaceChildren(...details.map((d) => el('li', { text: d })));
  $('reload').hidden = !reload;
  box.hidden = false;
  if (kind === 'info') messageTimer = setTimeout(hideMessage, 4000);
}

function hideMessage() {
  $('message').hidden = true;
}

/** A problem from a 422, whatever its shape, as one line. */
function problemText(problem) {
  if (typeof problem === 'string') return problem;
  if (problem && typeof problem === 'object') {
    const where = problem.edit !== undefined ? `edit ${problem.edit}: ` : '';
    return where + (problem.message || problem.error || JSON.stringify(problem));
  }
  return String(problem);
}

/** Report a failed save, undo or redo (a 409 reloads instead: `write`). */
function reportFailure(err) {
  if (err.status === 422) {
    showMessage(err.message, { details: ((err.data && err.data.problems) || []).map(problemText) });
  } else {
    showMessage(err.message);
  }
}

// ---------------------------------------------------------------------------------------------
// Routing: #/ (library), #/status, #/doc/FOLDER/NAME.pdf[?page=N&q=WORDS] (a search's hit: that
// page, the words found marked)

let currentHash = '';

function parseHash() {
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

function route() {
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
// Library

// The list comes in pages of LIBRARY_PAGE documents, in the order of their paths; the next is
// asked for when the end of the list scrolls into view. A document the server has not read yet
// comes with `pending`, and a `library` event says when it has: the pages loaded are asked again.
const LIBRARY_PAGE = 100;
const library = { root: '', total: 0, documents: [], next: 0, loading: null };
let libraryObserver = null;

async function showLibrary({ quiet = false } = {}) {
  if (!quiet) setState('loading');
  try {
    if (quiet && library.documents.length) await reloadLibraryPages();
    else await loadLibraryPage(0);
    if (state.view === 'library') setState('ready');
  } catch (err) {
    showMessage(err.message);
    setState('error');
  }
}

/** The page of the list that starts at `offset`; from 0 it replaces what was listed. */
function loadLibraryPage(offset) {
  if (library.loading) return library.loading;
  library.loading = (async () => {
    try {
      const page = await api(query('/api/library', { offset, limit: LIBRARY_PAGE }));
      library.documents = offset ? [...library.documents.slice(0, offset), ...page.documents] : page.documents;
      adoptLibraryPage(page);
    } finally {
      library.loading = null;
    }
  })();
  return library.loading;
}

/** The pages already listed, asked again (documents read since, revisions, new files). */
async function reloadLibraryPages() {
  const count = library.documents.length;
  let documents = [], page;
  do {
    page = await api(query('/api/library', { offset: documents.length, limit: Math.min(1000, count - documents.length) }));
    documents = documents.concat(page.documents);
  } while (page.next !== undefined && documents.length < count);
  library.documents = documents;
  adoptLibraryPage(page);
}

function adoptLibraryPage(page) {
  library.root = page.root;
  library.total = page.total ?? page.documents.length;
  library.next = page.next ?? null;
  renderLibrary();
}

function renderLibrary() {
  const folders = new Map();
  for (const doc of library.documents) {
    const slash = doc.path.lastIndexOf('/');
    const folder = slash < 0 ? '' : doc.path.slice(0, slash);
    if (!folders.has(folder)) folders.set(folder, []);
    folders.get(folder).push(doc);
  }
  const names = [...folders.keys()].sort((a, b) => a.localeCompare(b));
  const shown = library.documents.length;
  const header = el('div', { class: 'card' },
    el('h1', { text: 'Library' }),
    el('div', { id: 'library-count', class: 'muted', 'data-shown': shown, 'data-total': library.total,
      text: `${library.total} documents in ${library.root || 'the library'}${shown < library.total ? ` (${shown} listed)` : ''}` }));
  const sections = names.map((folder) => el('section', { class: 'card folder' },
    el('h2', { text: folder || 'Top level' }),
    documentTable(folders.get(folder).sort((a, b) => a.path.localeCompare(b.path)))));
  if (!names.length) sections.push(el('p', { class: 'muted', text: 'No documents yet.' }));
  // Past the last row: when it comes into view, the next page is asked for.
  const more = el('div', { id: 'library-more', class: 'muted', text: library.next !== null ? 'Loading more…' : '' });
  $('library').replaceChildren(header, ...sections, more);
  if (!libraryObserver) {
    libraryObserver = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting) || state.view !== 'library' || library.next === null) return;
      loadLibraryPage(library.next).catch((err) => showMessage(err.message));
    });
  }
  libraryObserver.disconnect();
  if (library.next !== null) libraryObserver.observe(more);
}

function documentTable(docs) {
  const head = el('tr', {}, el('th', { text: 'Document' }), el('th', { class: 'num', text: 'Pages' }),
    el('th', { class: 'num', text: 'Size' }), el('th', { text: 'Last change' }));
  const rows = docs.map((doc) => {
    const last = doc.last || {};
    return el('tr', {},
      el('td', {}, el('a', { class: 'doc-link', href: docHash(doc.path), 'data-path': doc.path, text: doc.path.split('/').pop() })),
      el('td', { class: 'num', text: doc.pending ? '…' : doc.unreadable ? '?' : doc.pages,
        title: doc.pending ? 'not read yet' : doc.unreadable ? 'PDFTrapper cannot read this file' : undefined }),
      el('td', { class: 'num', text: formatSize(doc.size) }),
      el('td', {},
        el('span', { text: [last.operation, formatDate(last.date)].filter(Boolean).join(' · ') }),
        last.note ? el('div', { class: 'muted', text: last.note }) : null));
  });
  return el('table', { class: 'doc-table' }, el('thead', {}, head), el('tbody', {}, ...rows));
}

// ---------------------------------------------------------------------------------------------
// Status

async function showStatus({ quiet = false } = {}) {
  if (!quiet) setState('loading');
  try {
    renderStatus(await api('/api/status'));
    if (state.view === 'status') setState('ready');
  } catch (err) {
    showMessage(err.message);
    setState('error');
  }
}

function renderStatus(status) {
  const card = (title, body) => el('section', { class: 'card' }, el('h2', { text: title }), body);
  const quarantine = status.quarantine || [];
  const quarantineBody = quarantine.length
    ? el('table', {},
      el('thead', {}, el('tr', {}, el('th', { text: 'File' }), el('th', { text: 'Reason' }), el('th', { text: 'Date' }))),
      el('tbody', {}, ...quarantine.map((q) => el('tr', { class: 'quarantine-row' },
        el('td', { text: q.name }), el('td', { text: q.reason }), el('td', { text: formatDate(q.date) })))))
    : el('p', { class: 'muted', text: 'Nothing in quarantine.' });
  $('status').replaceChildren(
    el('div', { class: 'card' }, el('h1', { text: 'Status' }), el('div', { text: `Daemon: ${status.state ?? 'unknown'}` })),
    card('Folders', anyValue(status.folders)),
    card('Queue', anyValue(status.queue)),
    card('Last jobs', anyValue(status.last)),
    card('Quarantine', quarantineBody));
}

/** Status fields whose shape the contract leaves open: objects as key/value lists, lists of objects as tables. */
function anyValue(value) {
  if (value === undefined || value === null || (Array.isArray(value) && !value.length)) return el('p', { class: 'muted', text: 'None.' });
  if (Array.isArray(value)) {
    if (value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
      const keys = [...new Set(value.flatMap(Object.keys))];
      return el('table', {},
        el('thead', {}, el('tr', {}, ...keys.map((k) => el('th', { text: k })))),
        el('tbody', {}, ...value.map((row) => el('tr', {}, ...keys.map((k) => el('td', { text: cellText(row[k], k) }))))));
    }
    return el('ul', {}, ...value.map((v) => el('li', { text: cellText(v) })));
  }
  if (typeof value === 'object') {
    return el('dl', { class: 'kv' }, ...Object.entries(value).flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: cellText(v, k) })]));
  }
  return el('p', { text: cellText(value) });
}

function cellText(value, key = '') {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  if (/date|time|at$/i.test(key) || (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value))) return formatDate(value);
  return String(value);
}

// Library and status follow the daemon: refreshed (at most every half second) on its events.
let refreshTimer = 0;
function refreshListsSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    if (state.view === 'library') showLibrary({ quiet: true });
    if (state.view === 'status') showStatus({ quiet: true });
  }, 500);
}

// ---------------------------------------------------------------------------------------------
// Document: loading

async function openDocument(path, { page = null, find = '' } = {}) {
  if (path !== state.path) {
    state.path = path;
    state.page = page || 1;
    state.doc = state.shown = state.revision = null;
    setZoom(1, true);
    $('page-area').scrollTo(0, 0);   // not where the last document was zoomed into
    setEdits([], { keep: false });   // the last document's stay kept for it
    state.undoStack = [];
    state.redoStack = [];
    $('strip').replaceChildren();
    $('history-list').replaceChildren();
    const restoring = kept.restore(path).catch(() => []);
    openedDocument(path, find);
    await loadDocument();
    restoreEdits(path, await restoring);
    return;
  }
  // The same document from a search's hit: its page, and the words found.
  if (page) state.page = page;
  if (find) openedDocument(path, find);
  await loadDocument();
}

/**
 * The unsaved edits kept for `path` (a reload, a closed tab), back in the list before any drawn
 * while they were read (those are newer); undo takes them one by one.
 */
function restoreEdits(path, items) {
  if (path !== state.path || !items.length) return;
  const known = new Set(state.items.map((item) => item.id));
  state.items = [...items.filter((item) => !known.has(item.id)), ...state.items];
  state.undoStack = state.items.map((item, at) => ({ at, removed: [], added: [item] }));
  state.redoStack = [];
  changed();
  showMessage(`${items.length} unsaved change${items.length > 1 ? 's' : ''} restored from before: Save keeps them, Undo takes them back.`,
    { kind: 'notice' });
}

/** Fetch the current document and show it whole (strip, page, history). Unsaved edits are kept. */
async function loadDocument() {
  const seq = ++state.loadSeq;
  setState('loading');
  let doc;
  try {
    doc = await api(query('/api/document', { path: state.path }));
  } catch (err) {
    if (seq === state.loadSeq) { showMessage(err.message); setState('error'); }
    return;
  }
  if (seq !== state.loadSeq) return;
  adoptDocument(doc);
  show(doc, null);
}

function adoptDocument(doc) {
  state.doc = doc;
  state.words.clear();
  state.annotations.clear();
  document.body.dataset.end = String(doc.end);
}

/**
 * A live revision with nothing unsaved: take the new document, add the new pages to the strip,
 * and reload the thumbnail and image of the page shown. Other thumbnails keep their images.
 */
async function refreshDocument() {
  const seq = ++state.loadSeq;
  let doc;
  try {
    doc = await api(query('/api/document', { path: state.path }));
  } catch (err) {
    if (seq === state.loadSeq) showMessage(err.message);
    return;
  }
  if (seq !== state.loadSeq || hasUnsaved()) return;
  const oldCount = state.doc.pages.length;
  adoptDocument(doc);
  renderHistory();
  if (state.revision) { updateControls(); return; }   // a past revision stays on screen
  state.shown = doc;
  // Looking at the last page, one follows the pages that land after it, as a scanner feeds them.
  if ((state.page === oldCount || state.followUpload) && doc.pages.length > oldCount) {
    state.page = doc.pages.length;
    state.followUpload = false;
  }
  growStrip(oldCount);
  updateControls();
  showPage(state.page);
}

/** Show `shown` (the current document, or a past revision's when `revision` is its history entry). */
function show(shown, revision) {
  cancelGesture();
  state.shown = shown;
  state.revision = revision;
  $('revision-banner').hidden = !revision;
  if (revision) $('revision-banner-text').textContent = `Viewing revision ${revision.number} (${revision.operation}, ${formatDate(revision.date)})`;
  buildStrip();
  renderHistory();
  updateControls();
  showPage(state.page);
}

/** The end the shown pages are rendered at: it is in every page URL, so a new revision is a new URL. */
function shownEnd() {
  return state.revision ? state.revision.end : state.doc.end;
}

function pageUrl(page, width) {
  return query('/api/page', { path: state.path, page, width, end: shownEnd() });
}

// ---------------------------------------------------------------------------------------------
// Document: the page strip. Every page gets a placeholder sized from its aspect ratio at once;
// its image is asked for only when it comes near the strip's viewport.

let thumbObserver = null;

function buildStrip() {
  const strip = $('strip');
  if (thumbObserver) thumbObserver.disconnect();
  thumbObserver = new IntersectionObserver(loadVisibleThumbs, { root: strip, rootMargin: '800px' });   // a column, or a row on a phone
  const fragment = document.createDocumentFragment();
  state.shown.pages.forEach((page, i) => fragment.append(makeThumb(i + 1, page)));
  fragment.append(el('div', { class: 'strip-end', 'data-page': 'end' }));   // drop here: move to the end
  strip.replaceChildren(fragment);
  strip.dataset.pages = String(state.shown.pages.length);
  previewKey = '[]';   // the strip now shows the pages as loaded
  previewStrip();
}

function makeThumb(number, page) {
  // No alt text: an <img> without src would lay out its alt text, a second per 5,000 pages.
  const img = el('img', { alt: '', loading: 'lazy', decoding: 'async', draggable: 'false' });
  img.style.aspectRatio = `${page.width} / ${page.height}`;
  const thumb = el('div', { class: 'thumb', 'data-page': number, 'aria-label': `Page ${number}`, draggable: state.revision ? 'false' : 'true' },
    img, el('span', { class: 'number', text: number }));
  thumbObserver.observe(thumb);
  return thumb;
}

function loadVisibleThumbs(entries) {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    const img = entry.target.querySelector('img');
    if (!img.getAttribute('src')) img.src = pageUrl(Number(entry.target.dataset.page), THUMB_WIDTH);
    thumbObserver.unobserve(entry.target);
  }
}

/** After a live revision: pages past the old count are new; the shown page's thumbnail reloads. */
function growStrip(oldCount) {
  const strip = $('strip');
  const pages = state.shown.pages;
  const thumbs = [...strip.querySelectorAll('.thumb')];
  thumbs.slice(pages.length).forEach((thumb) => thumb.remove());
  const end = strip.querySelector('.strip-end');
  for (let i = oldCount; i < pages.length; i++) strip.insertBefore(makeThumb(i + 1, pages[i]), end);
  strip.dataset.pages = String(pages.length);
  if (!pages.length) return;
  const number = clamp(state.page, 1, pages.length);
  const img = thumbFor(number).querySelector('img');
  img.style.aspectRatio = `${pages[number - 1].width} / ${pages[number - 1].height}`;
  if (img.getAttribute('src')) img.src = pageUrl(number, THUMB_WIDTH);
}

/**
 * Scroll the strip just enough to show the thumbnail (scrollIntoView takes a second on 5,000
 * pages): down a column, or along the row a phone shows.
 */
function revealThumb(thumb) {
  const strip = $('strip');   // position: relative, so it is the thumbnails' offsetParent
  const top = thumb.offsetTop, bottom = top + thumb.offsetHeight;
  if (top < strip.scrollTop) strip.scrollTop = top - 10;
  else if (bottom > strip.scrollTop + strip.clientHeight) strip.scrollTop = bottom - strip.clientHeight + 10;
  const left = thumb.offsetLeft, right = left + thumb.offsetWidth;
  if (left < strip.scrollLeft) strip.scrollLeft = left - 10;
  else if (right > strip.scrollLeft + strip.clientWidth) strip.scrollLeft = right - strip.clientWidth + 10;
}

function thumbFor(page) {
  return $('strip').querySelector(`.thumb[data-page="${page}"]`);
}

// ---------------------------------------------------------------------------------------------
// Document: the page shown, at screen resolution, with the drawing canvas over it

let expectedSrc = '';

function showPage(number) {
  const pages = state.shown.pages;
  if (!pages.length) {
    state.page = 1;
    $('page-image').hidden = true;
    $('page-number').textContent = 'no pages';
    setReady();
    return;
  }
  number = clamp(number, 1, pages.length);
  if (number !== state.page) { commitText(); cancelGesture(); $('page-area').scrollTop = 0; }
  state.page = number;
  $('page-image').hidden = false;
  const order = stripOrder(), at = order.indexOf(number);
  const entry = previewEntry(number);
  let where = '';
  if (entry && entry.deleted) where = ' · deleted';
  else if (entry && entry.position !== number) where = ` → ${entry.position}`;
  $('page-number').textContent = `${number} / ${pages.length}${where}`;
  $('page-prev').disabled = at <= 0;
  $('page-next').disabled = at >= order.length - 1;
  for (const thumb of $('strip').querySelectorAll('.thumb.selected')) thumb.classList.remove('selected');
  const thumb = thumbFor(number);
  if (thumb) { thumb.classList.add('selected'); revealThumb(thumb); }
  layoutPage();
  refreshCanvasMode();
  updateReframe();
  pageShown();
}

/**
 * Size the page image to fit the area (the whole page, or its width when #page-fit is pressed),
 * times the zoom, and ask for it at that width × devicePixelRatio (at most 4000 pixels), rounded
 * to a multiple of 50 pixels so that nearby window sizes share the server's cache. The canvas is
 * sized with the image, so toPagePoint holds at any zoom. `preview` (while fingers pinch) resizes
 * the image and canvas as they are, and asks for nothing: the sharp image comes when they lift.
 */
/**
 * The page shown as fitted (zoom 1): CSS pixels across, for its width as turned by a queued
 * rotation (`shownWidth`, in points), and that rotation.
 */
function pageFit() {
  const page = state.shown.pages[state.page - 1];
  const area = $('page-area');
  const style = getComputedStyle(area);   // its padding is less on a phone
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight), belowPage = $('page-nav').offsetHeight + 12;
  // A queued rotation turns the frame (the image with its canvas); the fit is for the page as turned.
  const entry = previewEntry(state.page);
  const degrees = entry ? entry.degrees : 0, quarter = degrees % 180 !== 0;
  const shownWidth = quarter ? page.height : page.width, shownHeight = quarter ? page.width : page.height;
  // CSS pixels the page shows across. Neither scroll bar counts: the vertical one's room is always
  // kept (scrollbar-gutter), and the height is the area's whole (a horizontal bar shows only once
  // the page is zoomed past the fit), so the fit stays what it was whatever the zoom.
  let across = area.clientWidth - padding;
  if (!state.fitWidth) across = Math.min(across, (area.offsetHeight - padding - belowPage) * shownWidth / shownHeight);
  return { across: clamp(across, 200, MAX_PAGE_CSS_WIDTH), shownWidth, entry, degrees, quarter };
}

function layoutPage({ preview = false } = {}) {
  const page = state.shown.pages[state.page - 1];
  const img = $('page-image');
  const fitted = pageFit();
  const { entry, degrees, quarter } = fitted;
  const across = Math.floor(fitted.across * state.zoom);
  const cssWidth = quarter ? Math.round(across * page.width / page.height) : across;
  const cssHeight = quarter ? across : Math.round(cssWidth * page.height / page.width);
  img.style.width = `${cssWidth}px`;
  img.style.height = `${cssHeight}px`;
  const frame = $('page-frame');
  frame.style.transform = degrees ? `rotate(${degrees}deg)` : '';
  // A transform does not move the layout: margins make room for the turned page, centred as before.
  frame.style.margin = quarter ? `${(cssWidth - cssHeight) / 2}px auto` : '';
  frame.classList.toggle('turned', Boolean(degrees));
  frame.classList.toggle('deleted', Boolean(entry && entry.deleted));
  frame.dataset.preview = previewTokens(entry);
  if (!frame.dataset.preview) delete frame.dataset.preview;
  layoutCanvas({ stretch: preview });
  if (preview) return;
  const pixels = clamp(Math.round(cssWidth * (window.devicePixelRatio || 1) / 50) * 50, 50, 4000);
  const url = pageUrl(state.page, pixels);
  if (img.getAttribute('src') === url && img.complete) { setReady(); return; }
  if (img.getAttribute('src') !== url) {
    setState('loading');
    expectedSrc = url;
    img.src = url;
  }
}

/** The page's zoom (1 = fitted, as pinch.js asks), shown to tests as body[data-zoom]. */
function setZoom(zoom, final) {
  state.zoom = zoom;
  document.body.dataset.zoom = String(Math.round(zoom * 100) / 100);
  if (state.view === 'doc' && state.shown && state.shown.pages.length) layoutPage({ preview: !final });
  if (final) showZoom();
}

/**
 * A zoomed page scrolls across too; the paging buttons (sticky at the area's bottom, which holds
 * only up and down) follow it across, so they stay in sight under the part shown.
 */
function keepPageNavInView() {
  const across = $('page-area').scrollLeft;
  $('page-nav').style.translate = across ? `${across}px 0` : '';
}

function onPageImageLoad() {
  if ($('page-image').getAttribute('src') !== expectedSrc) return;   // an older page's answer
  layoutCanvas();
  setReady();
}

function onPageImageError() {
  if ($('page-image').getAttribute('src') !== expectedSrc) return;
  showMessage(`Page ${state.page} could not be rendered.`);
  setState('error');
}

function setReady() {
  if (!state.busy && state.view === 'doc') setState('ready');
}

// ---------------------------------------------------------------------------------------------
// Document: history, newest first; a click shows the document as that revision left it.

function renderHistory() {
  const entries = [...(state.doc.history || [])].sort((a, b) => b.end - a.end);
  const viewing = state.revision ? state.revision.end : state.doc.end;
  $('history-list').replaceChildren(...entries.map((entry) => el('li', {
    class: `revision${entry.current ? ' current' : ''}${entry.end === viewing ? ' viewing' : ''}`,
    'data-end': entry.end,
    onclick: () => viewRevision(entry),
  },
  el('img', { alt: '', loading: 'lazy', onerror: (e) => { e.target.style.visibility = 'hidden'; }, src: query('/api/page', { path: state.path, page: 1, width: HISTORY_THUMB_WIDTH, end: entry.end }) }),
  el('div', {},
    el('div', { class: 'what', text: `${entry.number}. ${entry.operation}` }),
    el('div', { class: 'when', text: [formatDate(entry.date), entry.pages_added ? `+${entry.pages_added} page${entry.pages_added > 1 ? 's' : ''}` : ''].filter(Boolean).join(' · ') }),
    entry.note ? el('div', { class: 'note', text: entry.note }) : null))));
}

async function viewRevision(entry) {
  if (state.busy) return;
  if (entry.current || entry.end === state.doc.end) { backToCurrent(); return; }
  commitText();
  const seq = ++state.loadSeq;
  setState('loading');
  try {
    const shown = await api(query('/api/document', { path: state.path, end: entry.end }));
    if (seq === state.loadSeq) show(shown, entry);
  } catch (err) {
    showMessage(err.message);
    setState('error');
  }
}

function backToCurrent() {
  if (state.revision) show(state.doc, null);
}

// ---------------------------------------------------------------------------------------------
// Unsaved edits: a list of {id, edit, label}, kept in IndexedDB as it changes (keep.js). Undo and
// redo step through the changes made to it, each {at, removed, added}: what a change took away
// and added at `at`, so that ten thousand strokes cost ten thousand small steps, not ten thousand
// copies of the list.

function hasUnsaved() {
  return state.items.length > 0;
}

function editable() {
  return Boolean(state.doc) && !state.revision && !state.busy;
}

/** The change from the list `before` to `after`: the stretch between what they begin and end with alike. */
function difference(before, after) {
  let at = 0;
  while (at < before.length && at < after.length && before[at] === after[at]) at++;
  let tail = 0;
  while (tail < before.length - at && tail < after.length - at && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return { at, removed: before.slice(at, before.length - tail), added: after.slice(at, after.length - tail) };
}

/** `items` becomes the unsaved list; what changed is written to the browser's store unless `keep` is false. */
function setEdits(items, { keep = true } = {}) {
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
function commit(items) {
  state.undoStack.push(setEdits(items));
  state.redoStack = [];
  changed();
}

/** `change` undone (or, with `forward`, done again) on the list. */
function replay(change, forward) {
  const [out, back] = forward ? [change.removed, change.added] : [change.added, change.removed];
  setEdits([...state.items.slice(0, change.at), ...back, ...state.items.slice(change.at + out.length)]);
}

/** Forget the unsaved edits: `saved` (answered 200) or thrown away by the person; gone from the store too. */
function clearEdits() {
  if (state.path && state.items.length) kept.forget(state.path, state.items).catch(() => {});
  setEdits([], { keep: false });
  state.undoStack = [];
  state.redoStack = [];
  changed();
}

function changed() {
  updateControls();
  previewStrip();
  render();
}

function updateControls() {
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

function undo() {
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

function redo() {
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
// Page operations. They are queued, and previewed: the strip shows the pages as the queued page
// operations leave them (turned, struck out, a blank one added, moved), the page shown turns.
// The server runs the edits in order and each page number counts in the document as the edits
// before it left it (pdftrapper-edit(5)). So Save sends the marks first (their page numbers are
// the pages as loaded) and the page operations after them, each renumbered when queued through
// pageOrder(), the strip's pages as the page operations before it rearrange them. A thumbnail
// keeps its data-page (the page as loaded: marks, clicks and drags speak of it).

const PAGE_OPS = ['rotate', 'delete', 'move', 'insert-blank'];

/**
 * The strip as the queued page operations leave it, in its order: [{page, deleted, degrees,
 * position}], page as loaded (negative: a blank page a queued insert adds), position the page's
 * number once saved (0 if deleted). A deleted page keeps its place, struck out, so the pages
 * around it keep theirs; page numbers in the edits count only the pages not deleted.
 */
function previewEntries() {
  let entries = state.doc.pages.map((_, i) => ({ page: i + 1, deleted: false, degrees: 0 }));
  let blanks = 0;
  for (const { edit } of state.items) {
    if (!PAGE_OPS.includes(edit.op)) continue;
    const live = entries.filter((e) => !e.deleted);
    if (edit.op === 'rotate') {
      for (const p of edit.pages) if (live[p - 1]) live[p - 1].degrees = (((live[p - 1].degrees + edit.degrees) % 360) + 360) % 360;
    }
    if (edit.op === 'delete') for (const p of edit.pages) if (live[p - 1]) live[p - 1].deleted = true;
    if (edit.op === 'insert-blank') {
      const blank = { page: -++blanks, deleted: false, degrees: 0 };
      entries.splice(edit.after ? entries.indexOf(live[edit.after - 1]) + 1 : 0, 0, blank);
    }
    if (edit.op === 'move') {
      const moving = edit.pages.map((p) => live[p - 1]).filter(Boolean);
      const before = edit.to === 'end' ? null : live[edit.to - 1];
      entries = entries.filter((e) => !moving.includes(e));
      entries.splice(before ? entries.indexOf(before) : entries.length, 0, ...moving);
    }
  }
  let position = 0;
  for (const e of entries) e.position = e.deleted ? 0 : ++position;
  return entries;
}

/** Position (0-based) → page number as loaded (negative: a blank page a queued insert adds). */
function pageOrder() {
  return previewEntries().filter((e) => !e.deleted).map((e) => e.page);
}

/** The position now (1-based) of page `shown` as the strip shows it, or 0 if a queued delete took it. */
function positionOf(shown, order = pageOrder()) {
  return order.indexOf(shown) + 1;
}

const hasPageOps = () => !state.revision && state.items.some(({ edit }) => PAGE_OPS.includes(edit.op));

/** The preview entry of page `number` as loaded, or null when nothing is queued for the pages. */
function previewEntry(number) {
  if (!state.doc || !hasPageOps()) return null;
  return previewEntries().find((e) => e.page === number) || null;
}

function shownPageTurned() {
  const entry = state.shown && state.shown.pages.length ? previewEntry(state.page) : null;
  return Boolean(entry && entry.degrees);
}

/** The pages as loaded in the strip's order (blank ones left out): what paging steps through. */
function stripOrder() {
  if (!hasPageOps()) return state.shown.pages.map((_, i) => i + 1);
  return previewEntries().filter((e) => e.page > 0).map((e) => e.page);
}

function stepPage(step) {
  const order = stripOrder();
  const at = order.indexOf(state.page);
  showPage(at < 0 ? state.page + step : order[clamp(at + step, 0, order.length - 1)]);
}

/** data-preview of a thumbnail or the page: "deleted", "blank", "rotate-90", ... or ''. */
function previewTokens(entry) {
  if (!entry) return '';
  return [entry.deleted && 'deleted', entry.page < 0 && 'blank', entry.degrees && `rotate-${entry.degrees}`].filter(Boolean).join(' ');
}

let previewKey = '[]';   // the page operations the strip shows, as JSON

/** Bring the strip (and the page shown) to the queued page operations. Cheap when they did not change. */
function previewStrip() {
  if (!state.doc || !state.shown || state.busy) return;   // while saving, the reload rebuilds it
  const ops = hasPageOps() ? state.items.map(({ edit }) => edit).filter((edit) => PAGE_OPS.includes(edit.op)) : [];
  const key = JSON.stringify(ops);
  if (key === previewKey) return;
  previewKey = key;
  const strip = $('strip');
  const thumbs = new Map();
  for (const thumb of strip.querySelectorAll('.thumb')) {
    if (thumb.classList.contains('blank')) thumb.remove();
    else thumbs.set(Number(thumb.dataset.page), thumb);
  }
  const entries = ops.length ? previewEntries() : state.shown.pages.map((_, i) => ({ page: i + 1, deleted: false, degrees: 0, position: i + 1 }));
  const fragment = document.createDocumentFragment();
  let previous = state.shown.pages[0];
  for (const entry of entries) {
    const thumb = entry.page > 0 ? thumbs.get(entry.page) : makeBlankThumb(entry, previous);
    if (!thumb) continue;
    if (entry.page > 0) previous = state.shown.pages[entry.page - 1];
    decorateThumb(thumb, entry, ops.length > 0);
    fragment.append(thumb);
  }
  fragment.append(strip.querySelector('.strip-end'));
  strip.append(fragment);   // moves the thumbnails: their images stay loaded
  if (ops.length) strip.dataset.previewPages = String(entries.filter((e) => !e.deleted).length);
  else delete strip.dataset.previewPages;
  if (state.shown.pages.length) showPage(state.page);   // turns, greys or straightens the page shown
}

/** A queued insert's page: a placeholder the size of the page before it (the server's default). */
function makeBlankThumb(entry, like) {
  const img = el('img', { alt: '', draggable: 'false' });
  img.style.aspectRatio = like ? `${like.width} / ${like.height}` : '612 / 792';
  return el('div', { class: 'thumb blank', 'data-page': entry.page, draggable: 'true' }, img, el('span', { class: 'number' }));
}

function decorateThumb(thumb, entry, previewing) {
  const img = thumb.querySelector('img');
  const tokens = previewTokens(entry);
  if (tokens) thumb.dataset.preview = tokens; else delete thumb.dataset.preview;
  if (previewing && !entry.deleted) thumb.dataset.position = String(entry.position); else delete thumb.dataset.position;
  thumb.setAttribute('draggable', entry.deleted ? 'false' : 'true');
  // Turned by CSS; for a quarter turn the margins (percentages of the thumbnail's width, across
  // and down alike) give the image the room of the page as turned.
  const ratio = img.style.aspectRatio.split('/').map(Number);
  const r = ratio[0] / ratio[1];
  const quarter = entry.degrees % 180 !== 0 && r > 0;
  img.style.transform = entry.degrees ? `rotate(${entry.degrees}deg)` : '';
  img.style.width = quarter ? `${r * 100}%` : '';
  img.style.margin = quarter ? `${(r - 1) * 50}% ${(1 - r) * 50}%` : '';
  const name = entry.page > 0 ? String(entry.page) : 'blank';
  const number = thumb.querySelector('.number');
  number.textContent = previewing && !entry.deleted && entry.position !== entry.page ? `${name} → ${entry.position}` : name;
  let tag = thumb.querySelector('.tag');
  if (entry.deleted || entry.page < 0) {
    if (!tag) { tag = el('span', { class: 'tag' }); thumb.append(tag); }
    tag.textContent = entry.deleted ? 'deleted' : 'new';
  } else if (tag) {
    tag.remove();
  }
  const what = entry.page > 0 ? `Page ${entry.page}` : 'A new blank page';
  thumb.setAttribute('aria-label', !previewing ? what
    : entry.deleted ? `${what}, deleted when saved`
      : `${what}${entry.degrees ? `, turned ${entry.degrees}°` : ''}, page ${entry.position} when saved`);
}

function queuePageOp(kind) {
  commitText();
  if (!editable() || !state.shown.pages.length) return;
  const n = state.page, at = positionOf(n);
  if (!at) { showMessage(`Page ${n} is deleted in the unsaved changes.`, { kind: 'notice' }); return; }
  const ops = {
    rotate: [{ op: 'rotate', pages: [at], degrees: 90 }, `Rotate page ${n} 90°`],
    delete: [{ op: 'delete', pages: [at] }, `Delete page ${n}`],
    insert: [{ op: 'insert-blank', after: at }, `Insert a blank page after page ${n}`],
  };
  const [edit, label] = ops[kind];
  commit([...state.items, { edit, label }]);
}

/** Thumbnail `from` dropped on thumbnail `onto` (or 'end'): `from` takes `onto`'s place. */
function queueMove(from, onto) {
  const order = pageOrder();
  const a = positionOf(from, order);
  const b = onto === 'end' ? order.length + 1 : positionOf(onto, order);
  if (!a || !b) { showMessage('That page is deleted in the unsaved changes.', { kind: 'notice' }); return; }
  if (a === b) return;
  let to = a > b ? b : b + 1;
  if (onto === 'end' || to > order.length) to = 'end';
  const name = (p) => (p < 0 ? 'the new blank page' : `page ${p}`);
  const label = onto === 'end' ? `Move ${name(from)} to the end` : `Move ${name(from)} to where ${name(onto)} is`;
  commit([...state.items, { edit: { op: 'move', pages: [a], to }, label }]);
}

function initStripEvents() {
  const strip = $('strip');
  let dragged = null;
  const target = (event) => event.target.closest('.thumb, .strip-end');
  const clearMarks = () => strip.querySelectorAll('.drop-before, .drop-after').forEach((t) => t.classList.remove('drop-before', 'drop-after'));

  let order = [];   // the strip's pages during a drag, to mark the drop before or after
  strip.addEventListener('click', (event) => {
    const thumb = event.target.closest('.thumb');
    if (thumb && !thumb.classList.contains('blank')) showPage(Number(thumb.dataset.page));
  });
  strip.addEventListener('dragstart', (event) => {
    const thumb = event.target.closest('.thumb');
    if (!thumb || !editable() || (thumb.dataset.preview || '').includes('deleted')) { event.preventDefault(); return; }
    dragged = Number(thumb.dataset.page);
    order = pageOrder();
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', String(dragged));
    thumb.classList.add('dragging');
  });
  strip.addEventListener('dragover', (event) => {
    const over = target(event);
    if (!over || dragged === null) return;
    event.preventDefault();
    clearMarks();
    const onto = over.dataset.page === 'end' ? Infinity : order.indexOf(Number(over.dataset.page));
    const from = order.indexOf(dragged);
    if (onto >= 0 && onto !== from) over.classList.add(onto < from ? 'drop-before' : 'drop-after');
  });
  strip.addEventListener('drop', (event) => {
    const over = target(event);
    clearMarks();
    if (!over || dragged === null) return;
    event.preventDefault();
    queueMove(dragged, over.dataset.page === 'end' ? 'end' : Number(over.dataset.page));
  });
  strip.addEventListener('dragend', () => {
    clearMarks();
    strip.querySelectorAll('.dragging').forEach((t) => t.classList.remove('dragging'));
    dragged = null;
  });
}

// ---------------------------------------------------------------------------------------------
// Crop again: a page find_page cut from a photo is cut again along corners dragged on the photo
// (reframe.js), saved at once as a revision of its own, like a page operation the server does.

/** The photo the page shown was cut from ({width, height, corners}), or null. */
function shownPhoto() {
  const page = state.shown && !state.revision ? state.shown.pages[state.page - 1] : null;
  return (page && page.photo) || null;
}

function updateReframe() {
  const button = $('page-reframe');
  const photo = state.shown ? shownPhoto() : null;
  button.disabled = !editable() || hasUnsaved() || !photo;
  button.title = photo ? (hasUnsaved() ? 'Save or undo the unsaved changes first, then crop again'
    : 'Crop this page again from its photo') : 'Only a page cut from a photo (find_page) can be cropped again';
}

function startReframe() {
  const photo = shownPhoto();
  if (!photo || !editable() || hasUnsaved()) return;
  openReframe({
    path: state.path, end: state.doc.end, page: state.page, photo,
    onCrop: (page, corners) => write('/api/save', { ...base(), edits: [{ op: 'reframe', page, corners }] },
      () => showMessage(`Page ${page} cropped again.`, { kind: 'info' })),
  });
}

// ---------------------------------------------------------------------------------------------
// Saving, and the server's own undo and redo

async function save() {
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

function serverStep(kind) {
  return write(`/api/${kind}`, base(), () => {});
}

/**
 * What every change names of the document it was made on: its end, and its revision id when the
 * server gives one (two revisions of one length are told apart by it; a stale one gets 409).
 */
function base() {
  return { path: state.path, base_end: state.doc.end, ...(state.doc.revision ? { base_revision: state.doc.revision } : {}) };
}

/** An edit as it is sent: an ink stroke as one string "x y x y …", which the server reads cheaply however long the drawing. */
function wireEdit(edit) {
  if (edit.op !== 'ink') return edit;
  return { ...edit, strokes: edit.strokes.map((stroke) => stroke.map(([x, y]) => `${x} ${y}`).join(' ')) };
}

/**
 * POST a change; on success forget the unsaved edits and reload. Busy (and "saving") until then.
 * When the document moved on meanwhile (409: another tab or a scan), it is loaded as it is now
 * with the unsaved edits kept, and a line says so: Save again puts them on the new revision.
 */
async function write(url, body, onDone) {
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
function reloadDiscarding() {
  hideMessage();
  clearEdits();
  if (state.view === 'doc') loadDocument(); else location.reload();
}

// ---------------------------------------------------------------------------------------------
// Live updates from the daemon

let events = null;   // the EventSource, closed at Log out

function connectEvents() {
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

function onRevision({ path, end }) {
  if (state.view !== 'doc' || path !== state.path || !state.doc) return;
  if (state.busy || end === state.doc.end) return;   // our own save: loaded when it returns
  if (hasUnsaved()) {
    // Keep the marks and base_end: a Save now is refused with 409, which is what we want.
    showMessage(CHANGED_NOTICE, { kind: 'notice', reload: true });
    return;
  }
  refreshDocument();
}

// ---------------------------------------------------------------------------------------------
// Log out: the server ends the session for good (the cookie is refused even if replayed) and the
// browser forgets it; the login address starts a new one.

async function logout() {
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

function onKey(event) {
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

/** The words of the open document's page `page` (/api/words), asked once per revision. */
function wordsOf(page) {
  if (!state.words.has(page)) {
    const promise = api(query('/api/words', { path: state.path, page })).then((r) => r.words || []);
    promise.catch(() => state.words.delete(page));   // ask again next time
    state.words.set(page, promise);
  }
  return state.words.get(page);
}

// ---------------------------------------------------------------------------------------------
// Start

function start() {
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
