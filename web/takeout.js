// takeout.js — taking a document out of the workspace: download it (as it is now, or the past
// revision on screen, byte for byte as that revision left the file), some of its pages as a new
// PDF, share it from a phone (the Web Share API with a file, where the browser has it) or print it
// (the browser's own print of the PDF). Every way goes through GET /api/download (web/README.md).

import { query } from './api.js';

const $ = (id) => document.getElementById(id);

let host = null;

/**
 * host: {
 *   document()   the open document: {path, pages (count), end and revision (the past revision shown: its end
 *                and number; null for the document as it is now)}
 *   message(text)
 * }
 */
export function initTakeout(theHost) {
  host = theHost;
  $('takeout').addEventListener('click', open);
  $('takeout-pages').addEventListener('input', updateLink);
  $('takeout-cancel').addEventListener('click', () => $('takeout-dialog').close());
  $('takeout-share').addEventListener('click', share);
  $('takeout-print').addEventListener('click', print);
  $('takeout-download').addEventListener('click', () => setTimeout(() => $('takeout-dialog').close(), 0));
  // Offered only where the browser can share files (phones; not most desktops).
  $('takeout-share').hidden = !canShareFiles();
}

function canShareFiles() {
  try {
    const probe = new File([new Uint8Array([37])], 'probe.pdf', { type: 'application/pdf' });
    return typeof navigator.share === 'function' && typeof navigator.canShare === 'function' && navigator.canShare({ files: [probe] });
  } catch {
    return false;
  }
}

function open() {
  const doc = host.document();
  if (!doc) return;
  const name = doc.path.split('/').pop();
  $('takeout-name').textContent = doc.revision === null ? name : `${name} — revision ${doc.revision}`;
  $('takeout-pages').value = '';
  $('takeout-pages').placeholder = doc.pages > 1 ? `all, or e.g. 1-${Math.min(2, doc.pages)}, ${doc.pages}` : 'all';
  // A past revision goes out whole, exactly as it was.
  $('takeout-pages').disabled = doc.end !== null;
  $('takeout-error').hidden = true;
  updateLink();
  $('takeout-dialog').showModal();
}

/** The download's address for what the dialog says: the document, a revision of it, or some pages. */
function url() {
  const doc = host.document();
  const pages = $('takeout-pages').value.trim();
  return query('/api/download', { path: doc.path, end: doc.end ?? undefined, pages: doc.end === null && pages && pages !== 'all' ? pages : undefined });
}

function fileName() {
  const doc = host.document();
  const stem = doc.path.split('/').pop().replace(/\.pdf$/i, '');
  const pages = $('takeout-pages').value.trim();
  if (doc.revision !== null) return `${stem} revision ${doc.revision}.pdf`;
  return pages && pages !== 'all' ? `${stem} pages ${pages.replace(/\s+/g, '')}.pdf` : `${stem}.pdf`;
}

function updateLink() {
  $('takeout-download').href = url();
  $('takeout-download').setAttribute('download', fileName());
}

/** The PDF as the dialog says, fetched with the session; a refusal (a page list that does not fit) is said. */
async function fetchPDF() {
  const response = await fetch(url(), { credentials: 'same-origin' });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).error || message; } catch { /* not JSON */ }
    throw new Error(message);
  }
  return new File([await response.blob()], fileName(), { type: 'application/pdf' });
}

function refused(err) {
  $('takeout-error').textContent = err.message;
  $('takeout-error').hidden = false;
}

/** Fetches the PDF and hands it to `use`; a refusal on the way is said in the dialog. */
async function withPDF(use) {
  let file;
  try {
    file = await fetchPDF();
  } catch (err) {
    refused(err);
    return;
  }
  await use(file);
}

function share() {
  return withPDF(async (file) => {
    try {
      await navigator.share({ files: [file], title: file.name });
      $('takeout-dialog').close();
    } catch (err) {
      if (err.name !== 'AbortError') refused(err);   // AbortError: the person closed the share sheet
    }
  });
}

/** The browser prints the PDF from a frame of its own, as its viewer would. */
function print() {
  return withPDF(async (file) => {
    const old = $('print-frame');
    if (old) { URL.revokeObjectURL(old.src); old.remove(); }
    const frame = document.createElement('iframe');
    frame.id = 'print-frame';
    frame.title = 'Printing';
    frame.className = 'print-frame';
    frame.src = URL.createObjectURL(file);
    frame.addEventListener('load', () => {
      try {
        frame.contentWindow.focus();
        frame.contentWindow.print();
      } catch {
        // A browser without a PDF viewer in frames (some phones): open it where it can be printed.
        window.open(frame.src, '_blank');
      }
    });
    document.body.append(frame);
    $('takeout-dialog').close();
  });
}
