// strip.js — the page strip (a placeholder per page at once, its picture when near the view) and
// the page operations: queued, previewed in the strip and on the page, dragged to move a page.
// Which page ends where is edits.js's pagePreview.

import { commitText } from './draw.js';
import { state } from './store.js';
import { $, el, clamp, showMessage } from './ui.js';
import { THUMB_WIDTH, pageUrl, showPage } from './document.js';
import { editable, commit } from './unsaved.js';
import { PAGE_OPS, pagePreview } from './edits.js';

// ---------------------------------------------------------------------------------------------
// Document: the page strip. Every page gets a placeholder sized from its aspect ratio at once;
// its image is asked for only when it comes near the strip's viewport.

export let thumbObserver = null;

export function buildStrip() {
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

export function makeThumb(number, page) {
  // No alt text: an <img> without src would lay out its alt text, a second per 5,000 pages.
  const img = el('img', { alt: '', loading: 'lazy', decoding: 'async', draggable: 'false' });
  img.style.aspectRatio = `${page.width} / ${page.height}`;
  const thumb = el('div', { class: 'thumb', 'data-page': number, 'aria-label': `Page ${number}`, draggable: state.revision ? 'false' : 'true' },
    img, el('span', { class: 'number', text: number }));
  thumbObserver.observe(thumb);
  return thumb;
}

export function loadVisibleThumbs(entries) {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    const img = entry.target.querySelector('img');
    if (!img.getAttribute('src')) img.src = pageUrl(Number(entry.target.dataset.page), THUMB_WIDTH);
    thumbObserver.unobserve(entry.target);
  }
}

/** After a live revision: pages past the old count are new; the shown page's thumbnail reloads. */
export function growStrip(oldCount) {
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
export function revealThumb(thumb) {
  const strip = $('strip');   // position: relative, so it is the thumbnails' offsetParent
  const top = thumb.offsetTop, bottom = top + thumb.offsetHeight;
  if (top < strip.scrollTop) strip.scrollTop = top - 10;
  else if (bottom > strip.scrollTop + strip.clientHeight) strip.scrollTop = bottom - strip.clientHeight + 10;
  const left = thumb.offsetLeft, right = left + thumb.offsetWidth;
  if (left < strip.scrollLeft) strip.scrollLeft = left - 10;
  else if (right > strip.scrollLeft + strip.clientWidth) strip.scrollLeft = right - strip.clientWidth + 10;
}

export function thumbFor(page) {
  return $('strip').querySelector(`.thumb[data-page="${page}"]`);
}

// ---------------------------------------------------------------------------------------------
// Page operations. They are queued, and previewed: the strip shows the pages as the queued page
// operations leave them (turned, struck out, a blank one added, moved), the page shown turns.
// The server runs the edits in order and each page number counts in the document as the edits
// before it left it (pdftrapper-edit(5)). So Save sends the marks first (their page numbers are
// the pages as loaded) and the page operations after them, each renumbered when queued through
// pageOrder(), the strip's pages as the page operations before it rearrange them. A thumbnail
// keeps its data-page (the page as loaded: marks, clicks and drags speak of it).

/** The strip as the queued page operations leave it (edits.js's pagePreview of the document loaded). */
export function previewEntries() {
  return pagePreview(state.doc.pages.length, state.items);
}

/** Position (0-based) → page number as loaded (negative: a blank page a queued insert adds). */
export function pageOrder() {
  return previewEntries().filter((e) => !e.deleted).map((e) => e.page);
}

/** The position now (1-based) of page `shown` as the strip shows it, or 0 if a queued delete took it. */
export function positionOf(shown, order = pageOrder()) {
  return order.indexOf(shown) + 1;
}

export const hasPageOps = () => !state.revision && state.items.some(({ edit }) => PAGE_OPS.includes(edit.op));

/** The preview entry of page `number` as loaded, or null when nothing is queued for the pages. */
export function previewEntry(number) {
  if (!state.doc || !hasPageOps()) return null;
  return previewEntries().find((e) => e.page === number) || null;
}

export function shownPageTurned() {
  const entry = state.shown && state.shown.pages.length ? previewEntry(state.page) : null;
  return Boolean(entry && entry.degrees);
}

/** The pages as loaded in the strip's order (blank ones left out): what paging steps through. */
export function stripOrder() {
  if (!hasPageOps()) return state.shown.pages.map((_, i) => i + 1);
  return previewEntries().filter((e) => e.page > 0).map((e) => e.page);
}

export function stepPage(step) {
  const order = stripOrder();
  const at = order.indexOf(state.page);
  showPage(at < 0 ? state.page + step : order[clamp(at + step, 0, order.length - 1)]);
}

/** data-preview of a thumbnail or the page: "deleted", "blank", "rotate-90", ... or ''. */
export function previewTokens(entry) {
  if (!entry) return '';
  return [entry.deleted && 'deleted', entry.page < 0 && 'blank', entry.degrees && `rotate-${entry.degrees}`].filter(Boolean).join(' ');
}

export let previewKey = '[]';   // the page operations the strip shows, as JSON

/** Bring the strip (and the page shown) to the queued page operations. Cheap when they did not change. */
export function previewStrip() {
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
export function makeBlankThumb(entry, like) {
  const img = el('img', { alt: '', draggable: 'false' });
  img.style.aspectRatio = like ? `${like.width} / ${like.height}` : '612 / 792';
  return el('div', { class: 'thumb blank', 'data-page': entry.page, draggable: 'true' }, img, el('span', { class: 'number' }));
}

export function decorateThumb(thumb, entry, previewing) {
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

export function queuePageOp(kind) {
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
export function queueMove(from, onto) {
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

export function initStripEvents() {
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
