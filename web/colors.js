// colors.js — the colour control's swatches: a palette of ten, and the six colours used last
// (newest first), beside the colour picker; and each tool's last colour, kept in the browser
// (localStorage) so that the marker is yellow and the pen blue again after a reload.
//
// A swatch sets the picker and fires its `input` event, so draw.js takes it as it takes the
// picker's own.

const PALETTE = ['#000000', '#4d4d4d', '#ffffff', '#e61919', '#f28c1c', '#ffe619', '#2fa84f', '#1fa3c7', '#1a3a9e', '#8e3bbf'];
const RECENT_COUNT = 6;
const RECENT_KEY = 'pdftrapper-recent-colours';
const TOOLS_KEY = 'pdftrapper-tool-colours';

const $ = (id) => document.getElementById(id);

function read(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key));
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode, full: kept for this page only */ }
}

const isColour = (value) => typeof value === 'string' && /^#[0-9a-f]{6}$/.test(value);

/** Each tool's last colour, as kept: {pen: '#1a3a9e', ...}. */
export function keptToolColours() {
  const kept = read(TOOLS_KEY, {});
  return Object.fromEntries(Object.entries(kept).filter(([, colour]) => isColour(colour)));
}

/** `colour` was chosen for `tool`: it is the tool's from now on, and the newest of the recent. */
export function chose(tool, colour) {
  if (!isColour(colour)) return;
  write(TOOLS_KEY, { ...keptToolColours(), [tool]: colour });
  const recent = [colour, ...read(RECENT_KEY, []).filter((c) => isColour(c) && c !== colour)].slice(0, RECENT_COUNT);
  write(RECENT_KEY, recent);
  showSwatches();
}

/** The swatches, the recent ones first; each sets the picker. */
export function showSwatches() {
  const box = $('swatches');
  if (!box) return;
  const recent = read(RECENT_KEY, []).filter(isColour);
  const swatch = (colour, kind) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `swatch ${kind}`;
    button.dataset.color = colour;
    button.title = kind === 'recent' ? `${colour} (used lately)` : colour;
    button.style.background = colour;
    button.addEventListener('click', () => {
      const picker = $('color');
      if (picker.disabled) return;
      picker.value = colour;
      picker.dispatchEvent(new Event('input', { bubbles: true }));
      picker.dispatchEvent(new Event('change', { bubbles: true }));
    });
    return button;
  };
  const separator = document.createElement('span');
  separator.className = 'swatch-gap';
  box.replaceChildren(...recent.map((c) => swatch(c, 'recent')), ...(recent.length ? [separator] : []),
    ...PALETTE.map((c) => swatch(c, 'palette')));
}
