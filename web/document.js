// document.js — the document view: loading the document (and a past revision), the page shown at
// screen resolution with the drawing canvas over it (fit, zoom), the history, cropping a
// photographed page again, and the page's words.

import * as kept from './keep.js';
import { api, query } from './api.js';
import { refreshCanvasMode, layoutCanvas, cancelGesture, commitText } from './draw.js';
import { openReframe } from './reframe.js';
import { openedDocument, pageShown } from './find.js';
import { showZoom } from './zoom.js';
import { state } from './store.js';
import { $, el, setState, clamp, formatDate, showMessage } from './ui.js';
import { buildStrip, growStrip, revealThumb, thumbFor, previewEntry, stripOrder, previewTokens } from './strip.js';
import { hasUnsaved, editable, setEdits, changed, updateControls, write, base } from './unsaved.js';

export const THUMB_WIDTH = 160;        // pixels asked for a strip thumbnail
export const HISTORY_THUMB_WIDTH = 80; // pixels asked for a history thumbnail
export const MAX_PAGE_CSS_WIDTH = 1100;

// ---------------------------------------------------------------------------------------------
// Document: loading

export async function openDocument(path, { page = null, find = '' } = {}) {
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
export function restoreEdits(path, items) {
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
export async function loadDocument() {
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

export function adoptDocument(doc) {
  state.doc = doc;
  state.words.clear();
  state.annotations.clear();
  document.body.dataset.end = String(doc.end);
}

/**
 * A live revision with nothing unsaved: take the new document, add the new pages to the strip,
 * and reload the thumbnail and image of the page shown. Other thumbnails keep their images.
 */
export async function refreshDocument() {
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
export function show(shown, revision) {
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
export function shownEnd() {
  return state.revision ? state.revision.end : state.doc.end;
}

export function pageUrl(page, width) {
  return query('/api/page', { path: state.path, page, width, end: shownEnd() });
}

// ---------------------------------------------------------------------------------------------
// Document: the page shown, at screen resolution, with the drawing canvas over it

export let expectedSrc = '';

export function showPage(number) {
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
export function pageFit() {
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

export function layoutPage({ preview = false } = {}) {
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
    $('page-tile').hidden = true;
    if (pixels > TILE_ABOVE) sharpOnScreenFirst(url, pixels); else img.src = url;
  }
}

/** Past this many pixels across, the page's part on screen is asked for first, the whole page after it. */
const TILE_ABOVE = 2000;

/**
 * A page zoomed far takes a while to render whole (a 400 % letter page is 3,250 × 4,200 pixels):
 * the part on screen is rendered first at the same size (`region`), shown over the stretched
 * picture, and the whole page asked for once it has come. Measured after the zoom's scroll has
 * settled (the next frame), and widened to a grid so that nearby views share the server's cache.
 */
function sharpOnScreenFirst(url, pixels) {
  requestAnimationFrame(() => {
    if (expectedSrc !== url) return;
    const img = $('page-image'), tile = $('page-tile');
    const page = img.getBoundingClientRect(), area = $('page-area').getBoundingClientRect();
    const grid = 32, snap = (v, up) => clamp((up ? Math.ceil(v * grid) : Math.floor(v * grid)) / grid, 0, 1);
    const x0 = snap((Math.max(area.left, page.left) - page.left) / page.width, false);
    const y0 = snap((Math.max(area.top, page.top) - page.top) / page.height, false);
    const x1 = snap((Math.min(area.right, page.right) - page.left) / page.width, true);
    const y1 = snap((Math.min(area.bottom, page.bottom) - page.top) / page.height, true);
    const whole = () => { if (expectedSrc === url) img.src = url; };
    if (x1 <= x0 || y1 <= y0) { whole(); return; }
    tile.onload = () => {
      if (expectedSrc !== url) return;
      Object.assign(tile.style, { left: `${x0 * 100}%`, top: `${y0 * 100}%`, width: `${(x1 - x0) * 100}%`, height: `${(y1 - y0) * 100}%` });
      tile.hidden = false;
      whole();
    };
    tile.onerror = whole;
    tile.src = `${url}&region=${[x0, y0, x1, y1].join(',')}`;
  });
}

/** The page's zoom (1 = fitted, as pinch.js asks), shown to tests as body[data-zoom]. */
export function setZoom(zoom, final) {
  state.zoom = zoom;
  document.body.dataset.zoom = String(Math.round(zoom * 100) / 100);
  if (state.view === 'doc' && state.shown && state.shown.pages.length) layoutPage({ preview: !final });
  if (final) showZoom();
}

/**
 * A zoomed page scrolls across too; the paging buttons (sticky at the area's bottom, which holds
 * only up and down) follow it across, so they stay in sight under the part shown.
 */
export function keepPageNavInView() {
  const across = $('page-area').scrollLeft;
  $('page-nav').style.translate = across ? `${across}px 0` : '';
}

export function onPageImageLoad() {
  if ($('page-image').getAttribute('src') !== expectedSrc) return;   // an older page's answer
  $('page-tile').hidden = true;   // the whole page is as sharp as the part shown first
  layoutCanvas();
  setReady();
}

export function onPageImageError() {
  if ($('page-image').getAttribute('src') !== expectedSrc) return;
  showMessage(`Page ${state.page} could not be rendered.`);
  setState('error');
}

export function setReady() {
  if (!state.busy && state.view === 'doc') setState('ready');
}

// ---------------------------------------------------------------------------------------------
// Document: history, newest first; a click shows the document as that revision left it.

export function renderHistory() {
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

export async function viewRevision(entry) {
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

export function backToCurrent() {
  if (state.revision) show(state.doc, null);
}

// ---------------------------------------------------------------------------------------------
// Crop again: a page find_page cut from a photo is cut again along corners dragged on the photo
// (reframe.js), saved at once as a revision of its own, like a page operation the server does.

/** The photo the page shown was cut from ({width, height, corners}), or null. */
export function shownPhoto() {
  const page = state.shown && !state.revision ? state.shown.pages[state.page - 1] : null;
  return (page && page.photo) || null;
}

export function updateReframe() {
  const button = $('page-reframe');
  const photo = state.shown ? shownPhoto() : null;
  button.disabled = !editable() || hasUnsaved() || !photo;
  button.title = photo ? (hasUnsaved() ? 'Save or undo the unsaved changes first, then crop again'
    : 'Crop this page again from its photo') : 'Only a page cut from a photo (find_page) can be cropped again';
}

export function startReframe() {
  const photo = shownPhoto();
  if (!photo || !editable() || hasUnsaved()) return;
  openReframe({
    path: state.path, end: state.doc.end, page: state.page, photo,
    onCrop: (page, corners) => write('/api/save', { ...base(), edits: [{ op: 'reframe', page, corners }] },
      () => showMessage(`Page ${page} cropped again.`, { kind: 'info' })),
  });
}

/** The words of the open document's page `page` (/api/words), asked once per revision. */
export function wordsOf(page) {
  if (!state.words.has(page)) {
    const promise = api(query('/api/words', { path: state.path, page })).then((r) => r.words || []);
    promise.catch(() => state.words.delete(page));   // ask again next time
    state.words.set(page, promise);
  }
  return state.words.get(page);
}
