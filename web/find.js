// find.js — finding words: the library's search field (results as you type, each opening its
// document at the page, the words marked), and find within the open document (the pages that hold
// the words, next and previous, marks on the page shown). Marks are drawn over the page and never
// saved. Both ask GET /api/search (web/README.md); the words' boxes come from /api/words.
//
// Tests wait on document.body.dataset.search ("searching", "done") and #find-count's data-hits.

import { api, query } from './api.js';

const $ = (id) => document.getElementById(id);
const TYPING_PAUSE_MS = 200;
const RESULTS_AT_ONCE = 20;   // a screenful; Show more asks for the next

let host = null;
const library = { seq: 0, timer: 0, text: '', next: null };
const inDocument = { seq: 0, timer: 0, text: '', path: null, pages: [] };

/**
 * host: {
 *   page()          the page shown: {path, number, width, height}, or null
 *   words(page)     Promise of the open document's words on `page` (/api/words)
 *   goTo(page)      show that page of the open document
 *   showLibrary(searching)  the library's list hidden while results show, and back
 * }
 */
export function initFind(theHost) {
  host = theHost;
  $('search').addEventListener('input', () => {
    clearTimeout(library.timer);
    library.timer = setTimeout(() => searchLibrary($('search').value), TYPING_PAUSE_MS);
  });
  $('search').addEventListener('keydown', (event) => {
    if (event.key === 'Escape') { $('search').value = ''; searchLibrary(''); }
  });
  $('search-more').addEventListener('click', () => searchLibrary(library.text, library.next));
  $('find-input').addEventListener('input', () => {
    clearTimeout(inDocument.timer);
    inDocument.timer = setTimeout(() => findInDocument($('find-input').value), TYPING_PAUSE_MS);
  });
  $('find-input').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') { event.preventDefault(); step(event.shiftKey ? -1 : 1); }
    if (event.key === 'Escape') { $('find-input').value = ''; findInDocument(''); }
  });
  $('find-next').addEventListener('click', () => step(1));
  $('find-prev').addEventListener('click', () => step(-1));
}

// ---------------------------------------------------------------------------------------------
// The library's search field

/** Shows the pages that hold `text` (from `offset`, added to those shown), or the library again. */
async function searchLibrary(text, offset = 0) {
  const seq = ++library.seq;
  library.text = text.trim();
  if (!library.text) {
    $('search-results').replaceChildren();
    $('search-summary').textContent = '';
    $('search-more').hidden = true;
    host.showLibrary(false);
    delete document.body.dataset.search;
    return;
  }
  host.showLibrary(true);
  document.body.dataset.search = 'searching';
  let answer;
  try {
    answer = await api(query('/api/search', { q: library.text, offset: offset || undefined, limit: RESULTS_AT_ONCE }));
  } catch (err) {
    if (seq !== library.seq) return;
    $('search-summary').textContent = err.message;
    document.body.dataset.search = 'done';
    return;
  }
  if (seq !== library.seq) return;   // a newer query was typed meanwhile
  const items = answer.hits.map((hit) => resultItem(hit, library.text));
  if (offset) $('search-results').append(...items);
  else $('search-results').replaceChildren(...items);
  const shown = $('search-results').children.length;
  $('search-results').dataset.count = String(shown);
  $('search-summary').textContent = shown
    ? `${shown}${answer.more ? '+' : ''} page${shown === 1 && !answer.more ? '' : 's'} found`
      + (answer.literal ? ' (the words as written)' : '')
      + (answer.window ? ` — more than ${answer.window.toLocaleString()} pages hold them: the best of the newest (more words narrow it)` : '')
    : `No page holds “${library.text}”.`;
  library.next = answer.next ?? null;
  $('search-more').hidden = library.next === null;
  document.body.dataset.search = 'done';
}

function resultItem(hit, text) {
  const slash = hit.path.lastIndexOf('/');
  const name = hit.path.slice(slash + 1), folder = slash < 0 ? '' : hit.path.slice(0, slash);
  const link = document.createElement('a');
  link.className = 'hit';
  link.href = documentHash(hit.path, { page: hit.page, q: text });
  link.dataset.path = hit.path;
  link.dataset.page = String(hit.page);
  const title = document.createElement('div');
  title.className = 'hit-title';
  title.append(name);
  const where = document.createElement('span');
  where.className = 'muted';
  where.textContent = ` ${folder ? `${folder} · ` : ''}page ${hit.page} of ${hit.pages}`;
  title.append(where);
  link.append(title, snippet(hit.snippet));
  const item = document.createElement('li');
  item.append(link);
  return item;
}

