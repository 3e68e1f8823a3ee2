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

test('a straight stroke with a head turned back at its tip is an arrow to that tip', () => {
  const shaft = along([100, 300], [300, 200], 24);
  const head = [...along([300, 200], [280, 225], 5), ...along([280, 225], [300, 200], 5), ...along([300, 200], [272, 196], 5), [272, 196]];
  const shape = recognize(rough([...shaft, ...head], 1.5));
  assert.equal(shape.op, 'arrow');
  assert.ok(dist(shape.from, [100, 300]) < 4 && dist(shape.to, [300, 200]) < 4, JSON.stringify(shape));
  // A hook that turns forward is no arrow.
  const hook = [...shaft, ...along([300, 200], [330, 215], 6), [330, 215]];
  assert.notEqual(recognize(hook)?.op, 'arrow');
});

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const tipsAt = (c, R, k) => [c[0] + R * Math.cos(-Math.PI / 2 + k * 2 * Math.PI / 5), c[1] + R * Math.sin(-Math.PI / 2 + k * 2 * Math.PI / 5)];

test('a star, drawn as a pentagram or round its outline, is a regular five-pointed star', () => {
  const c = [300, 300], R = 100;
  const order = [0, 2, 4, 1, 3, 0].map((k) => tipsAt(c, R, k));
  const pentagram = order.slice(0, -1).flatMap((p, i) => along(p, order[i + 1], 12)).concat([order[5]]);
  for (const points of [pentagram, outlineStar(c, R)]) {
    const shape = recognize(rough(points, 2));
    assert.equal(shape?.op, 'polygon', 'a star');
    assert.equal(shape.name, 'star');
    assert.equal(shape.points.length, 10);
    // Its tips near the drawn ones, its centre where the drawing's is.
    for (let k = 0; k < 5; k++) assert.ok(shape.points.some((p) => dist(p, tipsAt(c, R, k)) < 12), `tip ${k}`);
  }
});

function outlineStar(c, R) {
  const corners = Array.from({ length: 11 }, (_, k) => {
    const r = k % 2 ? R * 0.4 : R, a = -Math.PI / 2 + (k * Math.PI) / 5;
    return [c[0] + r * Math.cos(a), c[1] + r * Math.sin(a)];
  });
  return corners.slice(0, -1).flatMap((p, i) => along(p, corners[i + 1], 6)).concat([corners[10]]);
}

test('an oval or a box with one tail out of it is a speech bubble pointing where the tail does', () => {
  const c = [300, 200], rx = 120, ry = 60;
  const loop = [];
  for (let i = 0; i <= 72; i++) {
    const a = (i / 72) * 2 * Math.PI;
    loop.push([c[0] + rx * Math.cos(a), c[1] + ry * Math.sin(a)]);
    // At about 110° (below, to the left) the tail goes out to (220, 320) and back.
    if (i === 22) loop.push(...along(loop[loop.length - 1], [220, 320], 8), ...along([220, 320], [c[0] + rx * Math.cos(a + 0.2), c[1] + ry * Math.sin(a + 0.2)], 8));
  }
  const shape = recognize(rough(loop, 1.5));
  assert.equal(shape?.name, 'speech bubble', JSON.stringify(shape)?.slice(0, 80));
  assert.ok(shape.points.some((p) => dist(p, [220, 320]) < 6), 'the tail keeps its tip');
  const xs = shape.points.map((p) => p[0]);
  assert.ok(Math.abs(Math.min(...xs) - 180) < 8 && Math.abs(Math.max(...xs) - 420) < 8, 'the body as wide as drawn');
  // The same loop without its tail stays an oval.
  assert.equal(recognize(rough(loop.filter((p) => p[1] < 265), 1.5)).op, 'oval');
});
