// node --test web/tests/ — the ruler's arithmetic (geometry.js), without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onRuler, rulerDegrees, rulerEdgeNear, rulerLocal, snapToRuler } from '../geometry.js';

const flat = { c: [300, 400], angle: 0, length: 400, width: 40 };
const turned = { ...flat, angle: 30 };

test('a point beside a long edge, and only there, is near it', () => {
  assert.equal(rulerEdgeNear(flat, [300, 430], 15), 1, 'just below the lower edge');
  assert.equal(rulerEdgeNear(flat, [300, 368], 15), -1, 'just above the upper edge');
  assert.equal(rulerEdgeNear(flat, [300, 460], 15), 0, 'too far below');
  assert.equal(rulerEdgeNear(flat, [600, 430], 15), 0, 'past its end');
  assert.equal(rulerEdgeNear(flat, [300, 400], 15), 0, 'on the ruler itself');
  assert.ok(onRuler(flat, [300, 410]) && !onRuler(flat, [300, 430]));
});

test('a stroke beside the edge lands on it, at any angle', () => {
  assert.deepEqual(snapToRuler(flat, 1, [250, 433]), [250, 420]);
  const snapped = [[200, 470], [260, 500], [330, 540]].map((p) => snapToRuler(turned, rulerEdgeNear(turned, p, 30) || 1, p));
  for (const p of snapped) {
    const { across } = rulerLocal(turned, p);
    assert.ok(Math.abs(across - 20) < 0.02, `on the lower edge: ${p} is ${across} across`);
  }
  const [a, b] = [snapped[0], snapped[2]];
  assert.ok(Math.abs((Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI - 30) < 0.1, 'the line runs at the ruler\'s 30°');
});

test('its angle shows from 0 to 179', () => {
  assert.deepEqual([0, 30.4, 180, 200, -30, -180].map(rulerDegrees), [0, 30, 0, 20, 150, 0]);
});