/** The snippet's pieces as text, the words found in <mark>: never parsed as HTML. */
function snippet(pieces) {
  const block = document.createElement('div');
  block.className = 'snippet';
  for (const piece of pieces) {
    if (piece.found) {
      const mark = document.createElement('mark');
      mark.textContent = piece.text;
      block.append(mark);
    } else {
      block.append(piece.text.replace(/\s+/g, ' '));
    }
  }
  return block;
}

/** #/doc/FOLDER/NAME.pdf?page=3&q=words */
export function documentHash(path, params = {}) {
  const search = query('', params);
  return `#/doc/${path.split('/').map(encodeURIComponent).join('/')}${search}`;
}

// ---------------------------------------------------------------------------------------------
// Find within the open document

/** A document opened (`text` from a search's link, or ''): the find field and its marks start anew. */
export function openedDocument(path, text = '') {
  inDocument.path = path;
  $('find-input').value = text;
  findInDocument(text);
}

async function findInDocument(text) {
  const seq = ++inDocument.seq;
  inDocument.text = text.trim();
  inDocument.pages = [];
  if (!inDocument.text || !inDocument.path) {
    showCount();
    markPage();
    return;
  }
  let answer;
  try {
    answer = await api(query('/api/search', { q: inDocument.text, path: inDocument.path, limit: 1000 }));
  } catch (err) {
    if (seq !== inDocument.seq) return;
    $('find-count').textContent = '!';
    $('find-count').title = err.message;
    return;
  }
  if (seq !== inDocument.seq) return;
  inDocument.pages = [...new Set(answer.hits.map((hit) => hit.page))].sort((a, b) => a - b);
  showCount();
  markPage();
}

function showCount() {
  const pages = inDocument.pages, shown = host.page();
  const at = shown ? pages.indexOf(shown.number) : -1;
  const count = $('find-count');
  count.dataset.hits = String(pages.length);
  count.title = '';
  count.textContent = !inDocument.text ? '' : !pages.length ? '0' : at >= 0 ? `${at + 1}/${pages.length}` : `${pages.length}`;
  $('find-next').disabled = $('find-prev').disabled = !pages.length;
  for (const thumb of document.querySelectorAll('#strip .thumb')) {
    thumb.classList.toggle('has-hit', pages.includes(Number(thumb.dataset.page)));
  }
}

/** The next (1) or previous (-1) page that holds the words, round the end. */
function step(direction) {
  const pages = inDocument.pages, shown = host.page();
  if (!pages.length || !shown) return;
  const after = direction > 0 ? pages.find((page) => page > shown.number) ?? pages[0]
    : [...pages].reverse().find((page) => page < shown.number) ?? pages[pages.length - 1];
  host.goTo(after);
}

/** The page shown changed (or its picture was laid out again): its marks, and where it stands among the hits. */
export function pageShown() {
  showCount();
  markPage();
}

let markSeq = 0;

/** Marks over every word of the page shown that the query's words find. */
async function markPage() {
  const seq = ++markSeq;
  const layer = $('find-marks');
  const shown = host.page();
  const terms = queryTerms(inDocument.text);
  if (!shown || !terms.length || !inDocument.pages.includes(shown.number)) {
    layer.replaceChildren();
    layer.dataset.marks = '0';
    return;
  }
  let words;
  try {
    words = await host.words(shown.number);
  } catch {
    return;
  }
  if (seq !== markSeq) return;
  const marks = words.filter((word) => matches(fold(word.text), terms)).map((word) => {
    const [x0, y0, x1, y1] = word.box;
    const mark = document.createElement('div');
    mark.className = 'find-mark';
    Object.assign(mark.style, {
      left: `${(x0 / shown.width) * 100}%`, top: `${(y0 / shown.height) * 100}%`,
      width: `${((x1 - x0) / shown.width) * 100}%`, height: `${((y1 - y0) / shown.height) * 100}%`,
    });
    mark.title = word.text;
    return mark;
  });
  layer.replaceChildren(...marks);
  layer.dataset.marks = String(marks.length);
}

/** Lower case, accents taken off, as the index's tokenizer reads words. */
function fold(text) {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The words of a query to mark: its operators and syntax left out; a trailing * marks a prefix. */
function queryTerms(text) {
  const terms = [];
  for (const match of text.matchAll(/[\p{L}\p{N}_]+\*?/gu)) {
    const word = match[0];
    if (['AND', 'OR', 'NOT', 'NEAR'].includes(word)) continue;
    const prefix = word.endsWith('*');
    terms.push({ word: fold(prefix ? word.slice(0, -1) : word), prefix });
  }
  return terms;
}

/** Whether a word of the page (folded) is one the query's terms find: each of its own words, whole or by its start. */
function matches(word, terms) {
  const parts = word.match(/[\p{L}\p{N}_]+/gu) || [];
  return parts.some((part) => terms.some((term) => (term.prefix ? part.startsWith(term.word) : part === term.word)));
}
