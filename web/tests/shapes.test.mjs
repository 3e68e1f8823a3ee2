// node --test web/tests/shapes.test.mjs — shape recognition, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recognize } from '../shapes.js';

// A hand's wobble: the same every run.
let seed = 7;
const wobble = (size) => { seed = (seed * 16807) % 2147483647; return ((seed / 2147483647) - 0.5) * 2 * size; };
const rough = (points, size = 2) => points.map(([x, y]) => [x + wobble(size), y + wobble(size)]);

function along(from, to, steps = 20) {
  return Array.from({ length: steps }, (_, i) => [from[0] + (to[0] - from[0]) * i / steps, from[1] + (to[1] - from[1]) * i / steps]);
}

test('a wobbly straight stroke is a line from its start to its end', () => {
  const shape = recognize(rough(along([100, 100], [300, 180]).concat([[300, 180]])));
  assert.equal(shape.op, 'line');
  assert.ok(Math.abs(shape.to[0] - 300) < 5 && Math.abs(shape.to[1] - 180) < 5);
});

test('four rough sides back to the start are a rectangle in their box', () => {
  const corners = [[100, 100], [300, 100], [300, 220], [100, 220], [104, 103]];
  const points = corners.slice(0, -1).flatMap((c, i) => along(c, corners[i + 1]));
  const shape = recognize(rough(points));
  assert.equal(shape.op, 'rect');
  assert.ok(Math.abs(shape.box[0] - 100) < 5 && Math.abs(shape.box[3] - 220) < 5);
});

test('a rough round loop is an oval', () => {
  const points = Array.from({ length: 60 }, (_, i) => {
    const a = (i / 57) * 2 * Math.PI;
    return [200 + 90 * Math.cos(a), 150 + 50 * Math.sin(a)];
  });
  assert.equal(recognize(rough(points)).op, 'oval');
});

test('a scribble, a curve left open, a zigzag and a dot are no shape', () => {
  const scribble = Array.from({ length: 40 }, (_, i) => [100 + (i * 37) % 90, 100 + (i * 53) % 70]);
  assert.equal(recognize(scribble), null);
  const arc = Array.from({ length: 30 }, (_, i) => [200 + 80 * Math.cos(Math.PI * i / 29), 150 + 80 * Math.sin(Math.PI * i / 29)]);
  assert.equal(recognize(arc), null);
  const zigzag = [[100, 100], [130, 160], [160, 100], [190, 160], [220, 100], [250, 160]].flatMap((c, i, all) =>
    i < all.length - 1 ? along(c, all[i + 1], 6) : [c]);
  assert.equal(recognize(zigzag), null);
  assert.equal(recognize([[100, 100], [101, 100], [100, 101], [101, 101], [100, 100]]), null);
});
