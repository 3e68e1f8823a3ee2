// keep.js — the unsaved edits of each document, kept in the browser (IndexedDB) until a save of
// them is answered 200: a reload, a closed tab or a refused save never costs a stroke.
//
// One record an edit, {path, id, tab, edit, label}, keyed by [path, id]: each change writes only
// the edits it added or took away, so a drawing of a million points is never written again whole.
// Ids grow in the order edits are made, and the unsaved list is always in that order (edits are
// added at its end; undo and redo put back what was there), so a document's records read in id
// order are its list. IndexedDB, not localStorage: a large drawing is more than its 5 MB.
//
// Two tabs on one document each keep their own edits: every tab holds a Web Lock named after it
// while it is open, and a tab opening a document takes over only the records of its own earlier
// self (a reload keeps the tab's id in sessionStorage) and of tabs that are closed. Where Web
// Locks are missing (plain HTTP beyond loopback is not a secure context), it takes all of them.

const DATABASE = 'pdftrapper-unsaved';
const STORE = 'edits';
const LOCK_PREFIX = 'pdftrapper-tab-';

const tab = (() => {
  let id = sessionStorage.getItem('pdftrapper-tab');
  if (!id) {
    id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    sessionStorage.setItem('pdftrapper-tab', id);
  }
  return id;
})();

// Held until the page goes away: it tells other tabs that this one still owns its records.
if (navigator.locks) navigator.locks.request(LOCK_PREFIX + tab, () => new Promise(() => {}));

// Later than any id this tab gave before a reload (the clock moved on), in creation order.
let lastId = Date.now() * 1000;

/** A new edit's id. */
export function newId() {
  lastId += 1;
  return lastId;
}

let opened = null;

function database() {
  if (!opened) {
    opened = new Promise((resolve, reject) => {
      const request = indexedDB.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: ['path', 'id'] });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  return opened;
}

let pending = 0;   // transactions not yet committed

/** True while a change is not yet on disk (the page asks before it is left then). */
export function writing() {
  return pending > 0;
}

async function transaction(work) {
  pending += 1;
  try {
    const db = await database();
    await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, 'readwrite');
      work(tx.objectStore(STORE));
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    pending -= 1;
  }
}

const range = (path) => IDBKeyRange.bound([path, -Infinity], [path, Infinity]);

/** Writes a change of `path`'s unsaved edits: the items taken away and those added ({id, edit, label}). */
export function record(path, removed, added) {
  if (!removed.length && !added.length) return Promise.resolve();
  return transaction((store) => {
    for (const item of removed) store.delete([path, item.id]);
    for (const item of added) store.put({ path, id: item.id, tab, edit: item.edit, label: item.label });
  });
}

/** Forgets `items` of `path` (saved, or thrown away by the person); every edit of it without `items`. */
export function forget(path, items) {
  return transaction((store) => {
    if (items) for (const item of items) store.delete([path, item.id]);
    else store.delete(range(path));
  });
}

/** Forgets every document's edits (Log out: the next person at this browser sees none of them). */
export function forgetAll() {
  return transaction((store) => store.clear());
}

/**
 * The unsaved edits kept for `path` that this tab may take ({id, edit, label}, in the order made),
 * now owned by this tab.
 */
export async function restore(path) {
  const db = await database();
  const records = await new Promise((resolve, reject) => {
    const request = db.transaction(STORE).objectStore(STORE).getAll(range(path));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  let open = new Set();
  if (navigator.locks) {
    const held = await navigator.locks.query();
    open = new Set(held.held.map((lock) => lock.name));
  }
  const mine = records.filter((r) => r.tab === tab || !open.has(LOCK_PREFIX + r.tab));
  const adopted = mine.filter((r) => r.tab !== tab);
  if (adopted.length) await record(path, [], adopted);
  return mine.map(({ id, edit, label }) => ({ id, edit, label }));
}
