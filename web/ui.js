// ui.js — small helpers every view uses: building elements, the body's data-state the tests wait
// on, dates and sizes as people read them, and the message bar (errors, notices, Reload).

export const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------------
// Small helpers

/** el('a', {class: 'x', href: '#', 'data-path': p, onclick: f}, 'text', child) */
export function el(tag, attrs = {}, ...children) {
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

export function setState(value) {
  document.body.dataset.state = value;
}

export const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

export function formatDate(value) {
  if (value === undefined || value === null || value === '') return '';
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatSize(bytes) {
  if (typeof bytes !== 'number') return '';
  const units = ['B', 'kB', 'MB', 'GB'];
  let i = 0;
  while (bytes >= 1000 && i < units.length - 1) { bytes /= 1000; i++; }
  return `${i ? bytes.toFixed(bytes < 10 ? 1 : 0) : bytes} ${units[i]}`;
}

export function docHash(path) {
  return `#/doc/${path.split('/').map(encodeURIComponent).join('/')}`;
}

// ---------------------------------------------------------------------------------------------
// The message bar: errors, notices, and a Reload button when the document moved on.

export let messageTimer = 0;

/** kind: 'error' | 'notice' | 'info' (info goes away by itself). */
export function showMessage(text, { kind = 'error', reload = false, details = [] } = {}) {
  clearTimeout(messageTimer);
  const box = $('message');
  box.className = kind;
  $('message-text').textContent = text;
  $('message-details').replaceChildren(...details.map((d) => el('li', { text: d })));
  $('reload').hidden = !reload;
  box.hidden = false;
  if (kind === 'info') messageTimer = setTimeout(hideMessage, 4000);
}

export function hideMessage() {
  $('message').hidden = true;
}

/** A problem from a 422, whatever its shape, as one line. */
export function problemText(problem) {
  if (typeof problem === 'string') return problem;
  if (problem && typeof problem === 'object') {
    const where = problem.edit !== undefined ? `edit ${problem.edit}: ` : '';
    return where + (problem.message || problem.error || JSON.stringify(problem));
  }
  return String(problem);
}

/** Report a failed save, undo or redo (a 409 reloads instead: `write`). */
export function reportFailure(err) {
  if (err.status === 422) {
    showMessage(err.message, { details: ((err.data && err.data.problems) || []).map(problemText) });
  } else {
    showMessage(err.message);
  }
}
