// node --test web/tests/ — the unsaved edits' arithmetic (edits.js), without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { difference, pagePreview, replayed, wireEdit } from '../edits.js';

const item = (name) => ({ edit: { op: 'ink', name } });

test('one change of the list is the stretch it took away and added; undone and redone it gives each list back', () => {
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(item);
  const cases = [
    [[a, b], [a, b, c]],          // a stroke added
    [[a, b, c], [a, c]],          // one erased
    [[a, b, c], [a, d, c]],       // one changed in place (a selection moved)
    [[a, b, c], [a, b, c, d, e]], // a duplicate of two
    [[a, b], []],                 // all erased
  ];
  for (const [before, after] of cases) {
    const change = difference(before, after);
    assert.deepEqual(replayed(before, change, true), after);
    assert.deepEqual(replayed(after, change, false), before);
  }
  assert.deepEqual(difference([a, b, c], [a, d, c]), { at: 1, removed: [b], added: [d] });
});

test('ten thousand strokes are ten thousand small steps', () => {
  let items = [];
  const stack = [];
  for (let i = 0; i < 10000; i++) {
    const next = [...items, item(i)];
    stack.push(difference(items, next));
    items = next;
  }
  assert.ok(stack.every((change) => change.removed.length === 0 && change.added.length === 1));
  for (let i = 0; i < 5000; i++) items = replayed(items, stack.pop(), false);
  assert.equal(items.length, 5000);
  assert.equal(items.at(-1).edit.name, 4999);
});

test('queued page operations: where each page lands, numbered as the server runs them one after the other', () => {
  const ops = (...edits) => edits.map((edit) => ({ edit }));
  const positions = (entries) => entries.map((e) => `${e.page}${e.deleted ? 'x' : ''}${e.degrees ? `@${e.degrees}` : ''}:${e.position}`);
  assert.deepEqual(positions(pagePreview(3, [])), ['1:1', '2:2', '3:3']);
  // Delete page 1; then "page 1" is the old page 2, turned; a blank after (new) page 1; the old page 3 to the front.
  const entries = pagePreview(3, ops(
    { op: 'delete', pages: [1] },
    { op: 'rotate', pages: [1], degrees: 90 },
    { op: 'insert-blank', after: 1 },
    { op: 'move', pages: [3], to: 1 },
  ));
  assert.deepEqual(positions(entries), ['1x:0', '3:1', '2@90:2', '-1:3']);
  // Marks are not page operations.
  assert.deepEqual(positions(pagePreview(2, ops({ op: 'ink', page: 1 }, { op: 'move', pages: [1], to: 'end' }))), ['2:1', '1:2']);
});

test('an ink stroke is sent as one string of numbers; other edits as they are', () => {
  assert.deepEqual(wireEdit({ op: 'ink', strokes: [[[1, 2], [3.5, 4]]] }), { op: 'ink', strokes: ['1 2 3.5 4'] });
  const rect = { op: 'rect', box: [1, 2, 3, 4] };
  assert.equal(wireEdit(rect), rect);
});
