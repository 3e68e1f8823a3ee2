// node --test web/tests/ — the lasso tool's arithmetic (geometry.js), without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  angleFrom, editBox, handleAt, inPolygon, keepOn, lassoed, mapBox, mergeChanges, resize, snapAngle, transformEdit, union,
} from '../geometry.js';

test('a loop takes the marks whose centre it encloses, whatever its winding', () => {
  const loop = [[0, 0], [100, 0], [100, 100], [0, 100]];
  const boxes = [[10, 10, 30, 30], [90, 90, 150, 150], [200, 200, 210, 210]];
  assert.deepEqual(lassoed(loop, boxes), [0]);
  assert.deepEqual(lassoed([...loop].reverse(), boxes), [0]);
  // A crescent: the point in its hollow is outside.
  const crescent = [[0, 0], [100, 0], [100, 100], [0, 100], [0, 80], [80, 80], [80, 20], [0, 20]];
  assert.equal(inPolygon([40, 50], crescent), false);
  assert.equal(inPolygon([90, 50], crescent), true);
  assert.deepEqual(lassoed([[0, 0], [5, 5]], boxes), [], 'two points enclose nothing');
});

test('a mark carried from one box into another keeps its place within it', () => {
  const from = [100, 100, 200, 150], to = [300, 100, 500, 200];   // moved and doubled
  const ink = { op: 'ink', strokes: [[[100, 100], [150, 125], [200, 150]]], width: 2 };
  assert.deepEqual(transformEdit(ink, from, to).strokes, [[[300, 100], [400, 150], [500, 200]]]);
  assert.deepEqual(ink.strokes[0][0], [100, 100], 'the original edit is left as it was (undo holds it)');
  const line = transformEdit({ op: 'arrow', from: [100, 150], to: [200, 100] }, from, to);
  assert.deepEqual([line.from, line.to], [[300, 200], [500, 100]]);
  assert.deepEqual(transformEdit({ op: 'highlight', rects: [[100, 100, 200, 110]] }, from, to).rects, [[300, 100, 500, 120]]);
  assert.deepEqual(transformEdit({ op: 'note', at: [150, 125] }, from, to).at, [400, 150]);
  assert.deepEqual(transformEdit({ op: 'rect', box: [100, 100, 150, 150] }, from, to).box, [300, 100, 400, 200]);
  assert.deepEqual(mapBox([120, 110, 130, 120], from, to), [340, 120, 360, 140]);
});

test('an unsaved mark covers its points and half its width', () => {
  assert.deepEqual(editBox({ op: 'ink', strokes: [[[10, 10], [20, 30]]], width: 4 }), [8, 8, 22, 32]);
  assert.deepEqual(editBox({ op: 'note', at: [5, 5] }), [5, 5, 25, 25]);
  assert.deepEqual(union([[0, 0, 1, 1], [5, -2, 6, 3]]), [0, -2, 6, 3]);
});

test('a corner handle resizes about the opposite corner, never to nothing, and a signature keeps its proportions', () => {
  const box = [100, 100, 200, 150];
  assert.equal(handleAt([201, 151], box, 5), 'se');
  assert.equal(handleAt([150, 125], box, 5), null);
  assert.deepEqual(resize(box, 'se', [300, 250]), [100, 100, 300, 250]);
  assert.deepEqual(resize(box, 'nw', [50, 80]), [50, 80, 200, 150]);
  assert.deepEqual(resize(box, 'se', [50, 50]), [100, 100, 104, 104], 'dragged past its corner: the smallest box');
  const kept = resize(box, 'se', [400, 160], { keepAspect: true });
  assert.equal((kept[2] - kept[0]) / (kept[3] - kept[1]), 2);
});

test('what is moved stays on the page', () => {
  assert.deepEqual(keepOn([580, -10, 640, 20], [0, 0, 612, 792]), [552, 0, 612, 30]);
});

test('the knob turns clockwise from straight up, snapping near 45° steps', () => {
  assert.equal(Math.round(angleFrom([100, 100], [100, 50])), 0);
  assert.equal(Math.round(angleFrom([100, 100], [150, 100])), 90);
  assert.equal(Math.round(angleFrom([100, 100], [50, 100])), -90);
  assert.equal(snapAngle(92.5), 90);
  assert.equal(snapAngle(30.04), 30);
});

test("two changes of one annotation before a save are one: the later values win, turns add up", () => {
  const first = { op: 'change', page: 1, id: 'a', box: [0, 0, 10, 10], rotate: 90, color: '#ff0000' };
  assert.deepEqual(mergeChanges(first, { box: [5, 5, 15, 15], rotate: 90 }),
    { op: 'change', page: 1, id: 'a', box: [5, 5, 15, 15], rotate: -180, color: '#ff0000' });
  assert.equal('rotate' in mergeChanges(first, { rotate: -90 }), false, 'turned back: no turn');
});
