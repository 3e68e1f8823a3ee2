// upload.js — "Add pages": photos (a phone's camera) and files from the browser into the inbox,
// through POST /api/upload (web/README.md). From an open document they go to that document; from
// the library the rules route them. Each file is sent as it is (the browser streams it; nothing is
// read into memory here), with its upload progress shown; a failed send is tried again, which is
// safe: the server knows the same bytes by their digest and stores them once. The page then
// appears by the live events, like any page the inbox takes.
//
// Tests wait on #upload-status's data-state: "uploading", then "done" (every file stored, or known
// already) or "error" (the reason is its text).

const $ = (id) => document.getElementById(id);
const TRIES = 3;

/** `target()`: the open document's path for the document's control, or null. `onStored(files)`:
 * after every file was stored (the document view follows the pages as they land). */
export function initUpload({ target, onStored }) {
  for (const [inputId, forDocument] of [['add-pages-input', true], ['library-add-pages-input', false]]) {
    const input = $(inputId);
    input.addEventListener('change', async () => {
      const files = [...input.files];
      input.value = '';   // the same photo may be chosen again later
      if (!files.length) return;
      const stored = await sendAll(files, forDocument ? target() : null);
      if (stored.length) onStored(stored, forDocument);
    });
  }
}

async function sendAll(files, path) {
  const stored = [];
  for (const [index, file] of files.entries()) {
    const label = files.length > 1 ? `${file.name} (${index + 1} of ${files.length})` : file.name;
    try {
      stored.push(await sendWithRetries(file, path, label));
    } catch (err) {
      show('error', err.message);
      return stored;
    }
  }
  const landing = path ? `into ${path}` : 'into the inbox; the rules take it from there';
  const again = stored.some((answer) => answer.duplicate) ? ' (sent before: stored once)' : '';
  show('done', `${stored.length === 1 ? files[0].name : `${stored.length} files`} uploaded ${landing}${again}.`);
  return stored;
}

async function sendWithRetries(file, path, label) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(file, path, label);
    } catch (err) {
      // A refusal (413, 415, 422...) is final; a lost connection is worth another try.
      if (err.status || attempt >= TRIES) throw err;
      show('uploading', `${label}: the connection failed, trying again…`);
      await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
    }
  }
}

/** One POST of the file's bytes; XMLHttpRequest, because fetch reports no upload progress. */
function send(file, path, label) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    const params = new URLSearchParams({ name: file.name || 'photo.jpg' });
    if (path) params.set('path', path);
    request.open('POST', `/api/upload?${params}`);
    request.setRequestHeader('X-PDFTrapper-CSRF', '1');
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) show('uploading', `${label}: ${Math.round(event.loaded * 100 / event.total)}%`);
    });
    request.addEventListener('load', () => {
      let answer = null;
      try { answer = JSON.parse(request.responseText); } catch { answer = null; }
      if (request.status === 200 && answer) resolve(answer);
      else reject(Object.assign(new Error((answer && answer.error) || `${label}: ${request.status} ${request.statusText}`),
        { status: request.status }));
    });
    request.addEventListener('error', () => reject(Object.assign(new Error(`${label}: the daemon does not answer`), { status: 0 })));
    show('uploading', `${label}: 0%`);
    request.send(file);
  });
}

function show(state, text) {
  const status = $('upload-status');
  status.dataset.state = state;
  status.textContent = text;
  status.hidden = false;
  status.classList.toggle('error', state === 'error');
}
