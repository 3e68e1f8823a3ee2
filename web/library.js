// library.js — the library view (the documents by folder, a hundred at a time as the list is
// scrolled) and the status view (folders, queue, last jobs, quarantine); both follow the daemon's events.

import { api, query } from './api.js';
import { state } from './store.js';
import { $, el, setState, formatDate, formatSize, docHash, showMessage } from './ui.js';

// ---------------------------------------------------------------------------------------------
// Library

// The list comes in pages of LIBRARY_PAGE documents, in the order of their paths; the next is
// asked for when the end of the list scrolls into view. A document the server has not read yet
// comes with `pending`, and a `library` event says when it has: the pages loaded are asked again.
export const LIBRARY_PAGE = 100;
export const library = { root: '', total: 0, documents: [], next: 0, loading: null };
export let libraryObserver = null;

export async function showLibrary({ quiet = false } = {}) {
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
export function loadLibraryPage(offset) {
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
export async function reloadLibraryPages() {
  const count = library.documents.length;
  let documents = [], page;
  do {
    page = await api(query('/api/library', { offset: documents.length, limit: Math.min(1000, count - documents.length) }));
    documents = documents.concat(page.documents);
  } while (page.next !== undefined && documents.length < count);
  library.documents = documents;
  adoptLibraryPage(page);
}

export function adoptLibraryPage(page) {
  library.root = page.root;
  library.total = page.total ?? page.documents.length;
  library.next = page.next ?? null;
  renderLibrary();
}

export function renderLibrary() {
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

export function documentTable(docs) {
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

export async function showStatus({ quiet = false } = {}) {
  if (!quiet) setState('loading');
  try {
    renderStatus(await api('/api/status'));
    if (state.view === 'status') setState('ready');
  } catch (err) {
    showMessage(err.message);
    setState('error');
  }
}

export function renderStatus(status) {
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
export function anyValue(value) {
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

export function cellText(value, key = '') {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  if (/date|time|at$/i.test(key) || (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value))) return formatDate(value);
  return String(value);
}

// Library and status follow the daemon: refreshed (at most every half second) on its events.
export let refreshTimer = 0;
export function refreshListsSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    if (state.view === 'library') showLibrary({ quiet: true });
    if (state.view === 'status') showStatus({ quiet: true });
  }, 500);
}
