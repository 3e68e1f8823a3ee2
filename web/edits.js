// edits.js — the arithmetic of the unsaved edits, without the DOM (tested under Node,
// web/tests/edits.test.mjs): what one change of the list took away and added, that change undone
// or done again, where the queued page operations leave each page, and an edit as it is sent.

/** The edits that operate on pages rather than mark them (Save sends them after the marks). */
export const PAGE_OPS = ['rotate', 'delete', 'move', 'insert-blank'];

/** The change from the list `before` to `after`: the stretch between what they begin and end with alike. */
export function difference(before, after) {
  let at = 0;
  while (at < before.length && at < after.length && before[at] === after[at]) at++;
  let tail = 0;
  while (tail < before.length - at && tail < after.length - at && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return { at, removed: before.slice(at, before.length - tail), added: after.slice(at, after.length - tail) };
}

/** `items` with `change` undone (or, with `forward`, done again). */
export function replayed(items, change, forward) {
  const [out, back] = forward ? [change.removed, change.added] : [change.added, change.removed];
  return [...items.slice(0, change.at), ...back, ...items.slice(change.at + out.length)];
}

/**
 * Where the queued page operations among `items` ({edit}) leave the `pageCount` pages loaded, in
 * the strip's order: [{page, deleted, degrees, position}], page as loaded (negative: a blank page a
 * queued insert adds), position its number once saved (0 if deleted). A deleted page keeps its
 * place, struck out; page numbers in the edits count only the pages not deleted, as the server
 * runs them one after the other (pdftrapper-edit(5)).
 */
export function pagePreview(pageCount, items) {
  let entries = Array.from({ length: pageCount }, (_, i) => ({ page: i + 1, deleted: false, degrees: 0 }));
  let blanks = 0;
  for (const { edit } of items) {
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

/** An edit as it is sent: an ink stroke as one string "x y x y …", which the server reads cheaply however long the drawing. */
export function wireEdit(edit) {
  if (edit.op !== 'ink') return edit;
  return { ...edit, strokes: edit.strokes.map((stroke) => stroke.map(([x, y]) => `${x} ${y}`).join(' ')) };
}
